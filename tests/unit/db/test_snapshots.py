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

"""The data layer of snapshots: records, the volume check in the
transaction of the insert, lists, compare-and-swap changes, the delete of
a volume with or without its snapshots, and revert's two rows."""

from cinder_ma.db import quotas as quota_db
from cinder_ma.db import records
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures


class SnapshotDBTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.volumes = mgr_fixtures.VolumeFactory(self.context)
        self.volume = self.volumes.create(status='available', size=2)

    def _create(self, status='available', statuses=('available',),
                **values):
        row = {'project_id': 'p1', 'user_id': 'u',
               'volume_id': self.volume.id,
               'volume_type_id': self.volume.volume_type_id,
               'volume_size': self.volume.size, 'status': status}
        row.update(values)
        return snapshot_db.snapshot_create(self.context, row, statuses)

    def test_create_and_get(self):
        snapshot = self._create(name='n', metadata={'k': 'v'})
        self.assertIsInstance(snapshot, records.Snapshot)
        self.assertEqual(('n', {'k': 'v'}, 2),
                         (snapshot.name, snapshot.metadata,
                          snapshot.volume_size))
        self.assertEqual(snapshot, snapshot_db.snapshot_get(
            self.context, snapshot.id))
        self.assertRaises(exception.SnapshotNotFound,
                          snapshot_db.snapshot_get, self.context,
                          snapshot.id, project_id='other')

    def test_create_checks_the_volume_status(self):
        volume_db.volume_change(self.context, self.volume.id,
                                {'status': 'deleting'})
        exc = self.assertRaises(exception.InvalidVolume, self._create)
        self.assertIn('current status is: deleting', str(exc))
        self.assertEqual([], snapshot_db.snapshots_of_volume(
            self.context, self.volume.id))

    def test_list_filters_and_pages(self):
        made = [self._create(name='s%d' % i, metadata={'i': str(i)})
                for i in range(3)]
        listed = snapshot_db.snapshot_get_all(self.context, 'p1',
                                              sort_keys=['name'],
                                              sort_dirs=['asc'])
        self.assertEqual([s.id for s in made], [s.id for s in listed])
        page = snapshot_db.snapshot_get_all(self.context, 'p1',
                                            marker=made[0].id, limit=1,
                                            sort_keys=['name'],
                                            sort_dirs=['asc'])
        self.assertEqual([made[1].id], [s.id for s in page])
        self.assertEqual([made[2].id], [s.id for s in
                                        snapshot_db.snapshot_get_all(
                                            self.context, 'p1',
                                            {'metadata': {'i': '2'}})])
        self.assertEqual(3, snapshot_db.snapshot_count(self.context, 'p1'))
        self.assertEqual(0, snapshot_db.snapshot_count(self.context, 'p2'))
        self.assertEqual(made[-1].id, snapshot_db.latest_snapshot(
            self.context, self.volume.id).id)

    def test_change_is_a_compare_and_swap(self):
        snapshot = self._create()
        self.assertRaises(exception.Conflict, snapshot_db.snapshot_change,
                          self.context, snapshot.id, {'status': 'deleting'},
                          expected={'status': 'error'})
        got = snapshot_db.snapshot_update(self.context, snapshot.id,
                                          {'status': 'deleting'},
                                          expected={'status': 'available'},
                                          metadata={'a': 'b'})
        self.assertEqual(('deleting', {'a': 'b'}),
                         (got.status, got.metadata))

    def test_destroy_gives_the_quota_back(self):
        quota_db.ensure_usages(self.context, 'p1', ['snapshots',
                                                    'gigabytes'])
        snapshot = self._create()
        usage = quota_db.usage_get_all(self.context, 'p1')
        quota_db.retrying(self.context, snapshot_db.snapshot_destroy,
                          self.context, snapshot.id,
                          quota=quota_db.release_snapshot)
        after = quota_db.usage_get_all(self.context, 'p1')
        self.assertEqual(usage['snapshots'] - 1, after['snapshots'])
        self.assertEqual(usage['gigabytes'] - 2, after['gigabytes'])
        self.assertRaises(exception.SnapshotNotFound,
                          snapshot_db.snapshot_destroy, self.context,
                          snapshot.id)

    def test_volume_delete_with_and_without_cascade(self):
        snapshot = self._create()
        values = {'status': 'deleting'}
        expected = {'status': ('available',), 'attach_count': 0}
        self.assertFalse(snapshot_db.volume_delete_begin_checked(
            self.context, self.volume.id, values, expected))
        snapshot_db.snapshot_change(self.context, snapshot.id,
                                    {'status': 'creating'})
        self.assertFalse(snapshot_db.volume_delete_begin_checked(
            self.context, self.volume.id, values, expected, cascade=True,
            snapshot_statuses=('available', 'error')))
        self.assertEqual('available', volume_db.volume_get(
            self.context, self.volume.id).status)
        snapshot_db.snapshot_change(self.context, snapshot.id,
                                    {'status': 'available'})
        self.assertTrue(snapshot_db.volume_delete_begin_checked(
            self.context, self.volume.id, values, expected, cascade=True,
            snapshot_statuses=('available', 'error')))
        self.assertEqual('deleting', snapshot_db.snapshot_get(
            self.context, snapshot.id).status)

    def test_revert_begin_and_end(self):
        snapshot = self._create()
        volume_db.volume_change(self.context, self.volume.id,
                                {'attach_count': 1, 'status': 'in-use'})
        self.assertRaises(exception.InvalidVolume, snapshot_db.revert_begin,
                          self.context, self.volume.id, snapshot.id)
        volume_db.volume_change(self.context, self.volume.id,
                                {'attach_count': 0, 'status': 'available'})
        snapshot_db.snapshot_change(self.context, snapshot.id,
                                    {'status': 'error'})
        self.assertRaises(exception.InvalidSnapshot,
                          snapshot_db.revert_begin, self.context,
                          self.volume.id, snapshot.id)
        # Refused: nothing changed (the volume's move was rolled back).
        self.assertEqual('available', volume_db.volume_get(
            self.context, self.volume.id).status)
        snapshot_db.snapshot_change(self.context, snapshot.id,
                                    {'status': 'available'})
        snapshot_db.revert_begin(self.context, self.volume.id, snapshot.id)
        self.assertEqual('reverting', volume_db.volume_get(
            self.context, self.volume.id).status)
        snapshot_db.revert_end(self.context, self.volume.id, snapshot.id,
                               'available')
        self.assertEqual('available', snapshot_db.snapshot_get(
            self.context, snapshot.id).status)

    def test_volumes_made_from_and_copying(self):
        snapshot = self._create()
        made = self.volumes.create(status='creating',
                                   snapshot_id=snapshot.id,
                                   source_volid=None)
        clone = self.volumes.create(status='creating',
                                    source_volid=self.volume.id)
        self.assertEqual([made.id], snapshot_db.volumes_made_from(
            self.context, snapshot.id))
        self.assertEqual([clone.id], snapshot_db.volumes_copying(
            self.context, self.volume.id))
