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

"""User message options (``[message]``).

Cinder reads ``message_ttl`` from ``[DEFAULT]``; a Cinder configuration
keeps its meaning here (the option's deprecated group).
"""

from oslo_config import cfg

GROUP = cfg.OptGroup('message', title='User messages',
                     help='User messages (/messages, microversion 3.3): '
                          'asynchronous failures shown to the user.')

opts = [
    cfg.IntOpt('message_ttl',
               default=2592000, min=1,
               deprecated_group='DEFAULT',
               help='Seconds a user message is kept at least: its '
                    'guaranteed_until is its creation time plus this. '
                    '"cinder-ma-manage message purge" deletes the '
                    'messages past that time (30 days by default, as '
                    'Cinder).'),
]


def register_opts(conf):
    conf.register_group(GROUP)
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
