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

"""Options of the ``[coordination]`` group: the backend of the locks that
must hold across processes and hosts (:mod:`cinder_ma.coordination`)."""

from oslo_config import cfg

GROUP = cfg.OptGroup(
    'coordination', title='Coordination backend',
    help='The tooz backend of the connection locks, which serialize '
         'deciding whether a host\'s connection to a volume (or to a '
         'shared target) is still used and tearing it down, in every API '
         'and manager process that does it.')

opts = [
    cfg.StrOpt('backend_url',
               default='file://$state_path/coordination',
               secret=True,
               help='URL of the tooz coordination backend that holds the '
                    'connection locks, which every API and manager process '
                    'takes. The default, a directory of lock files, '
                    'serializes the processes of one host only: enough '
                    'when the API and every manager run on one host. A '
                    'deployment that runs cinder-ma-api or managers on '
                    'more than one host must set a backend that all of '
                    'them reach, such as redis://:PASSWORD@HOST:6379, '
                    'etcd3+http://HOST:2379 or a database URL '
                    '(mysql://USER:PASSWORD@HOST/DB, '
                    'postgresql://USER:PASSWORD@HOST/DB), with its client '
                    'library installed (redis, etcd3gw, PyMySQL, '
                    'psycopg2), and the same URL in every process; a '
                    'query argument such as "?namespace=NAME" (redis) '
                    'keeps deployments that share one server apart. '
                    'Otherwise two hosts can handle the last attachments '
                    'that use one host connection at the same time: each '
                    'may count the other as a user and keep the connection '
                    '(leaked on the storage backend), or one may tear it '
                    'down while the other is connecting through it. See '
                    'docs/admin/operations.rst.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
