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

"""Concurrent attachment reservations on SQLite, PostgreSQL and MariaDB.

32 threads reserve attachments of one volume for 32 instances at once; the
compare-and-swap reservation must let exactly the winners the rules allow
through, whatever the database. So must os-begin_detaching's mark (one
winner) and os-roll_detaching (one rollback, no error).
"""

import threading

from cinder_ma import context as cm_context
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.volume import attachments
from tests import base

THREADS = 32


class _RaceMixin:

    def setUp(self):
        super().setUp()
        self.vtype = type_db.volume_type_create(self.context,
                                                {'name': 'default'})

    def _volume(self, multiattach):
        return volume_db.volume_create(self.context, {
            'project_id': 'fake-project', 'size': 1, 'status': 'available',
            'volume_type_id': self.vtype.id, 'multiattach': multiattach})

    def _concurrently(self, func, new_context=None):
        """THREADS threads call ``func(context, index)`` at once.

        :param new_context: makes each thread's context (one each: the
            enginefacade keeps its transaction on it); default an
            admin's.
        :returns: per thread, ``('ok', what func returned)`` or the
            CinderMAException it raised.
        """
        barrier = threading.Barrier(THREADS)
        results = [None] * THREADS

        def run(index):
            caller = (new_context or self.context.elevated)()
            barrier.wait()
            try:
                results[index] = ('ok', func(caller, index))
            except exception.CinderMAException as exc:
                results[index] = exc

        threads = [threading.Thread(target=run, args=(i,))
                   for i in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return results

    @staticmethod
    def _oks(results):
        """``results`` with each success as 'ok'."""
        return ['ok' if isinstance(r, tuple) else r for r in results]

    def _race(self, volume_id, **kwargs):
        return self._oks(self._concurrently(
            lambda context, index: attachment_db.attachment_reserve(
                context, volume_id, 'instance-%02d' % index, **kwargs)))

    def _live(self, volume_id):
        return attachment_db.attachment_get_all(
            self.context, filters={'volume_id': volume_id})

    def test_one_winner_on_single_attach_volume(self):
        vol = self._volume(multiattach=False)
        results = self._race(vol.id)
        winners = [r for r in results if r == 'ok']
        self.assertEqual(1, len(winners), results)
        for result in results:
            if result != 'ok':
                self.assertIsInstance(result, exception.InvalidVolume)
                self.assertIn('not multiattach', str(result))
        self.assertEqual(1, len(self._live(vol.id)))
        vol = volume_db.volume_get(self.context, vol.id)
        self.assertEqual(('reserved', 1), (vol.status, vol.attach_count))

    def test_all_win_on_shareable_volume(self):
        vol = self._volume(multiattach=True)
        results = self._race(vol.id)
        self.assertEqual(['ok'] * THREADS, results)
        self.assertEqual(THREADS, len(self._live(vol.id)))
        vol = volume_db.volume_get(self.context, vol.id)
        self.assertEqual(THREADS, vol.attach_count)

    def test_one_connection_per_instance_and_host(self):
        """Cinder bug 1833736: concurrent connections of one instance's
        attachments on one host; exactly one may win."""
        vol = self._volume(multiattach=False)
        ids = [attachment_db.attachment_reserve(self.context, vol.id,
                                                'instance-a').id
               for _ in range(8)]
        barrier = threading.Barrier(len(ids))
        results = {}

        def connect(attachment_id):
            context = self.context.elevated()
            barrier.wait()
            try:
                attachment_db.attachment_update(
                    context, attachment_id,
                    {'attach_status': 'attaching', 'attached_host': 'h1'},
                    expected_status='reserved',
                    not_connected_elsewhere='h1')
                results[attachment_id] = 'ok'
            except exception.Conflict as exc:
                results[attachment_id] = exc

        threads = [threading.Thread(target=connect, args=(i,)) for i in ids]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(1, list(results.values()).count('ok'), results)
        for result in results.values():
            if result != 'ok':
                self.assertIn('already has volume', str(result))

    def test_bootable_shareable_volume_stays_with_one_instance(self):
        """volume:multiattach_bootable_volume is part of the swap."""
        vol = self._volume(multiattach=True)
        volume_db.volume_update(self.context, vol.id, {'bootable': True})
        results = self._race(vol.id, exclusive_bootable=True)
        self.assertEqual(1, results.count('ok'), results)
        for result in results:
            if result != 'ok':
                self.assertIsInstance(result, exception.PolicyNotAuthorized)
        self.assertEqual(1, len({a.instance_uuid
                                 for a in self._live(vol.id)}))

    def test_bootable_rule_through_the_service(self):
        """8 members attach a bootable shareable volume at once, with a
        policy that refuses them a second instance: one instance wins."""
        self.set_policy_rules({
            'volume:multiattach_bootable_volume': 'rule:context_is_admin'})
        self.make_backend('testhost@file')
        vol = self._volume(multiattach=True)
        volume_db.volume_update(self.context, vol.id,
                                {'bootable': True,
                                 'host': 'testhost@file#file'})
        barrier = threading.Barrier(8)
        results = [None] * 8

        def attach(index):
            context = cm_context.RequestContext(
                user_id='fake-user', project_id='fake-project',
                roles=['member', 'reader'])
            barrier.wait()
            try:
                attachments.create_attachment(context, vol.id,
                                              'instance-%d' % index)
                results[index] = 'ok'
            except exception.CinderMAException as exc:
                results[index] = exc

        threads = [threading.Thread(target=attach, args=(i,))
                   for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(1, results.count('ok'), results)
        for result in results:
            if result != 'ok':
                self.assertIsInstance(result, exception.PolicyNotAuthorized)
        self.assertEqual(1, len({a.instance_uuid
                                 for a in self._live(vol.id)}))

    def test_cap_holds(self):
        vol = self._volume(multiattach=True)
        results = self._race(vol.id, max_attachments=4)
        self.assertEqual(4, results.count('ok'), results)
        self.assertEqual(4, len(self._live(vol.id)))

    # The cap of [DEFAULT] max_attachments_per_volume, lowered by the
    # type's multiattach:max_attachments, through the service layer.

    def _attach_race(self, volume_id, same_instance=False):
        """THREADS members attach ``volume_id`` at once (each for its own
        instance, or all for one)."""
        def member():
            return cm_context.RequestContext(
                user_id='fake-user', project_id='fake-project',
                roles=['member', 'reader'])

        return self._oks(self._concurrently(
            lambda context, index: attachments.create_attachment(
                context, volume_id,
                'instance-a' if same_instance else 'instance-%02d' % index),
            new_context=member))

    def _backed_volume(self, multiattach, specs=None):
        self.make_backend('testhost@file')
        if specs:
            type_db.volume_type_extra_specs_update_or_create(
                self.context, self.vtype.id, specs)
        vol = self._volume(multiattach=multiattach)
        volume_db.volume_update(self.context, vol.id,
                                {'host': 'testhost@file#file'})
        return vol

    def _assert_capped(self, vol, results, cap, source):
        self.assertEqual(cap, results.count('ok'), results)
        for result in results:
            if result != 'ok':
                self.assertIsInstance(result, exception.InvalidVolume)
                self.assertIn('at most %d are allowed (%s)' % (cap, source),
                              str(result))
        self.assertEqual(cap, len(self._live(vol.id)))
        self.assertEqual(cap, volume_db.volume_get(
            self.context, vol.id).attach_count)

    def test_configured_cap_holds(self):
        self.flags(max_attachments_per_volume=5)
        vol = self._backed_volume(multiattach=True)
        self._assert_capped(vol, self._attach_race(vol.id), 5,
                            attachments.CAP_OPTION)

    def test_configured_cap_holds_for_one_instance(self):
        """A volume that is not shareable takes attachments of its one
        instance (live migration): capped too."""
        self.flags(max_attachments_per_volume=3)
        vol = self._backed_volume(multiattach=False)
        self._assert_capped(vol, self._attach_race(vol.id,
                                                   same_instance=True),
                            3, attachments.CAP_OPTION)

    def test_type_spec_lowers_the_cap(self):
        self.flags(max_attachments_per_volume=6)
        vol = self._backed_volume(multiattach=True, specs={
            'multiattach:max_attachments': '4'})
        self._assert_capped(vol, self._attach_race(vol.id), 4,
                            attachments.CAP_SPEC)

    def test_type_spec_does_not_raise_the_cap(self):
        self.flags(max_attachments_per_volume=6)
        vol = self._backed_volume(multiattach=True, specs={
            'multiattach:max_attachments': '20'})
        self._assert_capped(vol, self._attach_race(vol.id), 6,
                            attachments.CAP_OPTION)

    def test_one_begin_detaching_wins(self):
        # Nova's os-begin_detaching on a volume with one attachment, sent
        # 32 times at once: one marks it (the volume is then detaching),
        # the others get Cinder's 400.
        vol = self._volume(multiattach=False)
        att = attachment_db.attachment_reserve(self.context, vol.id, 'i1')
        attachment_db.attachment_update(self.context, att.id,
                                        {'attach_status': 'attached'})
        results = self._concurrently(
            lambda context, index: attachment_db.attachment_begin_detaching(
                context, vol.id))
        self.assertEqual([('ok', att.id)],
                         [r for r in results if isinstance(r, tuple)],
                         results)
        for result in results:
            if not isinstance(result, tuple):
                self.assertIsInstance(result, exception.InvalidVolume)
        self.assertEqual('detaching',
                         volume_db.volume_get(self.context, vol.id).status)
        # Rolled back 32 times at once: once, and never an error.
        results = self._concurrently(
            lambda context, index: attachment_db.attachment_roll_detaching(
                context, vol.id))
        self.assertEqual([1] + [0] * (THREADS - 1),
                         sorted((r[1] for r in results), reverse=True),
                         results)
        vol = volume_db.volume_get(self.context, vol.id)
        self.assertEqual(('in-use', 1), (vol.status, vol.attach_count))


    def _reserved(self, vol):
        return [attachment_db.attachment_reserve(
            self.context, vol.id, 'instance-%02d' % index)
            for index in range(THREADS)]

    def test_transitions_keeping_the_count_serialize(self):
        # reserved -> attached leaves the live count as it is; the
        # transitions of one volume still take its row first, on SQLite
        # as elsewhere: the status each derives sees the others'.
        vol = self._volume(multiattach=True)
        reserved = self._reserved(vol)
        results = self._oks(self._concurrently(
            lambda context, index: attachment_db.attachment_update(
                context, reserved[index].id, {'attach_status': 'attached'})))
        self.assertEqual(['ok'] * THREADS, results)
        vol = volume_db.volume_get(self.context, vol.id)
        self.assertEqual(('in-use', THREADS), (vol.status, vol.attach_count))

    def test_transitions_keeping_the_count_check_the_volume(self):
        # The volume leaves the attachable statuses while its attachments
        # are completed: those completed before are attached, the others
        # refused with 400 and left reserved.
        vol = self._volume(multiattach=True)
        reserved = self._reserved(vol)

        def complete_or_fail(context, index):
            if index == THREADS // 2:
                volume_db.volume_change(context, vol.id, {'status': 'error'})
                return 'volume'
            return attachment_db.attachment_update(
                context, reserved[index].id, {'attach_status': 'attached'})

        results = self._concurrently(complete_or_fail)
        statuses = {att.id: att.attach_status
                    for att in self._live(vol.id)}
        for index, result in enumerate(results):
            if index == THREADS // 2:
                self.assertEqual(('ok', 'volume'), result)
                continue
            if isinstance(result, tuple):
                self.assertEqual('attached', statuses[reserved[index].id])
            else:
                self.assertIsInstance(result, exception.InvalidVolume)
                self.assertEqual('reserved', statuses[reserved[index].id])
        vol = volume_db.volume_get(self.context, vol.id)
        self.assertEqual(('error', THREADS), (vol.status, vol.attach_count))


class SQLiteRaceTestCase(_RaceMixin, base.DBTestCase):
    DATABASE = 'sqlite'


class PostgreSQLRaceTestCase(_RaceMixin, base.DBTestCase):
    DATABASE = 'postgresql'


class MySQLRaceTestCase(_RaceMixin, base.DBTestCase):
    DATABASE = 'mysql'
