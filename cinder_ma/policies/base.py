"""Personas shared by every policy rule.

``admin``: the cloud administrator. ``member`` and ``reader``: members and
readers of the project that owns the resource (the target's project_id).
``service``: another OpenStack service (a compute service attaching
volumes), recognised by the ``service`` role of its service token or, with
noauth, of ``X-Service-Roles``.
"""

from oslo_policy import policy

RULE_ADMIN_API = 'rule:admin_api'

ADMIN = 'role:admin'
SERVICE = 'role:service or service_roles:service'
PROJECT_MEMBER = 'role:member and project_id:%(project_id)s'
PROJECT_READER = 'role:reader and project_id:%(project_id)s'

ADMIN_OR_SERVICE = 'rule:context_is_admin or rule:service_api'
PROJECT_MEMBER_OR_ADMIN = 'rule:context_is_admin or rule:project_member_api'
PROJECT_READER_OR_ADMIN = 'rule:context_is_admin or rule:project_reader_api'
PROJECT_MEMBER_OR_ADMIN_OR_SERVICE = (
    'rule:context_is_admin or rule:project_member_api or rule:service_api')
PROJECT_READER_OR_ADMIN_OR_SERVICE = (
    'rule:context_is_admin or rule:project_reader_api or rule:service_api')

rules = [
    policy.RuleDefault('context_is_admin', ADMIN,
                       description='Decides what an administrator is.'),
    policy.RuleDefault('admin_api', 'rule:context_is_admin',
                       description='Default rule for administrative APIs.'),
    policy.RuleDefault('service_api', SERVICE,
                       description='Decides what a service (such as a '
                                   'compute service) is.'),
    policy.RuleDefault('project_member_api', PROJECT_MEMBER,
                       description='A member of the owning project.'),
    policy.RuleDefault('project_reader_api',
                       '(' + PROJECT_READER + ') or (' + PROJECT_MEMBER +
                       ')',
                       description='A reader (or member) of the owning '
                                   'project.'),
]


def list_rules():
    return rules
