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

"""Tests of cinder_ma.db.transfers on the SQLite file database (and, by
tests/functional/db/test_transfers.py, on PostgreSQL and MariaDB)."""

import threading

import sqlalchemy as sa

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import models
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import transfers as transfer_db
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from tests import base


class TransferDBMixin:

    def setUp(self):
        super().setUp()
        self.vtype = type_db.volume_type_create(self.admin_context,
                                                {'name': 'plain'})

    def _volume(self, project='p1', status='available'):
        return volume_db.volume_create(self.admin_context, {
            'project_id': project, 'user_id': 'u1', 'size': 1,
            'status': status, 'host': 'h@b#p',
            'volume_type_id': self.vtype.id})

    def _offer(self, volume, **kwargs):
        return transfer_db.transfer_create(
            self.admin_context, volume.id, volume.project_id, 'name',
            'salt', 'hash', **kwargs)

    def _snapshot(self, volume, status='available', project=None):
        return snapshot_db.snapshot_create(self.admin_context, {
            'project_id': project or volume.project_id, 'user_id': 'u1',
            'volume_id': volume.id, 'volume_type_id': self.vtype.id,
            'volume_size': volume.size, 'status': status},
            ('available', 'awaiting-transfer'))

    def _owner(self, snapshot):
        row = snapshot_db.snapshot_get(self.admin_context, snapshot.id)
        return row.project_id, row.user_id

    def _status(self, volume):
        return volume_db.volume_get(self.admin_context, volume.id).status

    def test_create_get_list_and_destroy(self):
        volume = self._volume()
        transfer = self._offer(volume, no_snapshots=True)
        self.assertEqual(('p1', True, False, None),
                         (transfer.source_project_id, transfer.no_snapshots,
                          transfer.accepted, transfer.destination_project_id))
        self.assertEqual('awaiting-transfer', self._status(volume))
        self.assertEqual(transfer, transfer_db.transfer_get(
            self.admin_context, transfer.id, 'p1'))
        self.assertEqual(('salt', 'hash'), transfer_db.transfer_get_secret(
            self.admin_context, transfer.id))
        self.assertRaises(exception.TransferNotFound,
                          transfer_db.transfer_get, self.admin_context,
                          transfer.id, 'p2')
        self.assertEqual([transfer.id], [t.id for t in
                                         transfer_db.transfer_get_all(
                                             self.admin_context, 'p1')])
        self.assertEqual([], transfer_db.transfer_get_all(
            self.admin_context, 'p2'))
        self.assertRaises(exception.TransferNotFound,
                          transfer_db.transfer_destroy, self.admin_context,
                          transfer.id, 'p2')
        transfer_db.transfer_destroy(self.admin_context, transfer.id, 'p1')
        self.assertEqual('available', self._status(volume))
        self.assertRaises(exception.TransferNotFound,
                          transfer_db.transfer_get, self.admin_context,
                          transfer.id)

    def test_only_an_available_unattached_volume(self):
        busy = self._volume(status='in-use')
        exc = self.assertRaises(exception.InvalidVolume, self._offer, busy)
        self.assertIn('must be available, not in-use', str(exc))
        reserved = self._volume()
        attachment_db.attachment_reserve(self.admin_context, reserved.id,
                                         'instance-1')
        exc = self.assertRaises(exception.InvalidVolume, self._offer,
                                reserved)
        self.assertIn('attachments', str(exc))
        self.assertRaises(exception.VolumeNotFound,
                          transfer_db.transfer_create, self.admin_context,
                          reserved.id, 'p2', None, 's', 'h')
        # Offered once only.
        volume = self._volume()
        self._offer(volume)
        self.assertRaises(exception.InvalidVolume, self._offer, volume)

    def test_a_volume_awaiting_transfer_cannot_be_attached(self):
        volume = self._volume()
        self._offer(volume)
        self.assertRaises(exception.CinderMAException,
                          attachment_db.attachment_reserve,
                          self.admin_context, volume.id, 'instance-1')

    def test_accept_moves_the_volume_and_calls_the_quota_hook(self):
        volume = self._volume()
        transfer = self._offer(volume)
        seen = []
        accepted = transfer_db.transfer_accept(
            self.admin_context, transfer.id, 'u2', 'p2',
            quota=lambda ctx, row, snapshots: seen.append(
                (row.id, row.project_id, snapshots)))
        self.assertEqual([(volume.id, 'p1', [])], seen)
        self.assertEqual((True, 'p2'), (accepted.accepted,
                                        accepted.destination_project_id))
        moved = volume_db.volume_get(self.admin_context, volume.id)
        self.assertEqual(('p2', 'u2', 'available'),
                         (moved.project_id, moved.user_id, moved.status))
        # Accepted once: it is gone.
        self.assertRaises(exception.TransferNotFound,
                          transfer_db.transfer_accept, self.admin_context,
                          transfer.id, 'u3', 'p3')

    def test_a_refused_quota_changes_nothing(self):
        volume = self._volume()
        transfer = self._offer(volume)

        def refuse(ctx, row, snapshots):
            raise exception.OverQuota(resource='volumes', limit=0,
                                      in_use=0, requested=1)

        self.assertRaises(exception.OverQuota, transfer_db.transfer_accept,
                          self.admin_context, transfer.id, 'u2', 'p2',
                          quota=refuse)
        self.assertEqual('p1', volume_db.volume_get(
            self.admin_context, volume.id).project_id)
        self.assertFalse(transfer_db.transfer_get(
            self.admin_context, transfer.id).accepted)

    def test_snapshots_go_with_the_volume(self):
        volume = self._volume()
        snapshots = [self._snapshot(volume), self._snapshot(volume)]
        transfer = self._offer(volume)
        seen = []
        transfer_db.transfer_accept(
            self.admin_context, transfer.id, 'u2', 'p2',
            quota=lambda ctx, row, rows: seen.extend(
                (r.id, r.project_id) for r in rows))
        self.assertEqual(sorted((s.id, 'p1') for s in snapshots),
                         sorted(seen))
        for snapshot in snapshots:
            self.assertEqual(('p2', 'u2'), self._owner(snapshot))

    def test_no_snapshots_leaves_them_to_the_donor(self):
        volume = self._volume()
        # Whatever its status: it does not go.
        snapshot = self._snapshot(volume, status='error')
        transfer = self._offer(volume, no_snapshots=True)
        seen = []
        transfer_db.transfer_accept(
            self.admin_context, transfer.id, 'u2', 'p2',
            quota=lambda ctx, row, rows: seen.append(rows))
        self.assertEqual([[]], seen)
        self.assertEqual(('p1', 'u1'), self._owner(snapshot))
        self.assertEqual('p2', volume_db.volume_get(
            self.admin_context, volume.id).project_id)

    def test_snapshots_must_be_available(self):
        volume = self._volume()
        snapshot = self._snapshot(volume, status='creating')
        exc = self.assertRaises(exception.InvalidSnapshot, self._offer,
                                volume)
        self.assertIn('snapshot: %s status must be available'
                      % snapshot.id, str(exc))
        # Nothing changed: the volume was not offered.
        self.assertEqual('available', self._status(volume))
        self.assertEqual([], transfer_db.transfer_get_all(
            self.admin_context, 'p1'))
        # Offered with its snapshots available, one of which then is not:
        # the accept is refused and changes nothing.
        snapshot_db.snapshot_update(self.admin_context, snapshot.id,
                                    {'status': 'available'})
        transfer = self._offer(volume)
        snapshot_db.snapshot_update(self.admin_context, snapshot.id,
                                    {'status': 'deleting'})
        self.assertRaises(exception.InvalidSnapshot,
                          transfer_db.transfer_accept, self.admin_context,
                          transfer.id, 'u2', 'p2')
        self.assertEqual('awaiting-transfer', self._status(volume))
        self.assertEqual(('p1', 'u1'), self._owner(snapshot))
        self.assertFalse(transfer_db.transfer_get(
            self.admin_context, transfer.id).accepted)

    def test_a_snapshot_changed_meanwhile_refuses_the_accept(self):
        volume = self._volume()
        snapshot = self._snapshot(volume)
        transfer = self._offer(volume)

        def delete_meanwhile(ctx, row, rows):
            # What a delete of the snapshot that began between the read
            # and the compare-and-swap of the accept does.
            db_api.connection_of(ctx).execute(
                sa.update(models.Snapshot).where(
                    models.Snapshot.id == snapshot.id).values(
                        status='deleting'))

        exc = self.assertRaises(exception.InvalidSnapshot,
                                transfer_db.transfer_accept,
                                self.admin_context, transfer.id, 'u2', 'p2',
                                quota=delete_meanwhile)
        self.assertIn('changed while transfer', str(exc))
        # All rolled back, the hook's change included.
        self.assertEqual('awaiting-transfer', self._status(volume))
        self.assertEqual(('p1', 'u1'), self._owner(snapshot))
        self.assertEqual('available', snapshot_db.snapshot_get(
            self.admin_context, snapshot.id).status)

    def test_concurrent_accepts_one_wins(self):
        volume = self._volume()
        transfer = self._offer(volume)
        barrier = threading.Barrier(8)
        results = [None] * 8

        def accept(index):
            context = self.admin_context.elevated()
            barrier.wait()
            try:
                transfer_db.transfer_accept(context, transfer.id,
                                            'u%d' % index, 'p%d' % index)
                results[index] = 'ok'
            except exception.CinderMAException as exc:
                results[index] = exc

        threads = [threading.Thread(target=accept, args=(i,))
                   for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(1, results.count('ok'), results)
        for result in results:
            if result != 'ok':
                self.assertIsInstance(result, exception.TransferNotFound)
        winner = 'p%d' % results.index('ok')
        self.assertEqual(winner, volume_db.volume_get(
            self.admin_context, volume.id).project_id)

    def test_a_deleted_volume_takes_its_transfer(self):
        volume = self._volume()
        transfer = self._offer(volume)
        volume_db.volume_destroy(self.admin_context, volume.id)
        self.assertRaises(exception.TransferNotFound,
                          transfer_db.transfer_get, self.admin_context,
                          transfer.id)

    def test_pages(self):
        made = [self._offer(self._volume()) for _ in range(3)]
        first = transfer_db.transfer_get_all(
            self.admin_context, 'p1', limit=2, sort_keys=['id'],
            sort_dirs=['asc'])
        rest = transfer_db.transfer_get_all(
            self.admin_context, 'p1', marker=first[-1].id,
            sort_keys=['id'], sort_dirs=['asc'])
        self.assertEqual(sorted(t.id for t in made),
                         [t.id for t in first + rest])
        self.assertEqual(1, len(transfer_db.transfer_get_all(
            self.admin_context, 'p1', offset=2)))
        self.assertRaises(exception.InvalidSortKey,
                          transfer_db.transfer_get_all, self.admin_context,
                          sort_keys=['salt'])


class TransferDBTestCase(TransferDBMixin, base.DBTestCase):
    pass
