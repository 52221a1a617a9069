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

"""Policy rules of volume transfers (Cinder's ``volume:*_transfer``
rules): readers of the volume's project list and show its transfers,
members create and delete them; a member of the accepting project
accepts one (the target is the caller's own project: the volume is still
the donor's)."""

from oslo_policy import policy

from cinder_ma.policies import base

_PATHS = ('/v3/{project_id}/os-volume-transfer',
          '/v3/{project_id}/volume-transfers')

GET_ALL = 'volume:get_all_transfers'
GET = 'volume:get_transfer'
CREATE = 'volume:create_transfer'
ACCEPT = 'volume:accept_transfer'
DELETE = 'volume:delete_transfer'


def _operations(method, suffix=''):
    return [{'method': method, 'path': path + suffix} for path in _PATHS]


rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List volume transfers.',
        operations=_operations('GET') + _operations('GET', '/detail'),
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show a volume transfer.',
        operations=_operations('GET', '/{transfer_id}'),
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Create a volume transfer.',
        operations=_operations('POST'),
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ACCEPT, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Accept a volume transfer (into the caller\'s '
                    'project).',
        operations=_operations('POST', '/{transfer_id}/accept'),
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Delete a volume transfer.',
        operations=_operations('DELETE', '/{transfer_id}'),
        scope_types=['project']),
]


def list_rules():
    return rules
