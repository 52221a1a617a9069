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

"""Policy rules of snapshots, their metadata and actions: Cinder's names
(``cinder/policies/snapshots.py``, ``snapshot_metadata.py``,
``snapshot_actions.py``) and defaults, so that a policy file written for
Cinder keeps its meaning; the revert of a volume (3.40) is Cinder's
``volume:revert_to_snapshot``.

One departure: ``os-update_snapshot_status`` is how a compute service
reports the progress of a snapshot it takes itself (Nova's assisted
snapshots): Cinder lets any member of the project set a snapshot's
status with it; here it takes a service (the service token of a member's
call) or an administrator.
"""

from oslo_policy import policy

from cinder_ma.policies import base

BASE_PATH = '/v3/{project_id}/snapshots'

GET = 'volume:get_snapshot'
GET_ALL = 'volume:get_all_snapshots'
CREATE = 'volume:create_snapshot'
UPDATE = 'volume:update_snapshot'
DELETE = 'volume:delete_snapshot'
EXTEND_ATTRIBUTE = 'volume_extension:extended_snapshot_attributes'
GET_METADATA = 'volume:get_snapshot_metadata'
UPDATE_METADATA = 'volume:update_snapshot_metadata'
DELETE_METADATA = 'volume:delete_snapshot_metadata'
RESET_STATUS = 'volume_extension:snapshot_admin_actions:reset_status'
FORCE_DELETE = 'volume_extension:snapshot_admin_actions:force_delete'
UPDATE_STATUS = 'snapshot_extension:snapshot_actions:update_snapshot_status'
REVERT = 'volume:revert_to_snapshot'


def _rule(name, check_str, description, *operations):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': method, 'path': BASE_PATH + path}
                    for method, path in operations],
        scope_types=['project'])


rules = [
    _rule(GET_ALL, base.PROJECT_READER_OR_ADMIN, 'List snapshots.',
          ('GET', ''), ('GET', '/detail')),
    _rule(EXTEND_ATTRIBUTE, base.PROJECT_READER_OR_ADMIN,
          'List or show snapshots with extended attributes '
          '(os-extended-snapshot-attributes:project_id and :progress).',
          ('GET', '/{snapshot_id}'), ('GET', '/detail')),
    _rule(CREATE, base.PROJECT_MEMBER_OR_ADMIN, 'Create a snapshot.',
          ('POST', '')),
    _rule(GET, base.PROJECT_READER_OR_ADMIN, 'Show a snapshot.',
          ('GET', '/{snapshot_id}')),
    _rule(UPDATE, base.PROJECT_MEMBER_OR_ADMIN, 'Update a snapshot.',
          ('PUT', '/{snapshot_id}')),
    _rule(DELETE, base.PROJECT_MEMBER_OR_ADMIN, 'Delete a snapshot.',
          ('DELETE', '/{snapshot_id}')),
    _rule(GET_METADATA, base.PROJECT_READER_OR_ADMIN,
          "Show a snapshot's metadata or one of its keys.",
          ('GET', '/{snapshot_id}/metadata'),
          ('GET', '/{snapshot_id}/metadata/{key}')),
    _rule(UPDATE_METADATA, base.PROJECT_MEMBER_OR_ADMIN,
          "Update a snapshot's metadata or one of its keys.",
          ('POST', '/{snapshot_id}/metadata'),
          ('PUT', '/{snapshot_id}/metadata'),
          ('PUT', '/{snapshot_id}/metadata/{key}')),
    _rule(DELETE_METADATA, base.PROJECT_MEMBER_OR_ADMIN,
          "Delete a key of a snapshot's metadata.",
          ('DELETE', '/{snapshot_id}/metadata/{key}')),
    _rule(RESET_STATUS, base.RULE_ADMIN_API, 'Reset the status of a '
          'snapshot.', ('POST', '/{snapshot_id}/action (os-reset_status)')),
    _rule(UPDATE_STATUS, base.ADMIN_OR_PROJECT_MEMBER_THROUGH_SERVICE,
          "Update the status and progress of a snapshot a compute service "
          "takes (a service token with a member's token, or an "
          "administrator).",
          ('POST', '/{snapshot_id}/action (os-update_snapshot_status)')),
    _rule(FORCE_DELETE, base.RULE_ADMIN_API, 'Force delete a snapshot.',
          ('POST', '/{snapshot_id}/action (os-force_delete)')),
    policy.DocumentedRuleDefault(
        name=REVERT, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Revert a volume to its latest snapshot.',
        operations=[{'method': 'POST',
                     'path': '/v3/{project_id}/volumes/{volume_id}/action '
                             '(revert)'}],
        scope_types=['project']),
]


def list_rules():
    return rules
