"""Tests of the encryption schemas of volume types."""

import testtools

from cinder_ma.api.schemas import parameter_types
from cinder_ma.api.schemas import volume_type_encryption as schemas
from cinder_ma.api import validation


class TestKeySize(testtools.TestCase):

    def _body(self, key_size):
        return {'encryption': {'provider': 'luks',
                               'control_location': 'front-end',
                               'key_size': key_size}}

    def test_bounded_by_its_column(self):
        for schema in (schemas.create, schemas.update):
            for good in (None, 0, 256, '512', parameter_types.MAX_INT):
                validation.validate(schema, self._body(good))
            for bad in (parameter_types.MAX_INT + 1, 2 ** 62, -1,
                        '9' * 30, '1' * 5000, 'x'):
                self.assertRaises(validation.ValidationError,
                                  validation.validate, schema,
                                  self._body(bad))
