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

"""The snapshot endpoints of the manager (1.7) on the file backend, over
the in-process RPC transport."""

import os

from cinder_ma.db import snapshots as snapshot_db
from cinder_ma import exception
from tests.unit.manager.flows import test_create_snapshot as snapshot_helpers
from tests.unit.manager.test_manager import ManagerBase


class SnapshotEndpointsTestCase(ManagerBase):
    """1.7: snapshots, volumes made from them and from other volumes,
    revert, on the file backend."""

    def setUp(self):
        super().setUp()
        self.client = self.client.prepare(version='1.7')
        self.volume = self.volumes.create(size=1)
        self.client.call(self.context, 'create_volume',
                         volume_id=self.volume.id)
        with open(self._path(self.volume), 'r+b') as f:
            f.write(b'one!')

    def _snapshot(self):
        snapshot = snapshot_helpers.make_snapshot(
            self.context, self._get(self.volume))
        self.client.call(self.context, 'create_snapshot',
                         snapshot_id=snapshot.id)
        return snapshot_db.snapshot_get(self.context, snapshot.id)

    def _read(self, volume):
        with open(self._path(volume), 'rb') as f:
            return f.read(4)

    def test_snapshot_copy_revert_delete(self):
        snapshot = self._snapshot()
        self.assertEqual(('available', None),
                         (snapshot.status, snapshot.claimed_by))
        # A volume from the snapshot, then a clone of the volume.
        made = self.volumes.create(size=2, snapshot_id=snapshot.id)
        self.client.call(self.context, 'create_volume', volume_id=made.id)
        self.assertEqual('available', self._get(made).status)
        self.assertEqual(b'one!', self._read(made))
        clone = self.volumes.create(size=1, source_volid=self.volume.id)
        self.client.call(self.context, 'create_volume', volume_id=clone.id)
        self.assertEqual(b'one!', self._read(clone))
        # Revert.
        with open(self._path(self.volume), 'r+b') as f:
            f.write(b'two!')
        snapshot_db.revert_begin(self.context, self.volume.id, snapshot.id)
        self.client.call(self.context, 'revert_to_snapshot',
                         volume_id=self.volume.id, snapshot_id=snapshot.id)
        self.assertEqual(b'one!', self._read(self.volume))
        self.assertEqual(('available', None),
                         (self._get(self.volume).status,
                          self._get(self.volume).claimed_by))
        # Delete.
        snapshot_db.snapshot_change(self.context, snapshot.id,
                                    {'status': 'deleting'})
        self.client.call(self.context, 'delete_snapshot',
                         snapshot_id=snapshot.id)
        self.assertRaises(exception.SnapshotNotFound,
                          snapshot_db.snapshot_get, self.context,
                          snapshot.id)
        self.assertFalse(os.path.exists(os.path.join(
            self.driver.volumes_dir, 'snapshot-' + snapshot.id)))

    def test_cascade_delete(self):
        snapshot = self._snapshot()
        self.assertTrue(snapshot_db.volume_delete_begin_checked(
            self.context, self.volume.id, {'status': 'deleting'},
            {'status': ('available',)}, cascade=True))
        self.client.call(self.context, 'delete_volume',
                         volume_id=self.volume.id)
        self.assertRaises(exception.VolumeNotFound, self._get, self.volume)
        self.assertRaises(exception.SnapshotNotFound,
                          snapshot_db.snapshot_get, self.context,
                          snapshot.id)

    def test_snapshot_of_another_backend_is_recorded_error(self):
        other = self.volumes.create(status='available',
                                    host='otherhost@file#file')
        snapshot = snapshot_helpers.make_snapshot(self.context, other)
        self.assertRaises(exception.InvalidVolume, self.client.call,
                          self.context, 'create_snapshot',
                          snapshot_id=snapshot.id)
        self.assertEqual('error', snapshot_db.snapshot_get(
            self.context, snapshot.id).status)

    def test_a_volume_whose_source_is_gone_is_error(self):
        made = self.volumes.create(size=1,
                                   snapshot_id=self.volume.id)  # no such
        self.assertRaises(exception.SnapshotNotFound, self.client.call,
                          self.context, 'create_volume', volume_id=made.id)
        got = self._get(made)
        self.assertEqual('error', got.status)
        self.assertIn('its source is gone', got.error_reason)
