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
