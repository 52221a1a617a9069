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

"""Policy rules of volumes."""

from oslo_policy import policy

from cinder_ma.policies import base

BASE_PATH = '/v3/{project_id}/volumes'

CREATE = 'volume:create'
GET = 'volume:get'
GET_ALL = 'volume:get_all'
UPDATE = 'volume:update'
DELETE = 'volume:delete'
ALL_TENANTS = 'volume:get_all_tenants'
MULTIATTACH = 'volume:multiattach'
MULTIATTACH_LEGACY_FLAG = 'volume:multiattach_legacy_flag'
RETYPE = 'volume:retype'
EXTEND = 'volume:extend'
EXTEND_ATTACHED = 'volume:extend_attached_volume'
SET_BOOTABLE = 'volume_extension:volume_actions:set_bootable'
FORCE_DELETE = 'volume_extension:volume_admin_actions:force_delete'
EXTEND_COMPLETION = 'volume:extend_volume_completion'
UPDATE_READONLY = 'volume_extension:volume_actions:update_readonly_flag'
RESET_STATUS = 'volume_extension:volume_admin_actions:reset_status'
ENCRYPTION_METADATA = 'volume_extension:volume_encryption_metadata'

rules = [
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Create a volume.',
        operations=[{'method': 'POST', 'path': BASE_PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show a volume.',
        operations=[{'method': 'GET', 'path': BASE_PATH + '/{volume_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ENCRYPTION_METADATA,
        check_str=base.PROJECT_READER_OR_ADMIN,
        description="Show a volume's encryption metadata (its type's "
                    "encryption; no key here).",
        operations=[{'method': 'GET',
                     'path': BASE_PATH + '/{volume_id}/encryption'},
                    {'method': 'GET',
                     'path': BASE_PATH + '/{volume_id}/encryption/{key}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET_ALL, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List volumes or get their details.',
        operations=[{'method': 'GET', 'path': BASE_PATH},
                    {'method': 'GET', 'path': BASE_PATH + '/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ALL_TENANTS, check_str=base.RULE_ADMIN_API,
        description='List volumes of every project (all_tenants=1).',
        operations=[{'method': 'GET', 'path': BASE_PATH},
                    {'method': 'GET', 'path': BASE_PATH + '/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Update the name, description or metadata of a '
                    'volume.',
        operations=[{'method': 'PUT', 'path': BASE_PATH + '/{volume_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Delete a volume.',
        operations=[{'method': 'DELETE',
                     'path': BASE_PATH + '/{volume_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=MULTIATTACH, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Create a shareable (multiattach) volume from a volume '
                    'type with multiattach="<is> True", or retype a volume '
                    'to such a type. Project members may, as in Cinder: '
                    'the gate is the type, which only administrators '
                    'make (and may keep private to some projects).',
        operations=[{'method': 'POST', 'path': BASE_PATH},
                    {'method': 'POST',
                     'path': BASE_PATH + '/{volume_id}/action (os-retype)'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=MULTIATTACH_LEGACY_FLAG, check_str=base.RULE_ADMIN_API,
        description='Create a shareable (multiattach) volume with the '
                    'legacy "multiattach" flag of the create request '
                    '(below microversion 3.50) instead of a multiattach '
                    'volume type, whatever backend the type leads to. '
                    'Administrators only.',
        operations=[{'method': 'POST', 'path': BASE_PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=RETYPE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Change the type of a volume (os-retype).',
        operations=[{'method': 'POST',
                     'path': BASE_PATH + '/{volume_id}/action (os-retype)'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTEND, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Grow an available volume (os-extend).',
        operations=[{'method': 'POST',
                     'path': BASE_PATH + '/{volume_id}/action (os-extend)'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTEND_ATTACHED, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Grow an in-use volume (os-extend), where its backend '
                    'supports online extend.',
        operations=[{'method': 'POST',
                     'path': BASE_PATH + '/{volume_id}/action (os-extend)'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SET_BOOTABLE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Mark a volume bootable or not (os-set_bootable).',
        operations=[{'method': 'POST',
                     'path': BASE_PATH +
                     '/{volume_id}/action (os-set_bootable)'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=UPDATE_READONLY, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Make a volume read-only or not '
                    '(os-update_readonly_flag): the attachments of a '
                    'read-only volume are ro.',
        operations=[{'method': 'POST',
                     'path': BASE_PATH +
                     '/{volume_id}/action (os-update_readonly_flag)'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FORCE_DELETE, check_str=base.RULE_ADMIN_API,
        description='Delete a volume in any status, detaching its '
                    'attachments first (os-force_delete).',
        operations=[{'method': 'POST',
                     'path': BASE_PATH +
                     '/{volume_id}/action (os-force_delete)'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTEND_COMPLETION,
        check_str=base.ADMIN_OR_PROJECT_MEMBER_THROUGH_SERVICE,
        description='Tell that an online extend waiting for the compute '
                    'service finished or failed '
                    '(os-extend_volume_completion, 3.71): an '
                    'administrator, or a member of the volume\'s project '
                    'through a service.',
        operations=[{'method': 'POST',
                     'path': BASE_PATH +
                     '/{volume_id}/action (os-extend_volume_completion)'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=RESET_STATUS, check_str=base.RULE_ADMIN_API,
        description='Reset the status of a volume, or from 3.50 of one of '
                    'its attachments (os-reset_status), within the rule '
                    'that a volume\'s attachment-derived status is the one '
                    'its attachments give.',
        operations=[{'method': 'POST',
                     'path': BASE_PATH +
                     '/{volume_id}/action (os-reset_status)'}],
        scope_types=['project']),
]


def list_rules():
    return rules
