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

"""Options of the ``[upgrade_levels]`` group: RPC version pins for rolling
upgrades."""

from oslo_config import cfg

GROUP = cfg.OptGroup(
    'upgrade_levels', title='RPC version pins',
    help='While services of two releases run side by side, pin the RPC '
         'API that newer callers use to what the older managers '
         'understand; remove the pin once every service is upgraded.')

#: The value of a pin meaning "the lowest version the services report".
AUTO = 'auto'

opts = [
    cfg.StrOpt('manager',
               regex=r'^(auto|\d+\.\d+)$',
               help='Highest version of the manager RPC API '
                    '(cinder_ma.manager.rpcapi) that the API and the '
                    'managers send: a version such as "1.2", or "auto" '
                    'for the lowest version that the managers registered '
                    'in the services table report (read once per process; '
                    'a manager that reports none counts as 1.2). Unset: '
                    'no pin, the newest version. A call that needs a newer '
                    'version is refused with a message or degraded.'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
