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

"""Snapshot policies: Cinder's names, and who passes them."""

from cinder_ma import context
from cinder_ma.policies import snapshots
from cinder_ma import policy
from tests import base


def _context(roles, service_roles=None):
    return context.RequestContext(user_id='u', project_id='p',
                                  roles=list(roles),
                                  service_roles=service_roles or [])


class SnapshotPoliciesTestCase(base.TestCase):

    def _allowed(self, name, roles, service_roles=None):
        return bool(policy.authorize(_context(roles, service_roles), name,
                                     {'project_id': 'p'}, do_raise=False))

    def test_cinder_names(self):
        self.assertEqual(
            {'volume:get_snapshot', 'volume:get_all_snapshots',
             'volume:create_snapshot', 'volume:update_snapshot',
             'volume:delete_snapshot',
             'volume_extension:extended_snapshot_attributes',
             'volume:get_snapshot_metadata',
             'volume:update_snapshot_metadata',
             'volume:delete_snapshot_metadata',
             'volume_extension:snapshot_admin_actions:reset_status',
             'volume_extension:snapshot_admin_actions:force_delete',
             'snapshot_extension:snapshot_actions:update_snapshot_status',
             'volume:revert_to_snapshot'},
            {rule.name for rule in snapshots.list_rules()})

    def test_personas(self):
        for name, reader, member, admin in (
                (snapshots.GET, True, True, True),
                (snapshots.CREATE, False, True, True),
                (snapshots.RESET_STATUS, False, False, True),
                (snapshots.UPDATE_STATUS, False, False, True)):
            self.assertEqual(reader, self._allowed(name, ['reader']), name)
            self.assertEqual(member, self._allowed(name, ['member']), name)
            self.assertEqual(admin, self._allowed(name, ['admin']), name)
        self.assertTrue(self._allowed(snapshots.UPDATE_STATUS, ['member'],
                                      ['service']))
