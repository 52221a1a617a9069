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
RETYPE = 'volume:retype'
EXTEND = 'volume:extend'
EXTEND_ATTACHED = 'volume:extend_attached_volume'
SET_BOOTABLE = 'volume_extension:volume_actions:set_bootable'
FORCE_DELETE = 'volume_extension:volume_admin_actions:force_delete'

rules = [
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Create a volume.',
        operations=[{'method': 'POST', 'path': BASE_PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET, check_str=base.PROJECT_READER_OR_ADMIN_OR_SERVICE,
        description='Show a volume.',
        operations=[{'method': 'GET', 'path': BASE_PATH + '/{volume_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET_ALL, check_str=base.PROJECT_READER_OR_ADMIN_OR_SERVICE,
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
        name=MULTIATTACH, check_str=base.RULE_ADMIN_API,
        description='Create a shareable (multiattach) volume, from a '
                    'volume type with multiattach="<is> True" or with the '
                    'legacy "multiattach" flag of the create request '
                    '(below microversion 3.50), or retype a volume to a '
                    'multiattach type. Administrators only by default: a '
                    'cloud that offers multiattach types to its projects '
                    'opens this rule to them, for instance '
                    '"rule:context_is_admin or rule:project_member_api".',
        operations=[{'method': 'POST', 'path': BASE_PATH},
                    {'method': 'POST',
                     'path': BASE_PATH + '/{volume_id}/action (os-retype)'}],
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
        name=FORCE_DELETE, check_str=base.RULE_ADMIN_API,
        description='Delete a volume in any status, detaching its '
                    'attachments first (os-force_delete).',
        operations=[{'method': 'POST',
                     'path': BASE_PATH +
                     '/{volume_id}/action (os-force_delete)'}],
        scope_types=['project']),
]


def list_rules():
    return rules
