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

"""Tests of the attachment schemas themselves (behaviour over HTTP is in
tests/unit/api/v3/test_attachments.py)."""


from cinder_ma.api.schemas import attachments
from cinder_ma.api import validation
from cinder_ma.volume import attachments as volume_attachments
from tests import base

ALL = (attachments.create, attachments.create_v354, attachments.update)


def _inner(schema):
    return schema['properties']['attachment']['properties']


class TestSchemas(base.BaseTestCase):

    def test_valid_schemas(self):
        for schema in ALL:
            validation.Validator.check_schema(schema)

    def test_versions_differ_only_where_intended(self):
        # instance_host: cinder_ma's former 3.55 form, only to refuse it
        # with a message.
        self.assertEqual({'volume_uuid', 'instance_uuid', 'connector',
                          'instance_host'},
                         set(_inner(attachments.create)))
        self.assertEqual(set(_inner(attachments.create)) |
                         {'mode', 'cinder-ma-manager-attach:instance_host'},
                         set(_inner(attachments.create_v354)))

    def test_old_instance_host_names_the_extension(self):
        volume = '6a1d3d4c-3f4e-4b6f-9a53-1d5f6b1a2c3d'
        for schema in (attachments.create, attachments.create_v354):
            exc = self.assertRaises(
                validation.ValidationError, validation.validate, schema,
                {'attachment': {'volume_uuid': volume,
                                'instance_host': 'compute1'}})
            self.assertIn('cinder-ma-manager-attach:instance_host',
                          str(exc))

    def test_modes_are_the_services(self):
        self.assertEqual(list(volume_attachments.MODES),
                         attachments.mode['enum'])

    def test_minimal_bodies(self):
        volume = '6a1d3d4c-3f4e-4b6f-9a53-1d5f6b1a2c3d'
        for schema in ALL[:2]:
            validation.validate(schema, {'attachment': {
                'volume_uuid': volume}})
            validation.validate(schema, {'attachment': {
                'volume_uuid': volume, 'instance_uuid': None,
                'connector': None}})
        validation.validate(attachments.update, {'attachment': {
            'connector': {'host': 'h'}}})


class TestConnector(base.BaseTestCase):
    """Connectors as os-brick makes them pass; wrong types do not."""

    OS_BRICK = {
        'platform': 'x86_64', 'os_type': 'linux', 'ip': '192.0.2.10',
        'host': 'compute1', 'multipath': False,
        'initiator': 'iqn.1994-05.com.redhat:abc', 'do_local_attach': False,
        'uuid': '6a1d3d4c-3f4e-4b6f-9a53-1d5f6b1a2c3d',
        'system uuid': '4C4C4544-0031', 'nqn': 'nqn.2014-08.org:uuid:1',
        'nvme_native_multipath': True, 'wwpns': ['100000109b1e2c3d'],
        'wwnns': ['200000109b1e2c3d'], 'host_ips': ['192.0.2.10'],
        'enforce_multipath': False, 'mountpoint': '/dev/vdb',
        'mode': 'rw', 'vendor_key': {'anything': [1, 'two']}}

    def _update(self, connector):
        validation.validate(attachments.update,
                            {'attachment': {'connector': connector}})

    def _create(self, connector):
        validation.validate(attachments.create, {'attachment': {
            'volume_uuid': '6a1d3d4c-3f4e-4b6f-9a53-1d5f6b1a2c3d',
            'connector': connector}})

    def test_os_brick_connectors_pass(self):
        self._update(self.OS_BRICK)
        self._update({'host': 'compute1'})
        self._update({'host': 'compute1', 'ip': None, 'multipath': 'true'})
        self._create(self.OS_BRICK)
        self._create(None)
        self._create({})

    def test_wrong_types_are_refused(self):
        for key, value in (
                ('host', 42), ('host', ['compute1']), ('host', ''),
                ('host', ' '), ('host', 'h' * 256), ('ip', {'v4': 1}),
                ('initiator', 12), ('wwpns', 'abc'), ('wwpns', [1, 2]),
                ('wwpns', [['a']]), ('wwpns', ['a'] * 129),
                ('multipath', 'maybe'), ('multipath', 2),
                ('do_local_attach', []), ('host_ips', [None]),
                ('platform', 'p' * 256)):
            connector = dict(self.OS_BRICK, **{key: value})
            for check in (self._update, self._create):
                error = self.assertRaises(validation.ValidationError,
                                          check, connector)
                self.assertIn(key, str(error))

    def test_update_needs_a_connector_object(self):
        for connector in ({}, None, [], 'compute1'):
            self.assertRaises(validation.ValidationError, self._update,
                              connector)
