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

"""Snapshot actions: os-reset_status and os-force_delete (admins),
os-update_snapshot_status (a service) with Cinder's transitions."""

from cinder_ma.db import snapshots as snapshot_db
from tests.unit.api import base
from tests.unit.manager.flows import test_create_snapshot as helpers


class SnapshotActionsTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.snapshot = helpers.make_snapshot(
            self.admin_context, self.create_volume(), status='creating')
        self.path = self.url('snapshots/%s/action' % self.snapshot.id)

    def _status(self):
        return snapshot_db.snapshot_get(self.admin_context,
                                        self.snapshot.id).status

    def test_reset_status(self):
        self.app.post_json(self.path, {'os-reset_status': {
            'status': 'error'}}, headers=base.ADMIN, status=202)
        self.assertEqual('error', self._status())
        response = self.app.post_json(self.path, {'os-reset_status': {
            'status': 'bogus'}}, headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest', 'status must be one')
        self.app.post_json(self.path, {'os-reset_status': {
            'status': 'available'}}, headers=base.MEMBER, status=403)

    def test_force_delete(self):
        self.app.post_json(self.path, {'os-force_delete': {}},
                           headers=base.ADMIN, status=202)
        self.assertEqual('deleting', self._status())
        self.assertEqual(1, self.snapshot_casts['delete_snapshot']
                         .call_count)

    def test_update_snapshot_status(self):
        body = {'os-update_snapshot_status': {'status': 'available',
                                              'progress': '90%'}}
        self.app.post_json(self.path, body, headers=base.MEMBER,
                           status=403)
        self.app.post_json(self.path, body, headers=base.SERVICE,
                           status=202)
        got = snapshot_db.snapshot_get(self.admin_context, self.snapshot.id)
        self.assertEqual(('available', '90%'), (got.status, got.progress))
        response = self.app.post_json(self.path, body, headers=base.ADMIN,
                                      status=400)
        self.assertFault(response, 400, 'badRequest',
                         'Snapshot status available not allowed')
