"""Policy rules of availability zones (``os-availability-zone``)."""

from oslo_policy import policy

from cinder_ma.policies import base

GET_ALL = 'volume_extension:availability_zone_list'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL,
        check_str=base.PROJECT_READER_OR_ADMIN,
        description='List the availability zones of the storage '
                    'backends (any reader of their own project).',
        operations=[{'method': 'GET',
                     'path': '/v3/{project_id}/os-availability-zone'}],
        scope_types=['project']),
]


def list_rules():
    return rules
