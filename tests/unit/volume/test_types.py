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

"""Tests of volume types and extra specs rules."""

from cinder_ma import context as cm_context
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.volume import types as vtypes
from tests import base


class TypesTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.default = vtypes.ensure_default_type(self.admin_context)

    def test_ensure_default_is_idempotent(self):
        again = vtypes.ensure_default_type(self.admin_context)
        self.assertEqual(self.default.id, again.id)
        self.assertEqual(self.default.id,
                         vtypes.get_type(self.context, 'default').id)

    def test_member_cannot_manage(self):
        self.assertRaises(exception.PolicyNotAuthorized, vtypes.create_type,
                          self.context, 'x')
        vtype = vtypes.create_type(self.admin_context, 'x')
        self.assertRaises(exception.PolicyNotAuthorized,
                          vtypes.update_extra_specs, self.context, vtype.id,
                          {'a': 'b'})
        self.assertRaises(exception.PolicyNotAuthorized, vtypes.delete_type,
                          self.context, vtype.id)

    def test_crud_and_specs(self):
        vtype = vtypes.create_type(self.admin_context, 'gold', 'fast',
                                   extra_specs={'multiattach': '<is> True'})
        self.assertTrue(vtypes.is_multiattach(vtypes.specs_of(vtype)))
        self.assertRaises(exception.VolumeTypeExists, vtypes.create_type,
                          self.admin_context, 'gold')
        vtypes.update_extra_specs(self.admin_context, vtype.id,
                                  {'volume_backend_name': 'b'})
        self.assertEqual({'multiattach': '<is> True',
                          'volume_backend_name': 'b'},
                         vtypes.get_extra_specs(self.admin_context,
                                                vtype.id))
        # Members see the user-visible specs only (read_sensitive).
        self.assertEqual({'multiattach': '<is> True'},
                         vtypes.get_extra_specs(self.context, vtype.id))
        self.assertRaises(exception.VolumeTypeExtraSpecsNotFound,
                          vtypes.get_extra_spec, self.context, vtype.id,
                          'volume_backend_name')
        vtypes.delete_extra_spec(self.admin_context, vtype.id, 'multiattach')
        self.assertRaises(exception.VolumeTypeExtraSpecsNotFound,
                          vtypes.get_extra_spec, self.context, vtype.id,
                          'multiattach')
        vtype = vtypes.update_type(self.admin_context, vtype.id,
                                   name='platinum')
        self.assertEqual('platinum', vtype.name)
        vtypes.delete_type(self.admin_context, vtype.id)
        self.assertRaises(exception.VolumeTypeNotFound, vtypes.get_type,
                          self.context, vtype.id)

    def test_default_type_protected(self):
        self.assertRaises(exception.InvalidVolumeType, vtypes.delete_type,
                          self.admin_context, self.default.id)
        self.assertRaises(exception.InvalidVolumeType, vtypes.update_type,
                          self.admin_context, self.default.id, name='n')

    def test_private_types_hidden_from_projects(self):
        private = vtypes.create_type(self.admin_context, 'private',
                                     is_public=False)
        names = [t.name for t in vtypes.list_types(self.context)]
        self.assertNotIn('private', names)
        self.assertIn('private', [t.name for t in vtypes.list_types(
            self.admin_context)])
        self.assertRaises(exception.VolumeTypeNotFound, vtypes.get_type,
                          self.context, private.id)
        self.assertRaises(exception.VolumeTypeNotFound, vtypes.find_type,
                          self.context, 'private')

    def test_specs_must_be_strings(self):
        self.assertRaises(exception.InvalidInput, vtypes.create_type,
                          self.admin_context, 'bad',
                          extra_specs={'multiattach': True})

    def test_reader_sees_public_types(self):
        reader = cm_context.RequestContext(user_id='u', roles=['reader'],
                                           project_id='p')
        self.assertEqual(['__DEFAULT__'],
                         [t.name for t in vtypes.list_types(reader)])

    def test_audience(self):
        specs = {'multiattach': '<is> True', 'secret': 'x'}
        admin = vtypes.audience(self.admin_context)
        self.assertTrue(admin.is_admin)
        self.assertTrue(admin.sees_extra_specs)
        self.assertEqual(specs, admin.shown_specs(specs))
        member = vtypes.audience(self.context)
        self.assertFalse(member.is_admin)
        self.assertEqual(
            (member.sees_extra_specs, member.sees_sensitive_specs),
            (bool(vtypes.can_see_extra_specs(self.context)),
             vtypes.sees_sensitive_specs(self.context)))
        self.assertEqual({'multiattach': '<is> True'},
                         vtypes.Audience(False, True, False).shown_specs(
                             specs))


class TypeAccessEncryptionTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        vtypes.ensure_default_type(self.admin_context)

    def test_private_type_access(self):
        private = vtypes.create_type(self.admin_context, 'private',
                                     is_public=False)
        self.assertRaises(exception.PolicyNotAuthorized,
                          vtypes.add_type_access, self.context, private.id,
                          'fake-project')
        vtypes.add_type_access(self.admin_context, private.id,
                               'fake-project')
        self.assertRaises(exception.VolumeTypeAccessExists,
                          vtypes.add_type_access, self.admin_context,
                          private.id, 'fake-project')
        self.assertEqual(['fake-project'], vtypes.list_type_access(
            self.admin_context, private.id))
        self.assertIn('private',
                      [t.name for t in vtypes.list_types(self.context)])
        self.assertEqual(private.id,
                         vtypes.find_type(self.context, 'private').id)
        vtypes.remove_type_access(self.admin_context, private.id,
                                  'fake-project')
        self.assertNotIn('private',
                         [t.name for t in vtypes.list_types(self.context)])
        self.assertRaises(exception.VolumeTypeAccessNotFound,
                          vtypes.remove_type_access, self.admin_context,
                          private.id, 'fake-project')

    def test_public_type_has_no_access_list(self):
        public = vtypes.create_type(self.admin_context, 'public')
        self.assertRaises(exception.InvalidVolumeType,
                          vtypes.add_type_access, self.admin_context,
                          public.id, 'p')

    def test_encryption_crud(self):
        vtype = vtypes.create_type(self.admin_context, 'enc')
        self.assertIsNone(vtypes.get_encryption(self.admin_context,
                                                vtype.id))
        enc = vtypes.create_encryption(
            self.admin_context, vtype.id,
            {'provider': 'luks', 'cipher': 'aes-xts-plain64',
             'key_size': 256})
        self.assertEqual('front-end', enc.control_location)
        enc = vtypes.update_encryption(self.admin_context, vtype.id,
                                       {'key_size': 512})
        self.assertEqual(512, enc.key_size)
        self.assertRaises(exception.InvalidInput, vtypes.update_encryption,
                          self.admin_context, vtype.id,
                          {'control_location': 'middle'})
        vtypes.delete_encryption(self.admin_context, vtype.id)
        self.assertIsNone(vtypes.get_encryption(self.admin_context,
                                                vtype.id))

    def test_multiattach_and_encryption_exclusive(self):
        shared = vtypes.create_type(
            self.admin_context, 'shared',
            extra_specs={'multiattach': '<is> True'})
        exc = self.assertRaises(exception.InvalidVolumeType,
                                vtypes.create_encryption,
                                self.admin_context, shared.id,
                                {'provider': 'luks'})
        self.assertIn('multiattach', str(exc))
        enc = vtypes.create_type(self.admin_context, 'enc')
        vtypes.create_encryption(self.admin_context, enc.id,
                                 {'provider': 'luks'})
        exc = self.assertRaises(exception.InvalidVolumeType,
                                vtypes.update_extra_specs,
                                self.admin_context, enc.id,
                                {'multiattach': '<is> True'})
        self.assertIn('encrypted', str(exc))

    def test_encryption_refused_while_type_in_use(self):
        vtype = vtypes.create_type(self.admin_context, 'busy')
        volume_db.volume_create(self.admin_context, {
            'project_id': 'p', 'size': 1, 'status': 'available',
            'volume_type_id': vtype.id})
        exc = self.assertRaises(exception.VolumeTypeEncryptionInUse,
                                vtypes.create_encryption,
                                self.admin_context, vtype.id,
                                {'provider': 'luks'})
        self.assertEqual(400, exc.code)
