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

"""Tests of attachment reservations and transitions (SQLite file DB)."""

from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma.db import work as work_db
from cinder_ma import exception
from tests import base


class AttachmentDBTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.vtype = type_db.volume_type_create(self.context,
                                                {'name': 'default'})

    def _volume(self, multiattach=False, status='available'):
        return volume_db.volume_create(self.context, {
            'project_id': 'fake-project', 'size': 1, 'status': status,
            'volume_type_id': self.vtype.id, 'multiattach': multiattach})

    def _status(self, volume_id):
        vol = volume_db.volume_get(self.context, volume_id)
        return vol.status, vol.attach_count

    def test_single_attach_volume(self):
        vol = self._volume()
        att = attachment_db.attachment_reserve(self.context, vol.id, 'i1')
        self.assertEqual('reserved', att.attach_status)
        self.assertEqual(('reserved', 1), self._status(vol.id))
        exc = self.assertRaises(exception.InvalidVolume,
                                attachment_db.attachment_reserve,
                                self.context, vol.id, 'i2')
        self.assertIn('not multiattach', str(exc))
        self.assertIn('i1', str(exc))
        # The same instance may reserve again (live migration).
        second = attachment_db.attachment_reserve(self.context, vol.id, 'i1')
        self.assertEqual(('reserved', 2), self._status(vol.id))
        attachment_db.attachment_destroy(self.context, second.id)
        attachment_db.attachment_destroy(self.context, att.id)
        self.assertEqual(('available', 0), self._status(vol.id))
        # Free again: another instance may take it now.
        attachment_db.attachment_reserve(self.context, vol.id, 'i2')

    def test_a_second_connection_on_a_host_names_the_first(self):
        # With other attachments around (an older one first), the refusal
        # names the attachment connected on that host, not any row.
        vol = self._volume(multiattach=True)
        older = attachment_db.attachment_reserve(self.context, vol.id, 'i0')
        attachment_db.attachment_update(
            self.context, older.id,
            {'attach_status': 'attached', 'attached_host': 'h1'})
        first = attachment_db.attachment_reserve(self.context, vol.id, 'i1')
        attachment_db.attachment_update(
            self.context, first.id,
            {'attach_status': 'attached', 'attached_host': 'h2'})
        second = attachment_db.attachment_reserve(self.context, vol.id,
                                                  'i1')
        exc = self.assertRaises(exception.Conflict,
                                attachment_db.check_connectable,
                                self.context, second.id, 'h2')
        self.assertIn('(attachment %s)' % first.id, str(exc))
        exc = self.assertRaises(
            exception.Conflict, attachment_db.attachment_update,
            self.context, second.id, {'attach_status': 'attaching'},
            expected_status='reserved', not_connected_elsewhere='h2')
        self.assertIn('(attachment %s)' % first.id, str(exc))

    def test_count_sharing_connection(self):
        backend = '2b6a3cf2-0000-4000-8000-000000000001'
        vol = self._volume(multiattach=True)
        other = self._volume(multiattach=True)
        for volume in (vol, other):
            volume_db.volume_update(self.context, volume.id,
                                    {'service_uuid': backend})
        mine = attachment_db.attachment_reserve(self.context, vol.id, 'i1')

        def connect(volume, instance, host, status='attached'):
            att = attachment_db.attachment_reserve(self.context, volume.id,
                                                   instance)
            return attachment_db.attachment_update(
                self.context, att.id,
                {'attach_status': status, 'attached_host': host,
                 'connector': {'host': host}})

        connect(vol, 'i2', 'h1')
        connect(vol, 'i3', 'h1', status='detaching')
        connect(vol, 'i4', 'h2')
        connect(other, 'i5', 'h1')
        # On h1 without a connector: it holds no connection.
        bare = attachment_db.attachment_reserve(self.context, vol.id, 'i6')
        attachment_db.attachment_update(
            self.context, bare.id, {'attach_status': 'attached',
                                    'attached_host': 'h1'})

        def count(**kwargs):
            return attachment_db.attachment_count_sharing_connection(
                self.context, vol.id, 'h1', mine.id, **kwargs)

        self.assertEqual(2, count())
        self.assertEqual(3, count(service_uuid=backend))
        self.assertEqual(0, count(service_uuid='another-backend'))
        self.assertEqual(1, attachment_db.attachment_count_sharing_connection(
            self.context, vol.id, 'h2', mine.id))

    def test_transitions_derive_status(self):
        vol = self._volume(multiattach=True)
        a1 = attachment_db.attachment_reserve(self.context, vol.id, 'i1')
        attachment_db.attachment_update(self.context, a1.id,
                                        {'attach_status': 'attaching'},
                                        expected_status='reserved')
        attachment_db.attachment_update(self.context, a1.id,
                                        {'attach_status': 'attached'},
                                        expected_status='attaching')
        self.assertEqual(('in-use', 1), self._status(vol.id))
        a2 = attachment_db.attachment_reserve(self.context, vol.id, 'i2',
                                              attach_mode='ro')
        self.assertEqual('ro', a2.attach_mode)
        self.assertEqual(('in-use', 2), self._status(vol.id))
        attachment_db.attachment_update(self.context, a2.id,
                                        {'attach_status': 'error_attaching'})
        self.assertEqual(('in-use', 1), self._status(vol.id))
        attachment_db.attachment_update(self.context, a1.id,
                                        {'attach_status': 'detaching'},
                                        expected_status='attached')
        self.assertEqual(('detaching', 1), self._status(vol.id))
        attachment_db.attachment_destroy(self.context, a1.id)
        self.assertEqual(('available', 0), self._status(vol.id))

    def _attached(self, vol, instance):
        att = attachment_db.attachment_reserve(self.context, vol.id,
                                               instance)
        return attachment_db.attachment_update(
            self.context, att.id, {'attach_status': 'attached'})

    def _marks(self, vol):
        return {a.id: (a.attach_status, a.detach_begun_at is not None)
                for a in volume_db.volume_get(self.context,
                                              vol.id).volume_attachment}

    def test_begin_and_roll_detaching_one_attachment(self):
        vol = self._volume()
        att = self._attached(vol, 'i1')
        self.assertEqual(att.id, attachment_db.attachment_begin_detaching(
            self.context, vol.id))
        # The volume is detaching, as Cinder's; the attachment stays
        # attached (as in Cinder), marked, and is no work to finish.
        self.assertEqual(('detaching', 1), self._status(vol.id))
        self.assertEqual({att.id: ('attached', True)}, self._marks(vol))
        # A second begin finds the volume detaching: Cinder's 400.
        exc = self.assertRaises(exception.InvalidVolume,
                                attachment_db.attachment_begin_detaching,
                                self.context, vol.id)
        self.assertIn("Volume status must be 'in-use'", str(exc))
        self.assertIn('is detaching', str(exc))
        self.assertEqual(1, attachment_db.attachment_roll_detaching(
            self.context, vol.id))
        self.assertEqual(('in-use', 1), self._status(vol.id))
        self.assertEqual({att.id: ('attached', False)}, self._marks(vol))
        # Rolling back what is not detaching changes nothing, no error.
        self.assertEqual(0, attachment_db.attachment_roll_detaching(
            self.context, vol.id))
        self.assertEqual(('in-use', 1), self._status(vol.id))
        # Begun, then the consumer deletes its attachment.
        attachment_db.attachment_begin_detaching(self.context, vol.id)
        attachment_db.attachment_destroy(self.context, att.id)
        self.assertEqual(('available', 0), self._status(vol.id))

    def test_begin_detaching_refused_unless_in_use(self):
        vol = self._volume()
        for volume_status in ('available', 'reserved'):
            if volume_status == 'reserved':
                attachment_db.attachment_reserve(self.context, vol.id, 'i1')
            exc = self.assertRaises(
                exception.InvalidVolume,
                attachment_db.attachment_begin_detaching,
                self.context, vol.id)
            self.assertIn('is %s' % volume_status, str(exc))
            self.assertEqual(volume_status, self._status(vol.id)[0])
            self.assertEqual(0, attachment_db.attachment_roll_detaching(
                self.context, vol.id))
        other = self._volume(status='extending')
        self.assertRaises(exception.InvalidVolume,
                          attachment_db.attachment_begin_detaching,
                          self.context, other.id)
        self.assertEqual(0, attachment_db.attachment_roll_detaching(
            self.context, other.id))
        self.assertEqual(('extending', 0), self._status(other.id))

    def test_begin_detaching_several_attachments(self):
        vol = self._volume(multiattach=True)
        first = self._attached(vol, 'i1')
        second = self._attached(vol, 'i2')
        # Nova's call, with the volume id only: which of the two is told
        # by the delete that follows; the volume stays in-use.
        self.assertIsNone(attachment_db.attachment_begin_detaching(
            self.context, vol.id))
        self.assertEqual(('in-use', 2), self._status(vol.id))
        self.assertEqual({first.id: ('attached', False),
                          second.id: ('attached', False)}, self._marks(vol))
        attachment_db.attachment_destroy(self.context, second.id)
        self.assertEqual(('in-use', 1), self._status(vol.id))
        # Now the only one: it is marked.
        self.assertEqual(first.id, attachment_db.attachment_begin_detaching(
            self.context, vol.id))
        self.assertEqual(('detaching', 1), self._status(vol.id))
        attachment_db.attachment_destroy(self.context, first.id)
        self.assertEqual(('available', 0), self._status(vol.id))

    def test_begin_and_roll_detaching_named_attachment(self):
        vol = self._volume(multiattach=True)
        first = self._attached(vol, 'i1')
        second = self._attached(vol, 'i2')
        reserved = attachment_db.attachment_reserve(self.context, vol.id,
                                                    'i3')
        self.assertEqual(second.id, attachment_db.attachment_begin_detaching(
            self.context, vol.id, second.id))
        self.assertEqual({first.id: ('attached', False),
                          second.id: ('attached', True),
                          reserved.id: ('reserved', False)},
                         self._marks(vol))
        self.assertEqual(('in-use', 3), self._status(vol.id))
        # Not again, nor a reservation, nor another volume's.
        other = self._volume(multiattach=True)
        for attachment_id in (second.id, reserved.id,
                              self._attached(other, 'i4').id):
            exc = self.assertRaises(
                exception.InvalidVolume,
                attachment_db.attachment_begin_detaching,
                self.context, vol.id, attachment_id)
            self.assertIn('has no attachment %s' % attachment_id, str(exc))
        # Without a name, the one left is marked: none attached is left.
        self.assertEqual(first.id, attachment_db.attachment_begin_detaching(
            self.context, vol.id))
        self.assertEqual('detaching', self._status(vol.id)[0])
        # Rolled back by name: only that one.
        self.assertEqual(1, attachment_db.attachment_roll_detaching(
            self.context, vol.id, first.id))
        self.assertEqual({first.id: ('attached', False),
                          second.id: ('attached', True),
                          reserved.id: ('reserved', False)},
                         self._marks(vol))
        self.assertEqual('in-use', self._status(vol.id)[0])
        self.assertEqual(0, attachment_db.attachment_roll_detaching(
            self.context, vol.id, first.id))
        # Without a name, every mark.
        self.assertEqual(1, attachment_db.attachment_roll_detaching(
            self.context, vol.id))
        self.assertEqual({False}, {marked for _s, marked
                                   in self._marks(vol).values()})

    def test_a_status_change_drops_the_mark(self):
        vol = self._volume()
        att = self._attached(vol, 'i1')
        attachment_db.attachment_begin_detaching(self.context, vol.id)
        # Connected again (a consumer's attachment update), then attached:
        # the volume is in-use, not detaching.
        attachment_db.attachment_update(self.context, att.id,
                                        {'attach_status': 'attaching'})
        attachment_db.attachment_update(self.context, att.id,
                                        {'attach_status': 'attached'})
        self.assertEqual({att.id: ('attached', False)}, self._marks(vol))
        self.assertEqual(('in-use', 1), self._status(vol.id))
        # A change of other columns keeps it.
        attachment_db.attachment_begin_detaching(self.context, vol.id)
        attachment_db.attachment_update(self.context, att.id,
                                        {'mountpoint': '/dev/vdc'})
        self.assertEqual({att.id: ('attached', True)}, self._marks(vol))

    def test_marked_attachment_is_no_work(self):
        # The reconcile loop finishes 'detaching' attachments of external
        # consumers (an interrupted delete): a detach that a consumer only
        # began is not one of them, however long it takes.
        vol = self._volume()
        self._attached(vol, 'i1')
        attachment_db.attachment_begin_detaching(self.context, vol.id)
        # (A lease in the past: everything unclaimed counts as stuck.)
        self.assertEqual([], work_db.stuck_attachments(self.context, -60))

    def test_expected_status_conflict(self):
        vol = self._volume()
        att = attachment_db.attachment_reserve(self.context, vol.id, 'i1')
        exc = self.assertRaises(exception.Conflict,
                                attachment_db.attachment_update,
                                self.context, att.id,
                                {'attach_status': 'attached'},
                                expected_status='attaching')
        self.assertIn('reserved', str(exc))
        self.assertEqual(('reserved', 1), self._status(vol.id))

    def test_not_attachable_status(self):
        vol = self._volume(status='creating')
        exc = self.assertRaises(exception.InvalidVolume,
                                attachment_db.attachment_reserve,
                                self.context, vol.id, 'i1')
        self.assertIn('creating', str(exc))

    def test_max_attachments(self):
        vol = self._volume(multiattach=True)
        for i in range(2):
            attachment_db.attachment_reserve(self.context, vol.id, 'i%d' % i,
                                             max_attachments=2)
        exc = self.assertRaises(exception.InvalidVolume,
                                attachment_db.attachment_reserve,
                                self.context, vol.id, 'i9',
                                max_attachments=2)
        self.assertIn('max_attachments', str(exc))

    def test_list_filters_and_project(self):
        vol = self._volume(multiattach=True)
        for i in range(3):
            attachment_db.attachment_reserve(self.context, vol.id, 'i%d' % i)
        self.assertEqual(3, len(attachment_db.attachment_get_all(
            self.context, 'fake-project', {'volume_id': vol.id})))
        self.assertEqual(1, len(attachment_db.attachment_get_all(
            self.context, 'fake-project', {'instance_id': 'i1'})))
        self.assertEqual([], attachment_db.attachment_get_all(
            self.context, 'other-project'))
        page = attachment_db.attachment_get_all(self.context, limit=2)
        rest = attachment_db.attachment_get_all(self.context,
                                                marker=page[-1].id)
        self.assertEqual(3, len(page) + len(rest))


