"""Policy rules of volume types and their extra specs."""

from oslo_policy import policy

from cinder_ma.policies import base

BASE_PATH = '/v3/{project_id}/types'

MANAGE = 'volume_extension:types_manage'
GET = 'volume_extension:type_get'
GET_ALL = 'volume_extension:type_get_all'
EXTRA_SPECS_MANAGE = 'volume_extension:types_extra_specs:manage'
EXTRA_SPECS_READ = 'volume_extension:types_extra_specs:read'

rules = [
    policy.DocumentedRuleDefault(
        name=MANAGE, check_str=base.RULE_ADMIN_API,
        description='Create, update and delete volume types.',
        operations=[{'method': 'POST', 'path': BASE_PATH},
                    {'method': 'PUT', 'path': BASE_PATH + '/{type_id}'},
                    {'method': 'DELETE', 'path': BASE_PATH + '/{type_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET, check_str='',
        description='Show a volume type.',
        operations=[{'method': 'GET', 'path': BASE_PATH + '/{type_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET_ALL, check_str='',
        description='List volume types.',
        operations=[{'method': 'GET', 'path': BASE_PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS_MANAGE, check_str=base.RULE_ADMIN_API,
        description='Create, update and delete extra specs of a volume '
                    'type.',
        operations=[
            {'method': 'POST', 'path': BASE_PATH + '/{type_id}/extra_specs'},
            {'method': 'PUT',
             'path': BASE_PATH + '/{type_id}/extra_specs/{key}'},
            {'method': 'DELETE',
             'path': BASE_PATH + '/{type_id}/extra_specs/{key}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS_READ, check_str='',
        description='Show and list extra specs of a volume type (and see '
                    'them in type responses).',
        operations=[
            {'method': 'GET', 'path': BASE_PATH + '/{type_id}/extra_specs'},
            {'method': 'GET',
             'path': BASE_PATH + '/{type_id}/extra_specs/{key}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
