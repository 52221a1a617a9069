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

"""Policy rules of volume types and their extra specs."""

from oslo_policy import policy

from cinder_ma.policies import base

BASE_PATH = '/v3/{project_id}/types'

#: Extra specs every caller who may read extra specs sees (Cinder's list);
#: the others (volume_backend_name, capabilities...) describe the
#: deployment and need EXTRA_SPECS_READ_SENSITIVE.
USER_VISIBLE_EXTRA_SPECS = (
    'RESKEY:availability_zones',
    'multiattach',
    'replication_enabled',
)
#: Extra specs of cinder_ma's multiattach extension ("multiattach:..."):
#: how a shareable volume of the type behaves, user visible too.
USER_VISIBLE_EXTRA_SPEC_PREFIX = 'multiattach:'

MANAGE = 'volume_extension:types_manage'
GET = 'volume_extension:type_get'
GET_ALL = 'volume_extension:type_get_all'
EXTRA_SPECS_MANAGE = 'volume_extension:types_extra_specs:manage'
EXTRA_SPECS_READ = 'volume_extension:types_extra_specs:read'
EXTRA_SPECS_READ_SENSITIVE = (
    'volume_extension:types_extra_specs:read_sensitive')
ACCESS_LIST = 'volume_extension:volume_type_access'
ACCESS_ADD = 'volume_extension:volume_type_access:addProjectAccess'
ACCESS_REMOVE = 'volume_extension:volume_type_access:removeProjectAccess'
ENCRYPTION_CREATE = 'volume_extension:volume_type_encryption:create'
ENCRYPTION_GET = 'volume_extension:volume_type_encryption:get'
ENCRYPTION_UPDATE = 'volume_extension:volume_type_encryption:update'
ENCRYPTION_DELETE = 'volume_extension:volume_type_encryption:delete'

rules = [
    policy.DocumentedRuleDefault(
        name=MANAGE, check_str=base.RULE_ADMIN_API,
        description='Create, update and delete volume types.',
        operations=[{'method': 'POST', 'path': BASE_PATH},
                    {'method': 'PUT', 'path': BASE_PATH + '/{type_id}'},
                    {'method': 'DELETE', 'path': BASE_PATH + '/{type_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show a volume type: readers of the caller\'s '
                    'project, as Cinder\'s defaults.',
        operations=[{'method': 'GET', 'path': BASE_PATH + '/{type_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=GET_ALL, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List volume types: readers of the caller\'s '
                    'project, as Cinder\'s defaults.',
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
        name=EXTRA_SPECS_READ, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show and list extra specs of a volume type (and see '
                    'them in type responses): the user-visible ones '
                    '(multiattach, replication_enabled, '
                    'RESKEY:availability_zones and the multiattach:... '
                    'specs of the multiattach extension), and all of them '
                    'with ' + EXTRA_SPECS_READ_SENSITIVE + '.',
        operations=[
            {'method': 'GET', 'path': BASE_PATH + '/{type_id}/extra_specs'},
            {'method': 'GET',
             'path': BASE_PATH + '/{type_id}/extra_specs/{key}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=EXTRA_SPECS_READ_SENSITIVE, check_str=base.RULE_ADMIN_API,
        description='See (and filter types by) the extra specs that are '
                    'not user visible, such as volume_backend_name, which '
                    'describe the deployment, wherever extra specs are '
                    'shown; whether they are shown at all is decided by '
                    'the other rules.',
        operations=[
            {'method': 'GET', 'path': BASE_PATH},
            {'method': 'GET', 'path': BASE_PATH + '/{type_id}'},
            {'method': 'GET', 'path': BASE_PATH + '/{type_id}/extra_specs'},
            {'method': 'GET',
             'path': BASE_PATH + '/{type_id}/extra_specs/{key}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ACCESS_LIST, check_str=base.RULE_ADMIN_API,
        description='List the projects that may use a private volume '
                    'type.',
        operations=[{'method': 'GET',
                     'path': BASE_PATH + '/{type_id}/os-volume-type-access'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ACCESS_ADD, check_str=base.RULE_ADMIN_API,
        description='Let a project use a private volume type.',
        operations=[{'method': 'POST',
                     'path': BASE_PATH + '/{type_id}/action'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ACCESS_REMOVE, check_str=base.RULE_ADMIN_API,
        description='Take a private volume type away from a project.',
        operations=[{'method': 'POST',
                     'path': BASE_PATH + '/{type_id}/action'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ENCRYPTION_CREATE, check_str=base.RULE_ADMIN_API,
        description='Make a volume type encrypted.',
        operations=[{'method': 'POST',
                     'path': BASE_PATH + '/{type_id}/encryption'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ENCRYPTION_GET, check_str=base.RULE_ADMIN_API,
        description='Show the encryption of a volume type.',
        operations=[{'method': 'GET',
                     'path': BASE_PATH + '/{type_id}/encryption'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ENCRYPTION_UPDATE, check_str=base.RULE_ADMIN_API,
        description='Change the encryption of a volume type.',
        operations=[{'method': 'PUT',
                     'path': BASE_PATH + '/{type_id}/encryption/{id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ENCRYPTION_DELETE, check_str=base.RULE_ADMIN_API,
        description='Remove the encryption of a volume type that no volume '
                    'uses.',
        operations=[{'method': 'DELETE',
                     'path': BASE_PATH + '/{type_id}/encryption/{id}'}],
        scope_types=['project']),
]


def list_rules():
    return rules
