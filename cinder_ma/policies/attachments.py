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

"""Policy rules of volume attachments.

Attachments are made by project members, directly or through a service (a
compute service attaching volumes to its instances, sending its service
token beside the member's token). The service token grants nothing: the
user token must be a member's (a reader's to read). Deleting an attachment
that is connected to an instance is kept for calls that come through a
service (see cinder_ma.volume.attachments.delete_attachment); an
administrator uses os-force_detach instead.
"""

from oslo_policy import policy

from cinder_ma.policies import base

BASE_PATH = '/v3/{project_id}/attachments'

CREATE = 'volume:attachment_create'
UPDATE = 'volume:attachment_update'
COMPLETE = 'volume:attachment_complete'
DELETE = 'volume:attachment_delete'
SHOW = 'volume:attachment_show'
LIST = 'volume:attachment_get_all'
MULTIATTACH_BOOTABLE = 'volume:multiattach_bootable_volume'
FORCE_DETACH = 'volume_extension:volume_admin_actions:force_detach'
ATTACH_TO_HOST = 'volume:attach_to_host'
FENCE = 'volume:attachment_fence'
PROMOTE = 'volume:attachment_promote'

rules = [
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Reserve an attachment of a volume for an instance.',
        operations=[{'method': 'POST', 'path': BASE_PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Give an attachment the connector of a host; the '
                    'backend initializes the connection and the response '
                    'carries its connection_info.',
        operations=[{'method': 'PUT',
                     'path': BASE_PATH + '/{attachment_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=COMPLETE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Mark an attachment attached (os-complete).',
        operations=[{'method': 'POST',
                     'path': BASE_PATH + '/{attachment_id}/action'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Delete an attachment: the backend terminates its '
                    'connection. An attachment connected to an instance '
                    'can only be deleted through a service (a service token '
                    'beside the member\'s token); others get 409.',
        operations=[{'method': 'DELETE',
                     'path': BASE_PATH + '/{attachment_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show an attachment.',
        operations=[{'method': 'GET',
                     'path': BASE_PATH + '/{attachment_id}'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=LIST, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List attachments, or list them with details.',
        operations=[{'method': 'GET', 'path': BASE_PATH},
                    {'method': 'GET', 'path': BASE_PATH + '/detail'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=MULTIATTACH_BOOTABLE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Attach a bootable shareable (multiattach) volume to '
                    'more than one instance. Project members may, as in '
                    'Cinder.',
        operations=[{'method': 'POST', 'path': BASE_PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FORCE_DETACH, check_str=base.RULE_ADMIN_API,
        description='Detach an attachment whose consumer is gone '
                    '(os-force_detach): terminates the connection and '
                    'deletes the attachment whoever made it.',
        operations=[{'method': 'POST',
                     'path': '/v3/{project_id}/volumes/{volume_id}/action'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=ATTACH_TO_HOST, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Attach a volume to an instance on a host run by a '
                    'cinder_ma manager, or detach it, with the attach and '
                    'detach flows of that manager.',
        operations=[{'method': 'POST', 'path': BASE_PATH}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=FENCE,
        check_str=base.ADMIN_OR_PROJECT_MEMBER_THROUGH_SERVICE,
        description='Fence an attachment (cinder-ma-fencing:fence): '
                    'revoke its access at the storage target at once; it '
                    'stays fenced until its consumer connects it again '
                    'with a new connector or it is deleted. An '
                    'administrator, or a member of the volume\'s project '
                    'through a service (a cluster manager, a compute '
                    'service: its service token beside the member\'s '
                    'token).',
        operations=[{'method': 'POST',
                     'path': BASE_PATH + '/{attachment_id}/action'}],
        scope_types=['project']),
    policy.DocumentedRuleDefault(
        name=PROMOTE,
        check_str=base.ADMIN_OR_PROJECT_MEMBER_THROUGH_SERVICE,
        description='Promote a read-only attachment of a one-writer '
                    'volume to the writer (cinder-ma-fencing:promote): '
                    'the current writer is fenced and made read-only. An '
                    'administrator, or a member of the volume\'s project '
                    'through a service.',
        operations=[{'method': 'POST',
                     'path': BASE_PATH + '/{attachment_id}/action'}],
        scope_types=['project']),
]


def list_rules():
    return rules