class AttachmentReadOnceTestCase(base.DBTestCase):
    """Transitions given the attachment the request read earlier."""

    def setUp(self):
        super().setUp()
        self.volume = self.make_shared_volume('default')

    def _status(self):
        vol = volume_db.volume_get(self.context, self.volume.id)
        return vol.status, vol.attach_count

    def test_attachment_and_volume_in_one_query(self):
        att = attachment_db.attachment_reserve(self.context, self.volume.id,
                                               'i1', attach_mode='ro')
        attachment, volume = attachment_db.attachment_and_volume_get(
            self.context, att.id)
        self.assertEqual((att.id, 'ro', 'i1'), (
            attachment.id, attachment.attach_mode, attachment.instance_uuid))
        self.assertEqual((self.volume.id, 'fake-project', 1), (
            volume.id, volume.project_id, volume.attach_count))
        self.assertEqual(attachment.volume_id, volume.id)
        self.assertEqual(att.id, attachment_db.attachment_and_volume_get(
            self.context, att.id, 'fake-project')[0].id)
        self.assertRaises(exception.VolumeAttachmentNotFound,
                          attachment_db.attachment_and_volume_get,
                          self.context, att.id, 'other-project')
        self.assertRaises(exception.VolumeAttachmentNotFound,
                          attachment_db.attachment_and_volume_get,
                          self.context, 'missing')

    def test_transition_of_a_volume_not_attachable_changes_nothing(self):
        # Reserved -> attaching leaves the live count as it is: on SQLite
        # the volume row is not locked first, and the refusal is the same.
        att = attachment_db.attachment_reserve(self.context, self.volume.id,
                                               'i1')
        volume_db.volume_update(self.context, self.volume.id,
                                {'status': 'extending'})
        exc = self.assertRaises(
            exception.InvalidVolume, attachment_db.attachment_update,
            self.context, att.id, {'attach_status': 'attaching'},
            expected_status='reserved')
        self.assertIn('is extending', str(exc))
        self.assertEqual('reserved', attachment_db.attachment_get(
            self.context, att.id).attach_status)
        self.assertEqual(('extending', 1), self._status())

    def test_volume_not_attachable_comes_before_a_lost_swap(self):
        connected = attachment_db.attachment_reserve(
            self.context, self.volume.id, 'i1')
        attachment_db.attachment_update(
            self.context, connected.id,
            {'attach_status': 'attaching', 'attached_host': 'h1'})
        att = attachment_db.attachment_reserve(self.context, self.volume.id,
                                               'i1')
        volume_db.volume_update(self.context, self.volume.id,
                                {'status': 'extending'})
        # The swap would be refused too (i1 is connected on h1): the
        # volume's status is the answer, as when its row is locked first.
        self.assertRaises(exception.InvalidVolume,
                          attachment_db.attachment_update, self.context,
                          att.id, {'attach_status': 'attaching'},
                          expected_status='reserved',
                          not_connected_elsewhere='h1')

    def test_check_sees_both_before_anything_is_written(self):
        att = attachment_db.attachment_reserve(self.context, self.volume.id,
                                               'i1')
        seen = []

        def check(attachment, volume):
            seen.append((attachment.attach_status, volume.id,
                         volume.status))

        updated = attachment_db.attachment_update(
            self.context, att.id, {'attach_status': 'attaching'},
            expected_status='reserved', project_id='fake-project',
            check=check)
        self.assertEqual([('reserved', self.volume.id, 'reserved')], seen)
        self.assertEqual('attaching', updated.attach_status)

    def test_check_refusing_changes_nothing(self):
        att = attachment_db.attachment_reserve(self.context, self.volume.id,
                                               'i1')

        def check(attachment, volume):
            raise exception.PolicyNotAuthorized(action='test')

        self.assertRaises(exception.PolicyNotAuthorized,
                          attachment_db.attachment_update, self.context,
                          att.id, {'attach_status': 'attaching'},
                          check=check)
        self.assertEqual('reserved', attachment_db.attachment_get(
            self.context, att.id).attach_status)
        self.assertEqual(('reserved', 1), self._status())

    def test_check_of_another_projects_attachment_is_not_found(self):
        att = attachment_db.attachment_reserve(self.context, self.volume.id,
                                               'i1')
        checked = []
        self.assertRaises(exception.VolumeAttachmentNotFound,
                          attachment_db.attachment_update, self.context,
                          att.id, {'attach_status': 'attaching'},
                          project_id='other-project', check=checked.append)
        self.assertEqual([], checked)
        self.assertEqual('reserved', attachment_db.attachment_get(
            self.context, att.id).attach_status)

    def test_others(self):
        first, second, third = [
            attachment_db.attachment_reserve(self.context, self.volume.id,
                                             'i%d' % i) for i in range(3)]
        attachment_db.attachment_destroy(self.context, third.id)
        self.assertEqual([first.id], [
            a.id for a in attachment_db.attachment_get_others(
                self.context, self.volume.id, second.id)])

    def test_last_live_attachment_frees_the_reservation(self):
        att = attachment_db.attachment_reserve(self.context, self.volume.id,
                                               'i1')
        other = attachment_db.attachment_reserve(self.context,
                                                 self.volume.id, 'i1')
        attachment_db.attachment_destroy(self.context, att.id)
        self.assertEqual('i1', volume_db.volume_get(
            self.context, self.volume.id).reserved_instance_uuid)
        attachment_db.attachment_destroy(self.context, other.id)
        self.assertIsNone(volume_db.volume_get(
            self.context, self.volume.id).reserved_instance_uuid)


