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

"""Tests of the volume type schemas themselves (behaviour over HTTP is in
tests/unit/api/v3/test_types.py)."""


from cinder_ma.api.schemas import types
from cinder_ma.api import validation
from tests import base


class TestSchemas(base.BaseTestCase):

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
