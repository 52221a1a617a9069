"""Tests of attachment reservations and transitions (SQLite file DB)."""

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma import exception
from tests import base


class AttachmentDBTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.vtype = db_api.volume_type_create(self.context,
                                               {'name': 'default'})

    def _volume(self, multiattach=False, status='available'):
        return db_api.volume_create(self.context, {
            'project_id': 'fake-project', 'size': 1, 'status': status,
            'volume_type_id': self.vtype.id, 'multiattach': multiattach})

    def _status(self, volume_id):
        vol = db_api.volume_get(self.context, volume_id)
        return vol.status, vol.attach_count

    def test_single_attach_volume(self):
        vol = self._volume()
        att = attachment_db.attachment_reserve(self.context, vol.id, 'i1')
        self.assertEqual('reserved', att.attach_status)
        self.assertEqual(('attaching', 1), self._status(vol.id))
        exc = self.assertRaises(exception.InvalidVolume,
                                attachment_db.attachment_reserve,
                                self.context, vol.id, 'i2')
        self.assertIn('not multiattach', str(exc))
        self.assertIn('i1', str(exc))
        # The same instance may reserve again (live migration).
        second = attachment_db.attachment_reserve(self.context, vol.id, 'i1')
        self.assertEqual(('attaching', 2), self._status(vol.id))
        attachment_db.attachment_destroy(self.context, second.id)
        attachment_db.attachment_destroy(self.context, att.id)
        self.assertEqual(('available', 0), self._status(vol.id))
        # Free again: another instance may take it now.
        attachment_db.attachment_reserve(self.context, vol.id, 'i2')

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

    def test_expected_status_conflict(self):
        vol = self._volume()
        att = attachment_db.attachment_reserve(self.context, vol.id, 'i1')
        exc = self.assertRaises(exception.Conflict,
                                attachment_db.attachment_update,
                                self.context, att.id,
                                {'attach_status': 'attached'},
                                expected_status='attaching')
        self.assertIn('reserved', str(exc))
        self.assertEqual(('attaching', 1), self._status(vol.id))

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
