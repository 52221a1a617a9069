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

"""The revert flow: the volume's data is the snapshot's again, both end
available; a failure leaves the volume 'error' and the snapshot
'available'."""

import os

import fixtures

from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager import flows
from cinder_ma.manager.flows import revert_volume
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_create_snapshot as helpers
from tests.unit.manager.flows import test_create_volume


class RevertVolumeFlowTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.driver = test_create_volume.make_driver(self.conf)
        self.volumes = mgr_fixtures.VolumeFactory(self.context)

    def _reverting(self):
        volume = self.volumes.create(status='available', size=1)
        ref = self.volumes.ref(volume)
        self.driver.create_volume(ref)
        path = os.path.join(self.driver.volumes_dir, ref.name)
        with open(path, 'r+b') as f:
            f.write(b'old!')
        snapshot = helpers.make_snapshot(self.context, volume,
                                         status='available')
        sref = helpers.snapshot_ref(snapshot, ref)
        self.driver.create_snapshot(sref)
        with open(path, 'r+b') as f:
            f.write(b'new!')
        snapshot_db.revert_begin(self.context, volume.id, snapshot.id)
        return volume, snapshot, path, {
            'context': self.context, 'volume_id': volume.id,
            'volume': ref, 'snapshot_id': snapshot.id, 'snapshot': sref}

    def test_contract(self):
        flow = revert_volume.get_flow(self.driver)
        self.assertEqual({'context', 'volume_id', 'volume', 'snapshot_id',
                          'snapshot'}, flow.requires)

    def test_success(self):
        volume, snapshot, path, store = self._reverting()
        flows.run(revert_volume.get_flow, store, self.driver)
        with open(path, 'rb') as f:
            self.assertEqual(b'old!', f.read(4))
        self.assertEqual('available', volume_db.volume_get(
            self.context, volume.id).status)
        self.assertEqual('available', snapshot_db.snapshot_get(
            self.context, snapshot.id).status)

    def test_failure_at_every_step(self):
        for index in range(len(revert_volume.get_flow(self.driver))):
            volume, snapshot, path, store = self._reverting()
            flow = revert_volume.get_flow(self.driver)
            atom = list(flow)[index]
            self.useFixture(fixtures.MockPatchObject(
                atom, 'execute',
                side_effect=exception.DriverError(reason='injected')))
            self.assertRaises(exception.DriverError, flows.run_once, flow,
                              store)
            got = volume_db.volume_get(self.context, volume.id)
            self.assertEqual('error', got.status)
            self.assertIn('injected', got.error_reason)
            self.assertEqual('available', snapshot_db.snapshot_get(
                self.context, snapshot.id).status)
