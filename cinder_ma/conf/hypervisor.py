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

"""Options of the ``[hypervisor]`` group: this host's hypervisor driver."""

from oslo_config import cfg

GROUP = cfg.OptGroup('hypervisor', title='Hypervisor driver options')

opts = [
    cfg.StrOpt('driver',
               help='Entry point name (namespace '
                    'cinder_ma.hypervisor.drivers) of the hypervisor driver '
                    'this host\'s manager runs to attach volumes to its '
                    'instances. Unset: this host runs no instances.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
