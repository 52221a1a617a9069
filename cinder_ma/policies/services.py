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

"""Policy rules of services (``os-services``) and hosts (``os-hosts``),
with Cinder's names."""

from oslo_policy import policy

from cinder_ma.policies import base

PATH = '/v3/{project_id}/os-services'

GET_ALL = 'volume_extension:services:index'
UPDATE = 'volume_extension:services:update'
FREEZE = 'volume:freeze_host'
THAW = 'volume:thaw_host'
HOSTS = 'volume_extension:hosts'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL, check_str=base.RULE_ADMIN_API,
        description='List the services (managers and their backends), '
                    'their state and heartbeat.',
        operations=[{'method': 'GET', 'path': PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.RULE_ADMIN_API,
        description='Enable and disable a service (a disabled backend '
                    'gets no new volumes), with or without a reason.',
        operations=[{'method': 'PUT', 'path': PATH + '/enable'},
                    {'method': 'PUT', 'path': PATH + '/disable'},
                    {'method': 'PUT', 'path': PATH + '/disable-log-reason'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FREEZE, check_str=base.RULE_ADMIN_API,
        description='Freeze the backends of a host: they get no new '
                    'volumes and refuse changes to theirs.',
        operations=[{'method': 'PUT', 'path': PATH + '/freeze'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=THAW, check_str=base.RULE_ADMIN_API,
        description='Thaw frozen backends.',
        operations=[{'method': 'PUT', 'path': PATH + '/thaw'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=HOSTS, check_str=base.RULE_ADMIN_API,
        description='List hosts and show the volume usage of a backend '
                    'host.',
        operations=[{'method': 'GET', 'path': '/v3/{project_id}/os-hosts'},
                    {'method': 'GET',
                     'path': '/v3/{project_id}/os-hosts/{host_name}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
