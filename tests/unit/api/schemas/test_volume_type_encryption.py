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

"""Tests of the encryption schemas of volume types."""


from cinder_ma.api.schemas import parameter_types
from cinder_ma.api.schemas import volume_type_encryption as schemas
from cinder_ma.api import validation
from tests import base


class TestKeySize(base.BaseTestCase):

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
