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

"""Tests of the volume action schemas themselves (behaviour over HTTP is
in tests/unit/api/v3/test_volume_actions.py)."""


from cinder_ma.api.schemas import volume_actions
from cinder_ma.api import validation
from tests import base

ALL = (volume_actions.attach, volume_actions.detach,
       volume_actions.force_detach, volume_actions.any_value,
       volume_actions.begin_detaching_v350,
       volume_actions.roll_detaching_v350,
       volume_actions.extend_volume_completion)


class TestSchemas(base.BaseTestCase):

    def test_valid_schemas(self):
        for schema in ALL:
            validation.Validator.check_schema(schema)

    def test_attach_needs_a_target(self):
        validation.validate(volume_actions.attach, {'os-attach': {
            'host_name': 'h', 'mountpoint': '/mnt'}})
        self.assertRaises(validation.ValidationError, validation.validate,
                          volume_actions.attach,
                          {'os-attach': {'mountpoint': '/mnt'}})

    def test_attachment_id_of_detaching(self):
        for schema, key in (
                (volume_actions.begin_detaching_v350, 'os-begin_detaching'),
                (volume_actions.roll_detaching_v350, 'os-roll_detaching')):
            validation.validate(schema, {key: None})
            validation.validate(schema, {key: {}})
            # Other keys are ignored, as Cinder ignores them.
            validation.validate(schema, {key: {'whatever': 1}})
            validation.validate(schema, {key: {
                'cinder-ma-multiattach:attachment_id': None}})
            self.assertRaises(validation.ValidationError,
                              validation.validate, schema,
                              {key: {'cinder-ma-multiattach:attachment_id':
                                     'x'}})
            # The former 3.55 form: a 400 naming the extension field.
            exc = self.assertRaises(
                validation.ValidationError, validation.validate, schema,
                {key: {'attachment_id':
                       '6a1d3d4c-3f4e-4b6f-9a53-1d5f6b1a2c3d'}})
            self.assertIn('cinder-ma-multiattach:attachment_id', str(exc))
            # The schema of one action does not take another's key.
            self.assertRaises(validation.ValidationError,
                              validation.validate, schema,
                              {'os-detach': None})

    def test_extend_volume_completion(self):
        schema = volume_actions.extend_volume_completion
        for value in (None, {}, {'error': True}, {'error': 'false'}):
            validation.validate(schema,
                                {'os-extend_volume_completion': value})
        for value in ({'error': 'maybe'}, {'other': 1}):
            self.assertRaises(validation.ValidationError,
                              validation.validate, schema,
                              {'os-extend_volume_completion': value})
