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

"""Policy rules of scheduler statistics (``scheduler-stats``) and of a
backend's capabilities (``capabilities``)."""

from oslo_policy import policy

from cinder_ma.policies import base

GET_POOLS = 'scheduler_extension:scheduler_stats:get_pools'
CAPABILITIES = 'volume_extension:capabilities'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_POOLS, check_str=base.RULE_ADMIN_API,
        description='List the storage pools of the backends, with their '
                    'capabilities and capacity on request.',
        operations=[{'method': 'GET',
                     'path': '/v3/{project_id}/scheduler-stats/get_pools'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=CAPABILITIES, check_str=base.RULE_ADMIN_API,
        description="Show a backend's capabilities.",
        operations=[{'method': 'GET',
                     'path': '/v3/{project_id}/capabilities/{hostname}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
