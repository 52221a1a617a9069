"""Tests of the volume type schemas themselves (behaviour over HTTP is in
tests/unit/api/v3/test_types.py)."""

import testtools

from cinder_ma.api.schemas import types
from cinder_ma.api import validation


class TestSchemas(testtools.TestCase):

    def test_valid_schemas(self):
        for schema in (types.create, types.update, types.extra_specs_create,
                       types.extra_spec_update):
            validation.Validator.check_schema(schema)

    def test_extra_spec_values_may_be_null(self):
        validation.validate(types.extra_specs_create,
                            {'extra_specs': {'a': None, 'b:c': 'x'}})
        validation.validate(types.create, {'volume_type': {
            'name': 'n', 'extra_specs': {'with space': 'x'}}})
        self.assertRaises(validation.ValidationError, validation.validate,
                          types.extra_specs_create,
                          {'extra_specs': {'with space': 'x'}})
