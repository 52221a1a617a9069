"""Tests of the volume action schemas themselves (behaviour over HTTP is
in tests/unit/api/v3/test_volume_actions.py)."""

import testtools

from cinder_ma.api.schemas import volume_actions
from cinder_ma.api import validation

ALL = (volume_actions.attach, volume_actions.detach,
       volume_actions.force_detach, volume_actions.any_value,
       volume_actions.begin_detaching_v355,
       volume_actions.roll_detaching_v355)


class TestSchemas(testtools.TestCase):

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
                (volume_actions.begin_detaching_v355, 'os-begin_detaching'),
                (volume_actions.roll_detaching_v355, 'os-roll_detaching')):
            validation.validate(schema, {key: None})
            validation.validate(schema, {key: {}})
            self.assertRaises(validation.ValidationError,
                              validation.validate, schema,
                              {key: {'attachment_id': 'x'}})
            # The schema of one action does not take another's key.
            self.assertRaises(validation.ValidationError,
                              validation.validate, schema,
                              {'os-detach': None})
