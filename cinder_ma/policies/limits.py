"""Policy rules of absolute limits (``GET /limits``)."""

from oslo_policy import policy

from cinder_ma.policies import base

USED_LIMITS = 'limits_extension:used_limits'

rules = [
    policy.DocumentedRuleDefault(
        name=USED_LIMITS, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show the absolute limits of a project with what it '
                    'uses of them (admins: of any project, with '
                    '?project_id= from microversion 3.39).',
        operations=[{'method': 'GET', 'path': '/v3/{project_id}/limits'}],
        scope_types=['project']),
]


def list_rules():
    return rules
