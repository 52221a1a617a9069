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

"""Policy rules of QoS specs (Cinder's ``qos_specs_manage`` rules)."""

from oslo_policy import policy

from cinder_ma.policies import base

BASE_PATH = '/v3/{project_id}/qos-specs'

GET_ALL = 'volume_extension:qos_specs_manage:get_all'
GET = 'volume_extension:qos_specs_manage:get'
CREATE = 'volume_extension:qos_specs_manage:create'
UPDATE = 'volume_extension:qos_specs_manage:update'
DELETE = 'volume_extension:qos_specs_manage:delete'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL, check_str=base.RULE_ADMIN_API,
        description='List QoS specs and the volume types associated with '
                    'QoS specs.',
        operations=[{'method': 'GET', 'path': BASE_PATH},
                    {'method': 'GET',
                     'path': BASE_PATH + '/{qos_id}/associations'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET, check_str=base.RULE_ADMIN_API,
        description='Show QoS specs.',
        operations=[{'method': 'GET', 'path': BASE_PATH + '/{qos_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.RULE_ADMIN_API,
        description='Create QoS specs.',
        operations=[{'method': 'POST', 'path': BASE_PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.RULE_ADMIN_API,
        description='Set keys of QoS specs; associate them with and '
                    'disassociate them from volume types.',
        operations=[
            {'method': 'PUT', 'path': BASE_PATH + '/{qos_id}'},
            {'method': 'GET', 'path': BASE_PATH + '/{qos_id}/associate'},
            {'method': 'GET', 'path': BASE_PATH + '/{qos_id}/disassociate'},
            {'method': 'GET',
             'path': BASE_PATH + '/{qos_id}/disassociate_all'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.RULE_ADMIN_API,
        description='Delete QoS specs or keys of QoS specs.',
        operations=[
            {'method': 'DELETE', 'path': BASE_PATH + '/{qos_id}'},
            {'method': 'PUT', 'path': BASE_PATH + '/{qos_id}/delete_keys'}],
        scope_types=['project']),
]


def list_rules():
    return rules
