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

"""Tests of cinder_ma.db.volumes on the SQLite file database."""

import datetime

from cinder_ma.db import api as db_api
from cinder_ma.db import models
from cinder_ma.db import records
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from tests import base


class VolumeDBTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.vtype = type_db.volume_type_create(self.context,
                                                {'name': 'default'})

    def _volume(self, **kw):
        values = {'project_id': 'fake-project', 'size': 1,
                  'status': 'creating', 'volume_type_id': self.vtype.id}
        values.update(kw)
        return volume_db.volume_create(self.context, values)

    def test_create_get(self):
        vol = self._volume(metadata={'a': 'b'})
        got = volume_db.volume_get(self.context, vol.id, 'fake-project')
        self.assertEqual({'a': 'b'}, got.volume_metadata)
        self.assertEqual('default', got.volume_type.name)
        self.assertRaises(exception.VolumeNotFound, volume_db.volume_get,
                          self.context, vol.id, 'other-project')

    def _assert_created_as_read(self, **values):
        created = self._volume(**values)
        self.assertEqual(volume_db.volume_get(self.context, created.id),
                         created)
        return created

    def test_create_returns_the_volume_as_read_back(self):
        created = self._assert_created_as_read(
            name='n', metadata={'b': '1', 'a': '2', 'B': '3'})
        self.assertEqual(['B', 'a', 'b'], list(created.volume_metadata))
        self.assertEqual((), created.volume_attachment)
        self.assertEqual(
            type_db.volume_type_find(self.context,
                                     type_id=self.vtype.id).replace(
                projects=None, encryption=None),
            created.volume_type)
        self.assertEqual({}, created.volume_type.extra_specs)
        self.assertIsNotNone(created.created_at)
        self.assertIsNone(created.updated_at)

    def test_create_without_returning(self):
        # MySQL: no INSERT ... RETURNING; the row is read back.
        dialect = db_api.get_engine().dialect
        self.patch(dialect, 'insert_returning', False)
        self._assert_created_as_read(metadata={'k': 'v'})

    def test_create_with_the_callers_type(self):
        given = records.VolumeType(self.vtype.id, 'default',
                                   extra_specs={'multiattach:writers':
                                                'many'})
        created = volume_db.volume_create(self.context, {
            'project_id': 'fake-project', 'size': 1, 'status': 'creating',
            'volume_type_id': self.vtype.id}, volume_type=given)
        self.assertIs(given, created.volume_type)

    def test_conditional_update(self):
        vol = self._volume()
        volume_db.volume_update(self.context, vol.id, {'status': 'available'},
                                expected={'status': 'creating'})
        exc = self.assertRaises(
            exception.Conflict, volume_db.volume_update, self.context, vol.id,
            {'status': 'available'}, expected={'status': 'creating'})
        self.assertIn('available', str(exc))

    def _attachment(self, volume_id, minute, **values):
        row = {'id': 'att-%s-%d' % (volume_id[:8], minute),
               'volume_id': volume_id, 'instance_uuid': 'i%d' % minute,
               'attach_status': 'attached', 'attach_mode': 'rw',
               'attached_host': 'h', 'mountpoint': '/dev/vdb',
               'manager_host': 'm',
               'attach_time': datetime.datetime(2026, 1, 1, 0, minute),
               'created_at': datetime.datetime(2026, 1, 1, 0, minute)}
        row.update(values)
        with db_api.main_context_manager.writer.using(self.context):
            self.context.session.add(models.VolumeAttachment(**row))
        return row['id']

    def test_list_children(self):
        first = self._volume(name='a', metadata={'k': 'v', 'x': 'y'})
        second = self._volume(name='b')
        late = self._attachment(first.id, 30)
        early = self._attachment(first.id, 10, attach_status='reserved',
                                 attached_host=None, mountpoint=None)
        self._attachment(first.id, 20, deleted=True)
        other = self._attachment(second.id, 5)
        volume_db.volume_update(self.context, second.id, {},
                                metadata={'n': '1'})
        volume_db.volume_update(self.context, second.id, {},
                                metadata={'m': '2'})
        page = volume_db.volume_get_all(self.context, 'fake-project',
                                        sort_keys=['name'], sort_dirs=['asc'])
        self.assertEqual([first.id, second.id], [v.id for v in page])
        one, two = page
        self.assertEqual('default', one.volume_type.name)
        self.assertEqual('fake-project', one.project_id)
        self.assertEqual({'k': 'v', 'x': 'y'}, one.volume_metadata)
        self.assertEqual({'m': '2'}, two.volume_metadata)
        # Live attachments only, oldest first, with what views read.
        self.assertEqual([early, late],
                         [a.id for a in one.volume_attachment])
        attachment = one.volume_attachment[1]
        self.assertIsInstance(attachment, records.Attachment)
        listed = (late, first.id, 'i30', 'h', '/dev/vdb', 'rw', 'attached',
                  datetime.datetime(2026, 1, 1, 0, 30))
        self.assertEqual(listed, tuple(
            getattr(attachment, name)
            for name in records.LISTED_ATTACHMENT_FIELDS))
        # The other columns are not read for a page: None, or the
        # record's default.
        self.assertIsNone(attachment.manager_host)
        self.assertIsNone(attachment.connector)
        self.assertIsNone(attachment.created_at)
        self.assertEqual(1, attachment.generation)
        self.assertEqual([other], [a.id for a in two.volume_attachment])
        # Read alone, a volume's attachments have every column.
        whole = volume_db.volume_get(self.context, first.id)
        self.assertEqual(
            listed + ('m', datetime.datetime(2026, 1, 1, 0, 30)),
            tuple(getattr(whole.volume_attachment[1], name)
                  for name in records.LISTED_ATTACHMENT_FIELDS +
                  ('manager_host', 'created_at')))
        self.assertEqual([], volume_db.volume_get_all(self.context, 'nobody'))

    def test_list_paging_and_filters(self):
        ids = [self._volume(name='v%d' % i).id for i in range(5)]
        page = volume_db.volume_get_all(self.context, 'fake-project', limit=2,
                                        sort_keys=['name'], sort_dirs=['asc'])
        self.assertEqual(['v0', 'v1'], [v.name for v in page])
        page = volume_db.volume_get_all(self.context, 'fake-project', limit=2,
                                        marker=page[-1].id,
                                        sort_keys=['name'], sort_dirs=['asc'])
        self.assertEqual(['v2', 'v3'], [v.name for v in page])
        self.assertEqual(1, len(volume_db.volume_get_all(
            self.context, 'fake-project', filters={'name': 'v4'})))
        volume_db.volume_destroy(self.context, ids[0])
        self.assertEqual(4, volume_db.volume_count(self.context,
                                                   'fake-project'))
