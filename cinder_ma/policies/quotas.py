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

"""Policy rules of quotas (``os-quota-sets``) and quota classes
(``os-quota-class-sets``), named as in Cinder."""

from oslo_policy import policy

from cinder_ma.policies import base

SETS_PATH = '/v3/{project_id}/os-quota-sets/{target_project_id}'
CLASS_PATH = '/v3/{project_id}/os-quota-class-sets/{quota_class_name}'

SHOW = 'volume_extension:quotas:show'
UPDATE = 'volume_extension:quotas:update'
DELETE = 'volume_extension:quotas:delete'
CLASS_GET = 'volume_extension:quota_classes'
CLASS_UPDATE = 'volume_extension:quota_classes:update'

rules = [
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show the quotas of a project (with their usage on '
                    'request) or the defaults it gets.',
        operations=[{'method': 'GET', 'path': SETS_PATH},
                    {'method': 'GET', 'path': SETS_PATH + '/defaults'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.RULE_ADMIN_API,
        description='Set the quotas of a project.',
        operations=[{'method': 'PUT', 'path': SETS_PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.RULE_ADMIN_API,
        description='Reset the quotas of a project to the defaults.',
        operations=[{'method': 'DELETE', 'path': SETS_PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=CLASS_GET, check_str=base.RULE_ADMIN_API,
        description='Show the limits of a quota class.',
        operations=[{'method': 'GET', 'path': CLASS_PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=CLASS_UPDATE, check_str=base.RULE_ADMIN_API,
        description='Set the limits of a quota class ("default": every '
                    'project\'s defaults).',
        operations=[{'method': 'PUT', 'path': CLASS_PATH}],
        scope_types=['project']),
]


def list_rules():
    return rules