class FinishExtendTestCase(base.DBTestCase):
    """volume_finish_extend: the volume and its attachments' records in
    one transaction (the flow's tests run it with the rest)."""

    def setUp(self):
        super().setUp()
        self.volume = self.make_shared_volume('default')

    def _attach(self, instance, connection_info=None, status='attached',
                reason=None):
        att = attachment_db.attachment_reserve(self.context, self.volume.id,
                                               instance)
        values = {'attach_status': status, 'error_reason': reason}
        if connection_info is not None:
            values['connection_info'] = connection_info
        attachment_db.attachment_update(self.context, att.id, values)
        return att.id

    def _get(self, attachment_id):
        return attachment_db.attachment_get(self.context, attachment_id)

    def test_records_and_reasons(self):
        nested = self._attach('i1', {'driver_volume_type': 'file',
                                     'data': {'path': '/p',
                                              'volume_size': 1}})
        old_reason = self._attach(
            'i2', {'driver_volume_type': 'nbd', 'data': None},
            reason='extend to 2 GiB not seen by instance i2 on host h: x')
        other_reason = self._attach('i3', reason='fenced by an admin')
        reserved = self._attach('i4', status='reserved')
        volume_db.volume_update(self.context, self.volume.id,
                                {'status': 'extending', 'target_size': 3})
        status = attachment_db.volume_finish_extend(
            self.context, self.volume.id, 3, {other_reason: 'extend to 3'},
            'summary')
        self.assertEqual('in-use', status)
        volume = volume_db.volume_get(self.context, self.volume.id)
        self.assertEqual((3, 'in-use', 'summary', None),
                         (volume.size, volume.status, volume.error_reason,
                          volume.target_size))
        self.assertEqual(
            {'driver_volume_type': 'file',
             'data': {'path': '/p', 'volume_size': 3}},
            self._get(nested).connection_info)
        self.assertEqual(
            {'driver_volume_type': 'nbd', 'data': {'volume_size': 3}},
            self._get(old_reason).connection_info)
        # An earlier extend's reason goes; another reason stays unless
        # this extend has one of its own.
        self.assertIsNone(self._get(old_reason).error_reason)
        self.assertEqual('extend to 3', self._get(other_reason).error_reason)
        self.assertIsNone(self._get(other_reason).connection_info)
        self.assertEqual('reserved', self._get(reserved).attach_status)

    def test_only_from_extending(self):
        self.assertRaises(exception.Conflict,
                          attachment_db.volume_finish_extend, self.context,
                          self.volume.id, 3)
        self.assertEqual(1, volume_db.volume_get(self.context,
                                                 self.volume.id).size)

    def test_size_needs_a_data_object(self):
        for text in (None, '', 'not json', '[1]',
                     '{"driver_volume_type": "x", "data": [1]}'):
            self.assertEqual(text, attachment_db._with_size(text, 2))
        same = '{"data": {"volume_size": 2}}'
        self.assertIs(same, attachment_db._with_size(same, 2))
