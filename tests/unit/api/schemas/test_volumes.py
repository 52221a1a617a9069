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

"""Tests of the volume schemas themselves (behaviour over HTTP is in
tests/unit/api/v3/test_volumes.py)."""


from cinder_ma.api.schemas import volumes
from cinder_ma.api import validation
from tests import base

ALL = (volumes.create, volumes.create_v313, volumes.create_v347,
       volumes.create_v350, volumes.create_v353, volumes.update,
       volumes.update_v353)


class TestSchemas(base.BaseTestCase):

    def test_valid_schemas(self):
        for schema in ALL:
            validation.Validator.check_schema(schema)

    def test_versions_differ_only_where_intended(self):
        inner = lambda s: s['properties']['volume']  # noqa: E731
        self.assertNotIn('group_id', inner(volumes.create)['properties'])
        self.assertIn('group_id', inner(volumes.create_v313)['properties'])
        self.assertIn('backup_id', inner(volumes.create_v347)['properties'])
        self.assertNotIn('multiattach', inner(volumes.create_v347)[
            'refused'])
        self.assertIn('multiattach', inner(volumes.create_v350)['refused'])
        self.assertTrue(inner(volumes.create_v350)['additionalProperties'])
        self.assertFalse(inner(volumes.create_v353)['additionalProperties'])

    def test_legacy_multiattach(self):
        body = {'volume': {'size': 1, 'multiattach': 'true'}}
        validation.validate(volumes.create_v347, body)
        self.assertRaises(validation.ValidationError, validation.validate,
                          volumes.create_v350, body)
        validation.validate(volumes.create_v353,
                            {'volume': {'size': 1, 'multiattach': 'false'}})
