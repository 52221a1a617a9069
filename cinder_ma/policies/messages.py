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

"""Policy rules of user messages (Cinder's ``message:*`` rules): readers
of the message's project list and show them, members delete them."""

from oslo_policy import policy

from cinder_ma.policies import base

BASE_PATH = '/v3/{project_id}/messages'

GET_ALL = 'message:get_all'
GET = 'message:get'
DELETE = 'message:delete'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List messages.',
        operations=[{'method': 'GET', 'path': BASE_PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show message.',
        operations=[{'method': 'GET', 'path': BASE_PATH + '/{message_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Delete message.',
        operations=[{'method': 'DELETE',
                     'path': BASE_PATH + '/{message_id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
