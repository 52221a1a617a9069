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

"""The data layer of snapshots on SQLite, PostgreSQL and MariaDB: the
records as read back, lists and their filters, and the race of snapshot
creates with a volume delete, where a volume never ends 'deleting' with a
live snapshot it was not asked to delete with (each create locks the
volume row, as the delete's compare-and-swap does)."""

import threading

from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from tests import base

THREADS = 8


class _SnapshotMixin:

    def setUp(self):
        super().setUp()
        vtype = type_db.volume_type_create(self.context, {'name': 't'})
        self.volume = volume_db.volume_create(self.context, {
            'project_id': 'p1', 'size': 2, 'status': 'available',
            'volume_type_id': vtype.id, 'host': 'h@b#p'})

    def _create(self, context=None, **values):
        row = {'project_id': 'p1', 'user_id': 'u',
               'volume_id': self.volume.id,
               'volume_type_id': self.volume.volume_type_id,
               'volume_size': 2, 'status': 'creating'}
        row.update(values)
        return snapshot_db.snapshot_create(context or self.context, row,
                                           ('available',))

    def test_records_and_lists(self):
        made = [self._create(name='s%d' % i, metadata={'i': str(i)})
                for i in range(3)]
        for snapshot in made:
            self.assertEqual(snapshot, snapshot_db.snapshot_get(
                self.context, snapshot.id))
        listed = snapshot_db.snapshot_get_all(
            self.context, 'p1', sort_keys=['name'], sort_dirs=['desc'],
            limit=2)
        self.assertEqual([made[2].id, made[1].id], [s.id for s in listed])
        self.assertEqual([made[1].id], [s.id for s in
                                        snapshot_db.snapshot_get_all(
                                            self.context, 'p1',
                                            {'metadata': {'i': '1'}})])
        self.assertEqual(3, snapshot_db.snapshot_count(
            self.context, 'p1', {'status': 'creating'}))
        self.assertEqual(made[-1].id, snapshot_db.latest_snapshot(
            self.context, self.volume.id).id)
        self.assertEqual((3, 6), snapshot_db.snapshot_usage_on_host(
            self.context, 'h'))
        self.assertEqual((0, 0), snapshot_db.snapshot_usage_on_host(
            self.context, 'other'))
        self.assertEqual((3, 6), snapshot_db.snapshot_usage_of_project(
            self.context, 'p1'))

    def test_creates_race_a_delete(self):
        barrier = threading.Barrier(THREADS)
        results = [None] * THREADS

        def run(index):
            context = self.context.elevated()
            barrier.wait()
            try:
                if index == 0:
                    results[index] = snapshot_db.volume_delete_begin_checked(
                        context, self.volume.id, {'status': 'deleting'},
                        {'status': ('available',), 'attach_count': 0})
                else:
                    results[index] = self._create(context)
            except exception.CinderMAException as exc:
                results[index] = exc

        threads = [threading.Thread(target=run, args=(i,))
                   for i in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        status = volume_db.volume_get(self.context, self.volume.id).status
        live = snapshot_db.snapshots_of_volume(self.context, self.volume.id)
        if results[0] is True:
            self.assertEqual(('deleting', []), (status, live))
            self.assertTrue(all(isinstance(r, exception.InvalidVolume)
                                for r in results[1:]), results)
        else:
            self.assertEqual('available', status)
            self.assertEqual(THREADS - 1, len(live))


class SQLiteSnapshotTestCase(_SnapshotMixin, base.DBTestCase):
    DATABASE = 'sqlite'


class PostgreSQLSnapshotTestCase(_SnapshotMixin, base.DBTestCase):
    DATABASE = 'postgresql'


class MySQLSnapshotTestCase(_SnapshotMixin, base.DBTestCase):
    DATABASE = 'mysql'
