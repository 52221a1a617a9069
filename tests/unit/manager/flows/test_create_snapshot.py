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

"""The snapshot create flow on the file driver: contract, success, and a
failure injected at every step leaves the snapshot 'error' with no
storage."""

import os

import fixtures

from cinder_ma.db import snapshots as snapshot_db
from cinder_ma import exception
from cinder_ma.manager import flows
from cinder_ma.manager.flows import create_snapshot
from cinder_ma.manager.tasks import lifecycle
from cinder_ma.volume.drivers import base as driver_base
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_create_volume


def make_snapshot(context, volume, status='creating'):
    """A snapshot row of volume, as the API records it."""
    return snapshot_db.snapshot_create(context, {
        'project_id': volume.project_id, 'user_id': volume.user_id,
        'volume_id': volume.id, 'volume_type_id': volume.volume_type_id,
        'volume_size': volume.size, 'status': status},
        (volume.status,))


def snapshot_ref(snapshot, volume_ref):
    return driver_base.SnapshotRef.for_snapshot(snapshot.id, volume_ref,
                                                snapshot.volume_size)


class CreateSnapshotFlowTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.driver = test_create_volume.make_driver(self.conf)
        self.volumes = mgr_fixtures.VolumeFactory(self.context)

    def _snapshot(self):
        volume = self.volumes.create(status='available', size=1)
        ref = self.volumes.ref(volume)
        self.driver.create_volume(ref)
        with open(os.path.join(self.driver.volumes_dir, ref.name),
                  'r+b') as f:
            f.write(b'data')
        snapshot = make_snapshot(self.context, volume)
        sref = snapshot_ref(snapshot, ref)
        path = os.path.join(self.driver.volumes_dir, sref.name)
        store = {'context': self.context, 'snapshot_id': snapshot.id,
                 'snapshot': sref}
        return snapshot, path, store

    def test_contract(self):
        flow = create_snapshot.get_flow(self.driver)
        self.assertEqual('create_snapshot', flow.name)
        self.assertEqual({'context', 'snapshot_id', 'snapshot'},
                         flow.requires)
        self.assertEqual({'paused'}, flow.provides)
        self.assertIsInstance(next(iter(flow)),
                              lifecycle.SnapshotToErrorOnRevert)

    def test_success(self):
        snapshot, path, store = self._snapshot()
        results = flows.run(create_snapshot.get_flow, store, self.driver)
        self.assertIsNone(results['paused'])
        got = snapshot_db.snapshot_get(self.context, snapshot.id)
        self.assertEqual(('available', '100%'), (got.status, got.progress))
        with open(path, 'rb') as f:
            self.assertEqual(b'data', f.read(4))
        self.assertEqual(driver_base.GiB, os.path.getsize(path))

    def test_failure_at_every_step(self):
        size = len(create_snapshot.get_flow(self.driver))
        for index in range(size):
            snapshot, path, store = self._snapshot()
            flow = create_snapshot.get_flow(self.driver)
            atom = list(flow)[index]
            reason = 'injected in %s' % atom.name
            self.useFixture(fixtures.MockPatchObject(
                atom, 'execute',
                side_effect=exception.DriverError(reason=reason)))
            self.assertRaises(exception.DriverError, flows.run_once, flow,
                              store)
            got = snapshot_db.snapshot_get(self.context, snapshot.id)
            self.assertEqual('error', got.status)
            self.assertIn(reason, got.error_reason)
            self.assertFalse(os.path.exists(path), atom.name)
