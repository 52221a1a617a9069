"""Policy rules of services."""

from oslo_policy import policy

from cinder_ma.policies import base

GET_ALL = 'volume_extension:services:index'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL, check_str=base.RULE_ADMIN_API,
        description='List the services (managers and their backends), '
                    'their state and heartbeat.',
        operations=[{'method': 'GET', 'path': '/v3/{project_id}/os-services'}],
        scope_types=['project']),
]


def list_rules():
    return rules
