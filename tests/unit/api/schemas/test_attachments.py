"""Tests of the attachment schemas themselves (behaviour over HTTP is in
tests/unit/api/v3/test_attachments.py)."""

import testtools

from cinder_ma.api.schemas import attachments
from cinder_ma.api import validation
from cinder_ma.volume import attachments as volume_attachments

ALL = (attachments.create, attachments.create_v354,
       attachments.create_v355, attachments.update)


def _inner(schema):
    return schema['properties']['attachment']['properties']


class TestSchemas(testtools.TestCase):

    def test_valid_schemas(self):
        for schema in ALL:
            validation.Validator.check_schema(schema)

    def test_versions_differ_only_where_intended(self):
        self.assertEqual({'volume_uuid', 'instance_uuid', 'connector'},
                         set(_inner(attachments.create)))
        self.assertEqual(set(_inner(attachments.create)) | {'mode'},
                         set(_inner(attachments.create_v354)))
        self.assertEqual(set(_inner(attachments.create_v354)) |
                         {'instance_host'},
                         set(_inner(attachments.create_v355)))

    def test_modes_are_the_services(self):
        self.assertEqual(list(volume_attachments.MODES),
                         attachments.mode['enum'])

    def test_minimal_bodies(self):
        volume = '6a1d3d4c-3f4e-4b6f-9a53-1d5f6b1a2c3d'
        for schema in ALL[:3]:
            validation.validate(schema, {'attachment': {
                'volume_uuid': volume}})
            validation.validate(schema, {'attachment': {
                'volume_uuid': volume, 'instance_uuid': None,
                'connector': None}})
        validation.validate(attachments.update, {'attachment': {
            'connector': {'host': 'h'}}})
