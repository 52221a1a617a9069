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

"""Tests of cinder_ma/db/fencing.py: the compare-and-swap transitions of
fencing and standby promotion, and concurrent promotions (exactly one
wins) on SQLite. tests/functional/db/test_promotion_races.py runs the
race tests on PostgreSQL and MariaDB.
"""

import threading

from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import fencing as fencing_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from tests import base

INFO = {'driver_volume_type': 'nbd', 'data': {'access_mode': 'ro'},
        'cinder_ma_connection_scope': 'attachment'}


class _FencingDBMixin:
    """Attachments of one one-writer shareable volume."""

    def setUp(self):
        super().setUp()
        self.volume = self.make_shared_volume('one-w')

    def attachment(self, mode, status='attached', info=INFO):
        made = attachment_db.attachment_reserve(
            self.context, self.volume.id, 'i-%s' % mode, attach_mode=mode,
            one_writer=True)
        if status != 'reserved':
            attachment_db.attachment_update(
                self.context, made.id,
                {'attach_status': status, 'connection_info': info,
                 'connector': {'host': 'h-%s' % made.id[:8]}})
        return attachment_db.attachment_get(self.context, made.id)

    def race(self, count, func):
        """Run ``func(index)`` in ``count`` threads at once: the results
        (or the CinderMAException each raised)."""
        barrier = threading.Barrier(count)
        results = [None] * count

        def run(index):
            barrier.wait()
            try:
                results[index] = func(index)
            except exception.CinderMAException as exc:
                results[index] = exc

        threads = [threading.Thread(target=run, args=(i,))
                   for i in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return results


class PromotionRaceMixin(_FencingDBMixin):
    """Concurrent promotions of a one-writer volume: exactly one wins."""

    STANDBYS = 8

    def test_concurrent_promotions_have_one_winner(self):
        writer = self.attachment('rw')
        standbys = [self.attachment('ro') for _ in range(self.STANDBYS)]

        def promote(index):
            # Each request read the same writer before any committed.
            return fencing_db.attachment_promote(
                self.context.elevated(), standbys[index].id, 1,
                [writer.id])

        results = self.race(self.STANDBYS, promote)
        won = [r for r in results
               if not isinstance(r, exception.CinderMAException)]
        self.assertEqual(1, len(won), results)
        promoted, demoted = won[0]
        self.assertEqual([writer.id], [w.id for w in demoted])
        for result in results:
            if isinstance(result, exception.CinderMAException):
                self.assertIsInstance(result, exception.Conflict)
                self.assertEqual(409, result.code)
                self.assertIn(promoted.id, str(result))
        live = attachment_db.attachment_get_all(
            self.context, filters={'volume_id': self.volume.id})
        self.assertEqual([promoted.id],
                         [a.id for a in live if a.attach_mode == 'rw'])
        self.assertEqual(2, promoted.generation)
        old = attachment_db.attachment_get(self.context, writer.id)
        self.assertEqual('ro', old.attach_mode)
        self.assertIsNotNone(old.fenced_at)

    def test_promotion_and_reservation_of_a_writer_race(self):
        # A new read-write reservation and a promotion: never two
        # writers.
        standby = self.attachment('ro')

        def act(index):
            if index % 2:
                return fencing_db.attachment_promote(
                    self.context.elevated(), standby.id, 1, [])
            return attachment_db.attachment_reserve(
                self.context.elevated(), self.volume.id, 'new-%d' % index,
                attach_mode='rw', one_writer=True)

        self.race(8, act)
        live = attachment_db.attachment_get_all(
            self.context, filters={'volume_id': self.volume.id})
        self.assertEqual(1, len([a for a in live if a.attach_mode == 'rw']))


class FencingDBTestCase(_FencingDBMixin, base.DBTestCase):

    def test_fence(self):
        made = self.attachment('rw')
        fenced, newly = fencing_db.attachment_fence(self.context, made.id)
        self.assertTrue(newly)
        self.assertIsNotNone(fenced.fenced_at)
        self.assertEqual(1, fenced.generation)
        # Idempotent: fenced already, nothing changes.
        again, newly = fencing_db.attachment_fence(self.context, made.id)
        self.assertFalse(newly)
        self.assertEqual(fenced.fenced_at, again.fenced_at)

    def test_fence_needs_a_connection(self):
        for status, info in (('reserved', INFO), ('error_attaching', INFO),
                             ('attached', None)):
            made = self.attachment('ro', status=status, info=info)
            exc = self.assertRaises(exception.Conflict,
                                    fencing_db.attachment_fence,
                                    self.context, made.id)
            self.assertIn('holds no connection', str(exc))
            self.assertIsNone(attachment_db.attachment_get(
                self.context, made.id).fenced_at)
        self.assertRaises(exception.VolumeAttachmentNotFound,
                          fencing_db.attachment_fence, self.context,
                          '5d1a1b8e-0000-4000-8000-000000000000')

    def test_fence_whatever_the_volume_does(self):
        made = self.attachment('rw')
        volume_db.volume_update(self.context, self.volume.id,
                                {'status': 'extending'})
        fenced, _newly = fencing_db.attachment_fence(self.context, made.id)
        self.assertIsNotNone(fenced.fenced_at)

    def test_promote(self):
        writer = self.attachment('rw')
        standby = self.attachment('ro')
        reader = self.attachment('ro')
        promoted, demoted = fencing_db.attachment_promote(
            self.context, standby.id, 1, [writer.id])
        self.assertEqual(('rw', 2, None),
                         (promoted.attach_mode, promoted.generation,
                          promoted.fenced_at))
        (old,) = demoted
        self.assertEqual(('ro', 1), (old.attach_mode, old.generation))
        self.assertIsNotNone(old.fenced_at)
        untouched = attachment_db.attachment_get(self.context, reader.id)
        self.assertEqual(('ro', 1, None),
                         (untouched.attach_mode, untouched.generation,
                          untouched.fenced_at))
        self.assertEqual('in-use', volume_db.volume_get(
            self.context, self.volume.id).status)

    def test_a_writer_without_a_connection_is_demoted_not_fenced(self):
        writer = self.attachment('rw', status='reserved')
        standby = self.attachment('ro')
        _promoted, (old,) = fencing_db.attachment_promote(
            self.context, standby.id, 1, [writer.id])
        self.assertEqual('ro', old.attach_mode)
        self.assertIsNone(old.fenced_at)

    def test_promote_refusals(self):
        writer = self.attachment('rw')
        standby = self.attachment('ro')
        # The writer the request read is not the one there is.
        exc = self.assertRaises(exception.Conflict,
                                fencing_db.attachment_promote, self.context,
                                standby.id, 1, [])
        self.assertIn(writer.id, str(exc))
        # An old generation.
        self.assertRaises(exception.Conflict, fencing_db.attachment_promote,
                          self.context, standby.id, 7, [writer.id])
        # A fenced standby.
        fencing_db.attachment_fence(self.context, standby.id)
        self.assertRaises(exception.Conflict, fencing_db.attachment_promote,
                          self.context, standby.id, 1, [writer.id])
        # Nothing changed: the transaction rolled back as a whole.
        self.assertEqual('rw', attachment_db.attachment_get(
            self.context, writer.id).attach_mode)
        # The volume cannot change.
        other = self.attachment('ro')
        volume_db.volume_update(self.context, self.volume.id,
                                {'status': 'extending'})
        self.assertRaises(exception.InvalidVolume,
                          fencing_db.attachment_promote, self.context,
                          other.id, 1, [writer.id])

    def test_record_connection_of_the_writer_of_a_generation(self):
        standby = self.attachment('ro')
        fencing_db.attachment_promote(self.context, standby.id, 1, [])
        rw = dict(INFO, data={'access_mode': 'rw'})
        fencing_db.attachment_record_connection(self.context, standby.id, 2,
                                                rw)
        self.assertEqual(rw, attachment_db.attachment_get(
            self.context, standby.id).connection_info)
        self.assertRaises(exception.Conflict,
                          fencing_db.attachment_record_connection,
                          self.context, standby.id, 3, rw)
        fencing_db.attachment_fence(self.context, standby.id)
        self.assertRaises(exception.Conflict,
                          fencing_db.attachment_record_connection,
                          self.context, standby.id, 2, rw)

    def test_reconnect_and_its_undo(self):
        made = self.attachment('rw')
        fenced, _newly = fencing_db.attachment_fence(self.context, made.id)
        new_info = dict(INFO, data={'access_mode': 'rw', 'port': 2})
        reconnected = fencing_db.attachment_reconnect(
            self.context, made.id, 1, {'host': 'h2'}, 'h2', new_info)
        self.assertEqual(('attaching', 2, None, 'h2'),
                         (reconnected.attach_status, reconnected.generation,
                          reconnected.fenced_at, reconnected.attached_host))
        self.assertEqual('attaching', volume_db.volume_get(
            self.context, self.volume.id).status)
        # Only a fenced attachment of that generation.
        self.assertRaises(exception.Conflict,
                          fencing_db.attachment_reconnect, self.context,
                          made.id, 1, {'host': 'h2'}, 'h2', new_info)
        previous = {'attach_status': 'attached', 'attached_host': 'h1',
                    'mountpoint': None, 'fenced_at': fenced.fenced_at,
                    'connector': {'host': 'h1'}, 'connection_info': INFO}
        self.assertTrue(fencing_db.attachment_unreconnect(
            self.context, made.id, 1, previous))
        back = attachment_db.attachment_get(self.context, made.id)
        self.assertEqual(('attached', 1, 'h1'),
                         (back.attach_status, back.generation,
                          back.attached_host))
        self.assertIsNotNone(back.fenced_at)
        self.assertEqual('in-use', volume_db.volume_get(
            self.context, self.volume.id).status)
        self.assertFalse(fencing_db.attachment_unreconnect(
            self.context, made.id, 1, previous))

    def test_reconnect_refuses_a_second_connection_on_a_host(self):
        made = self.attachment('ro')
        fencing_db.attachment_fence(self.context, made.id)
        # The same instance has the volume connected on h2 already.
        other = attachment_db.attachment_reserve(
            self.context, self.volume.id, made.instance_uuid,
            attach_mode='ro')
        attachment_db.attachment_update(
            self.context, other.id, {'attach_status': 'attached',
                                     'attached_host': 'h2'})
        exc = self.assertRaises(exception.Conflict,
                                fencing_db.attachment_reconnect,
                                self.context, made.id, 1, {'host': 'h2'},
                                'h2', INFO)
        self.assertIn(other.id, str(exc))

    def test_fenced_connections(self):
        fenced = self.attachment('rw')
        self.attachment('ro')
        fencing_db.attachment_fence(self.context, fenced.id)
        (item,) = fencing_db.fenced_connections(self.context,
                                                self.volume.id)
        self.assertEqual((fenced.id, INFO),
                         (item.id, item.connection_info))
        self.assertEqual('h-%s' % fenced.id[:8], item.connector['host'])

    def test_failure_reason(self):
        made = self.attachment('ro')
        fencing_db.attachment_set_failure(self.context, made.id, 'why')
        self.assertEqual('why', attachment_db.attachment_get(
            self.context, made.id).error_reason)


class SQLitePromotionRaceTestCase(PromotionRaceMixin, base.DBTestCase):
    DATABASE = 'sqlite'
