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

"""The service layer of snapshots: what it refuses before anything
changes (a backend without the capability, a manager too old, a frozen
backend), and what it records."""

import fixtures
from oslo_serialization import jsonutils

from cinder_ma import context
from cinder_ma.db import services as service_db
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma import exception
from cinder_ma.manager import rpcapi
from cinder_ma.volume import snapshots as snapshot_api
from tests.unit.api import base


class SnapshotServiceTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.member = context.RequestContext(
            user_id='fake-user', project_id=base.PROJECT,
            roles=['member', 'reader'])

    def _caps(self, **changes):
        caps = dict(base.BACKEND_CAPABILITIES, **changes)
        service_db.service_update(
            self.admin_context, self.service.id,
            {'capabilities': jsonutils.dumps(caps)})

    def test_create_records_and_casts(self):
        volume = self.create_volume()
        snapshot = snapshot_api.create_snapshot(self.member, volume.id,
                                                name='n')
        self.assertEqual(('creating', '0%', base.PROJECT),
                         (snapshot.status, snapshot.progress,
                          snapshot.project_id))
        self.snapshot_casts['create_snapshot'].assert_called_once_with(
            self.member, snapshot.id, volume.host)

    def test_a_backend_without_snapshots_refuses(self):
        self._caps(snapshots=False)
        volume = self.create_volume()
        exc = self.assertRaises(exception.InvalidVolume,
                                snapshot_api.create_snapshot, self.member,
                                volume.id)
        self.assertIn('capability snapshots', str(exc))
        self.assertEqual([], snapshot_db.snapshots_of_volume(
            self.admin_context, volume.id))

    def test_an_old_manager_refuses(self):
        self.useFixture(fixtures.MockPatchObject(
            rpcapi.ManagerAPI, 'can_send_version', return_value=False))
        volume = self.create_volume()
        self.assertRaises(exception.ServiceTooOld,
                          snapshot_api.create_snapshot, self.member,
                          volume.id)
        self.assertEqual([], snapshot_db.snapshots_of_volume(
            self.admin_context, volume.id))

    def test_update_snapshot_status_transitions(self):
        self.assertEqual(('deleting', 'error_deleting'),
                         snapshot_api.STATUS_MAP['deleting'])
        self.assertNotIn('available', snapshot_api.STATUS_MAP)
