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

"""Tests of cinder_ma.db.types on the SQLite file database."""

from cinder_ma.db import records
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from tests import base


class VolumeTypeDBTestCase(base.DBTestCase):

    def test_create_get_and_duplicate_name(self):
        vtype = type_db.volume_type_create(
            self.context, {'name': 'gold'}, extra_specs={'k': 'v'})
        self.assertEqual('gold', type_db.volume_type_get(
            self.context, vtype.id).name)
        self.assertEqual(vtype.id, type_db.volume_type_find(
            self.context, name='gold').id)
        self.assertEqual({'k': 'v'}, type_db.volume_type_extra_specs_get(
            self.context, vtype.id))
        self.assertRaises(exception.VolumeTypeExists,
                          type_db.volume_type_create, self.context,
                          {'name': 'gold'})

    def test_extra_specs_update_and_delete(self):
        vtype = type_db.volume_type_create(self.context, {'name': 't'})
        self.assertEqual({'a': '1', 'b': '2'},
                         type_db.volume_type_extra_specs_update_or_create(
                             self.context, vtype.id, {'a': '1', 'b': '2'}))
        type_db.volume_type_extra_specs_update_or_create(
            self.context, vtype.id, {'a': '3'})
        type_db.volume_type_extra_specs_delete(self.context, vtype.id, 'b')
        self.assertEqual({'a': '3'}, type_db.volume_type_extra_specs_get(
            self.context, vtype.id))
        self.assertRaises(exception.VolumeTypeExtraSpecsNotFound,
                          type_db.volume_type_extra_specs_delete,
                          self.context, vtype.id, 'b')

    def test_access_is_listed_once(self):
        vtype = type_db.volume_type_create(
            self.context, {'name': 'private', 'is_public': False})
        type_db.volume_type_access_add(self.context, vtype.id, 'p1')
        self.assertRaises(exception.VolumeTypeAccessExists,
                          type_db.volume_type_access_add, self.context,
                          vtype.id, 'p1')
        self.assertEqual(['p1'], type_db.volume_type_access_get_all(
            self.context, vtype.id))
        type_db.volume_type_access_remove(self.context, vtype.id, 'p1')
        self.assertEqual([], type_db.volume_type_access_get_all(
            self.context, vtype.id))

    def test_type_in_use_is_not_destroyed(self):
        vtype = type_db.volume_type_create(self.context, {'name': 'used'})
        volume = volume_db.volume_create(self.context, {
            'project_id': 'fake-project', 'size': 1, 'status': 'available',
            'volume_type_id': vtype.id})
        self.assertRaises(exception.VolumeTypeInUse,
                          type_db.volume_type_destroy, self.context,
                          vtype.id)
        volume_db.volume_destroy(self.context, volume.id)
        type_db.volume_type_destroy(self.context, vtype.id)
        self.assertRaises(exception.VolumeTypeNotFound,
                          type_db.volume_type_get, self.context, vtype.id)

    def test_find_reads_what_a_volume_needs(self):
        vtype = type_db.volume_type_create(
            self.context, {'name': 'private', 'is_public': False},
            extra_specs={'multiattach': '<is> True',
                         'multiattach:writers': 'one', 'gone': 'x'})
        type_db.volume_type_extra_specs_delete(self.context, vtype.id,
                                               'gone')
        type_db.volume_type_access_add(self.context, vtype.id, 'p1')
        type_db.volume_type_access_add(self.context, vtype.id, 'p2')
        type_db.volume_type_access_remove(self.context, vtype.id, 'p2')
        full = type_db.volume_type_get(self.context, vtype.id)
        # The type, its live specs, the access of the project asked
        # about, no encryption.
        expected = full.replace(projects=('p1',))
        self.assertEqual(('p1',), full.projects)
        self.assertEqual(
            {'multiattach': '<is> True', 'multiattach:writers': 'one'},
            expected.extra_specs)
        self.assertEqual(expected, type_db.volume_type_find(
            self.context, type_id=vtype.id, project_id='p1'))
        self.assertEqual(expected, type_db.volume_type_find(
            self.context, name='private', project_id='p1'))
        # Access of another project, a removed one, or none asked for.
        for project_id in ('p2', 'p3', None):
            self.assertEqual((), type_db.volume_type_find(
                self.context, name='private',
                project_id=project_id).projects)
        self.assertEqual('one', expected.writers_spec)
        self.assertFalse(expected.encrypted)

    def test_find_without_specs_and_encrypted(self):
        vtype = type_db.volume_type_create(self.context, {'name': 'plain'})
        found = type_db.volume_type_find(self.context, name='plain')
        self.assertIsInstance(found, records.VolumeType)
        self.assertEqual((vtype.id, 'plain', True, {}, (), None),
                         (found.id, found.name, found.is_public,
                          found.extra_specs, found.projects,
                          found.encryption))
        self.assertIsNone(found.writers_spec)
        encryption = type_db.volume_type_encryption_create(
            self.context, vtype.id,
            {'provider': 'luks', 'control_location': 'front-end'})
        self.assertIsInstance(encryption, records.Encryption)
        found = type_db.volume_type_find(self.context, type_id=vtype.id)
        self.assertTrue(found.encrypted)
        self.assertEqual(encryption, found.encryption)
        type_db.volume_type_encryption_delete(self.context, vtype.id)
        self.assertFalse(type_db.volume_type_find(
            self.context, type_id=vtype.id).encrypted)

    def test_find_not_found(self):
        vtype = type_db.volume_type_create(self.context, {'name': 'old'})
        type_db.volume_type_destroy(self.context, vtype.id)
        self.assertRaises(exception.VolumeTypeNotFoundByName,
                          type_db.volume_type_find, self.context,
                          name='old')
        self.assertRaises(exception.VolumeTypeNotFound,
                          type_db.volume_type_find, self.context,
                          type_id=vtype.id)

    def test_list_filters_and_pages(self):
        gold = type_db.volume_type_create(self.context, {'name': 'gold'},
                                          extra_specs={'k': 'v'})
        type_db.volume_type_create(self.context, {'name': 'iron'},
                                   extra_specs={'k': 'v'})
        private = type_db.volume_type_create(
            self.context, {'name': 'private', 'is_public': False})
        type_db.volume_type_access_add(self.context, private.id, 'p1')
        type_db.volume_type_extra_specs_delete(self.context, gold.id, 'k')
        everything = type_db.volume_type_get_all(self.context)
        self.assertEqual(['gold', 'iron', 'private'],
                         [vtype.name for vtype in everything])
        # Records with their extra specs; projects and encryption not
        # read.
        self.assertIsInstance(everything[1], records.VolumeType)
        self.assertEqual(({}, {'k': 'v'}, {}),
                         tuple(vtype.extra_specs for vtype in everything))
        self.assertIsNone(everything[0].projects)
        # A deleted spec does not match.
        self.assertEqual(['iron'], [vtype.name for vtype in
                                    type_db.volume_type_get_all(
                                        self.context,
                                        {'extra_specs': {'k': 'v'}})])
        for project_id, names in (('p1', ['gold', 'iron', 'private']),
                                  ('p2', ['gold', 'iron'])):
            self.assertEqual(names, [vtype.name for vtype in
                                     type_db.volume_type_get_all(
                                         self.context, {
                                             'visible_to_project':
                                                 project_id})])
        page = type_db.volume_type_get_all(self.context, marker=gold.id,
                                           limit=1)
        self.assertEqual(['iron'], [vtype.name for vtype in page])
        self.assertRaises(exception.MarkerNotFound,
                          type_db.volume_type_get_all, self.context,
                          marker='no-such-type')
