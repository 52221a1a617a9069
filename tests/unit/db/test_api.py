"""Tests of cinder_ma.db.api on the SQLite file database."""

from cinder_ma.db import api as db_api
from cinder_ma import exception
from tests import base


class VolumeDBTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.vtype = db_api.volume_type_create(self.context,
                                               {'name': 'default'})

    def _volume(self, **kw):
        values = {'project_id': 'fake-project', 'size': 1,
                  'status': 'creating', 'volume_type_id': self.vtype.id}
        values.update(kw)
        return db_api.volume_create(self.context, values)

    def test_create_get(self):
        vol = self._volume(metadata={'a': 'b'})
        got = db_api.volume_get(self.context, vol.id, 'fake-project')
        self.assertEqual({'a': 'b'},
                         {m.key: m.value for m in got.volume_metadata})
        self.assertEqual('default', got.volume_type.name)
        self.assertRaises(exception.VolumeNotFound, db_api.volume_get,
                          self.context, vol.id, 'other-project')

    def test_conditional_update(self):
        vol = self._volume()
        db_api.volume_update(self.context, vol.id, {'status': 'available'},
                             expected={'status': 'creating'})
        exc = self.assertRaises(
            exception.Conflict, db_api.volume_update, self.context, vol.id,
            {'status': 'available'}, expected={'status': 'creating'})
        self.assertIn('available', str(exc))

    def test_list_paging_and_filters(self):
        ids = [self._volume(name='v%d' % i).id for i in range(5)]
        page = db_api.volume_get_all(self.context, 'fake-project', limit=2,
                                     sort_keys=['name'], sort_dirs=['asc'])
        self.assertEqual(['v0', 'v1'], [v.name for v in page])
        page = db_api.volume_get_all(self.context, 'fake-project', limit=2,
                                     marker=page[-1].id,
                                     sort_keys=['name'], sort_dirs=['asc'])
        self.assertEqual(['v2', 'v3'], [v.name for v in page])
        self.assertEqual(1, len(db_api.volume_get_all(
            self.context, 'fake-project', filters={'name': 'v4'})))
        db_api.volume_destroy(self.context, ids[0])
        self.assertEqual(4, db_api.volume_count(self.context,
                                                'fake-project'))
