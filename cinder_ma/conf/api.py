# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""Options of the ``[api]`` group: the REST API server."""

from oslo_config import cfg

GROUP = cfg.OptGroup('api', title='REST API options')

opts = [
    cfg.HostAddressOpt('host_ip',
                       default='127.0.0.1',
                       help='Address the API server listens on. Use '
                            '0.0.0.0 (or ::) to listen on every interface.'),
    cfg.PortOpt('port',
                default=8776,
                help='TCP port the API server listens on.'),
    cfg.IntOpt('workers',
               min=1,
               help='Processes serving the API in cinder-ma-api and '
                    'cinder-ma-all, all on the one listening socket '
                    '(default: the number of CPUs). In cinder-ma-all each '
                    'worker also runs an in-process manager of the host; '
                    'with SQLite, writers of all workers queue on a lock '
                    'file next to the database. 1 serves from the main '
                    'process itself.'),
    cfg.IntOpt('threads',
               default=16, min=1, max=1024,
               help='Threads of each API process\'s embedded WSGI server '
                    '(waitress). '
                    'Deployments behind uWSGI or gunicorn set their own.'),
    cfg.IntOpt('max_limit',
               default=1000, min=1,
               help='The most items a list request returns in one page.'),
    cfg.StrOpt('public_endpoint',
               sample_default='https://volume.example.net:8776',
               help='Public URL of the API (as Cinder\'s public_endpoint), '
                    'the root of every link in responses: version '
                    'documents, self and bookmark links of resources, '
                    'next pages. Unset, links are built from the URL of '
                    'the request (its Host header), which behind a load '
                    'balancer or proxy is the API host\'s own name: set '
                    'it there (cinder_ma does not read X-Forwarded-* '
                    'headers).'),
    cfg.IntOpt('gc_young_threshold',
               default=0, min=0,
               help='Tuning of Python\'s garbage collector in each process '
                    'that serves the API, once its application is built: '
                    'when not 0, the objects the process holds for ever '
                    'are frozen out of full collections (gc.freeze) and '
                    'the young generation is collected every this many '
                    'net allocations of containers (Python\'s default: '
                    '700; 20000 was the tuning of earlier releases). 0, '
                    'the default, leaves the collector as Python sets it: '
                    'measured side by side, the tuning did not make an '
                    'attach cycle cheaper and made a detach dearer (see '
                    'the contributor documentation\'s speed page).'),
    cfg.FloatOpt('switch_interval',
                 default=0.0005, min=0.0001, max=0.1,
                 help='Seconds a thread of a process that serves the API '
                      'may hold Python\'s interpreter lock while another '
                      'thread of the process waits for it (Python\'s '
                      'sys.setswitchinterval; Python\'s default: 0.005). '
                      'A request thread that waited for the database '
                      '(SQLite releases the interpreter lock in every '
                      'statement) waits up to this long to run again, '
                      'while it holds the writer lock every worker of '
                      'cinder-ma-all queues on; see the contributor '
                      'documentation\'s speed page for the measurements '
                      'behind the default.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
