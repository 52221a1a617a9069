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

"""Personas shared by every policy rule.

``admin``: the cloud administrator. ``member`` and ``reader``: members and
readers of the project that owns the resource (the target's project_id).
``service``: another OpenStack service (a compute service attaching
volumes), recognised only by the ``service`` role of its *service token*
(``X-Service-Token``, validated by keystonemiddleware, which puts its
roles in the context's ``service_roles``) or, with noauth, of the
``X-Service-Roles`` header. A user token that carries a role named
``service`` is an ordinary user: the ``service`` persona never looks at
the user token's roles (as in Cinder).

A service token grants no rights of its own (as in Cinder): the user token
must pass every rule on its own, as a member (or reader) of the project.
The service persona only *marks* a call as coming from a service: it lifts
the 409 on deleting a connected attachment
(:func:`cinder_ma.volume.attachments.delete_attachment`), lets the caller
see the hosts of attachments, and is required, *beside* the user token's
membership, by the few actions only a service may ask for (fencing,
promotion, the completion of an online extend).
"""

from oslo_policy import policy

RULE_ADMIN_API = 'rule:admin_api'

ADMIN = 'role:admin'
SERVICE = 'service_roles:service'
PROJECT_MEMBER = 'role:member and project_id:%(project_id)s'
PROJECT_READER = 'role:reader and project_id:%(project_id)s'

#: A member of the owning project whose call comes through a service
#: (the user token passes as a member; the service token marks the call).
PROJECT_MEMBER_THROUGH_SERVICE = 'rule:project_member_api and rule:service_api'

ADMIN_OR_PROJECT_MEMBER_THROUGH_SERVICE = (
    'rule:context_is_admin or (' + PROJECT_MEMBER_THROUGH_SERVICE + ')')
PROJECT_MEMBER_OR_ADMIN = 'rule:context_is_admin or rule:project_member_api'
PROJECT_READER_OR_ADMIN = 'rule:context_is_admin or rule:project_reader_api'

rules = [
    policy.RuleDefault('context_is_admin', ADMIN,
                       description='Decides what an administrator is.'),
    policy.RuleDefault('admin_api', 'rule:context_is_admin',
                       description='Default rule for administrative APIs.'),
    policy.RuleDefault('service_api', SERVICE,
                       description='Decides what a service (such as a '
                                   'compute service) is: the service role '
                                   'of its service token (X-Service-Token), '
                                   'never a role of the user token. It '
                                   'marks a call as a service\'s and '
                                   'grants nothing by itself: the user '
                                   'token must pass the rules on its '
                                   'own.'),
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
