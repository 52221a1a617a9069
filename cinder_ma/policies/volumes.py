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
        description='Create a shareable (multiattach) volume with the '
                    'legacy "multiattach" flag of the create request '
                    '(below microversion 3.50). Volume types with '
                    'multiattach="<is> True" are the way to offer shareable '
                    'volumes to projects.',
        operations=[{'method': 'POST', 'path': BASE_PATH}],
        scope_types=['project']),
]


def list_rules():
    return rules
