"""Tests of volume types and extra specs rules."""

from cinder_ma import context as cm_context
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
                         vtypes.get_extra_specs(self.context, vtype.id))
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
