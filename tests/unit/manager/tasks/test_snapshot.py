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

"""Tasks of snapshots and copies, on the file driver: volumes made from a
snapshot and from another volume hold its data at the new size, their
reverts leave nothing, a cascade deletes a volume's snapshots."""

import os

from taskflow.types import failure as tf_failure

from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.manager.tasks import snapshot as snapshot_tasks
from cinder_ma.volume.drivers import base as driver_base
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_create_snapshot as helpers
from tests.unit.manager.flows import test_create_volume


class SnapshotTasksTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.driver = test_create_volume.make_driver(self.conf)
        self.volumes = mgr_fixtures.VolumeFactory(self.context)

    def _volume(self, data=b'', status='available', size=1):
        volume = self.volumes.create(status=status, size=size)
        ref = self.volumes.ref(volume)
        self.driver.create_volume(ref)
        if data:
            with open(self._path(ref), 'r+b') as f:
                f.write(data)
        return volume, ref

    def _path(self, ref):
        return os.path.join(self.driver.volumes_dir, ref.name)

    def _read(self, ref, count=4):
        with open(self._path(ref), 'rb') as f:
            return f.read(count)

    def test_volume_from_snapshot_and_its_revert(self):
        volume, ref = self._volume(b'snap')
        snapshot = helpers.make_snapshot(self.context, volume)
        sref = helpers.snapshot_ref(snapshot, ref)
        snapshot_tasks.CreateSnapshotOnBackend(self.driver).execute(sref)
        new, _ = self._volume(status='creating', size=2)
        new_ref = driver_base.VolumeRef.for_volume(
            'aaaaaaaa-0000-4000-8000-000000000001', 2)
        task = snapshot_tasks.CreateVolumeFromSnapshot(self.driver)
        task.execute(new_ref, sref)
        self.assertEqual(b'snap', self._read(new_ref))
        self.assertEqual(2 * driver_base.GiB,
                         os.path.getsize(self._path(new_ref)))
        task.revert(new_ref, None)
        self.assertFalse(os.path.exists(self._path(new_ref)))
        # A failed create is not undone (nothing of it is ours).
        task.revert(new_ref, tf_failure.Failure.from_exception(
            ValueError('x')))

    def test_clone(self):
        _volume, ref = self._volume(b'orig')
        new_ref = driver_base.VolumeRef.for_volume(
            'aaaaaaaa-0000-4000-8000-000000000002', 1)
        task = snapshot_tasks.CloneVolume(self.driver)
        task.execute(new_ref, ref)
        self.assertEqual(b'orig', self._read(new_ref))
        task.revert(new_ref, None)
        self.assertFalse(os.path.exists(self._path(new_ref)))

    def test_cascade_deletes_the_snapshots_of_a_volume(self):
        volume, ref = self._volume()
        refs = []
        for _ in range(2):
            snapshot = helpers.make_snapshot(self.context, volume,
                                             status='deleting')
            refs.append(helpers.snapshot_ref(snapshot, ref))
            self.driver.create_snapshot(refs[-1])
        task = snapshot_tasks.DeleteSnapshotsOfVolume(self.driver)
        task.execute(self.context, volume.id, ref)
        self.assertEqual([], snapshot_db.snapshots_of_volume(self.context,
                                                             volume.id))
        for sref in refs:
            self.assertFalse(os.path.exists(self._path(sref)))
        # Again (a run after a crash): nothing left to do.
        task.execute(self.context, volume.id, ref)
