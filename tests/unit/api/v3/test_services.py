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

"""Tests of the os-services API."""

import datetime

import jsonschema
from oslo_utils import timeutils

from cinder_ma.api import microversions as mv
from cinder_ma.db import services as service_db
from cinder_ma.db import volumes as volume_db
from tests.unit.api import base

# Response schemas of Cinder's os-services actions, as Tempest holds
# Cinder to them (no other keys allowed).
_UPDATED = {
    'type': 'object',
    'properties': {
        'disabled': {'type': 'boolean'},
        'status': {'enum': ['enabled', 'disabled']},
        'host': {'type': 'string'},
        'service': {'type': 'string'},
        'binary': {'type': 'string'},
        'disabled_reason': {'type': ['string', 'null']},
    },
    'additionalProperties': False,
    'required': ['disabled', 'status', 'host', 'service', 'binary',
                 'disabled_reason'],
}
ENABLE_SERVICE = _UPDATED
DISABLE_SERVICE = dict(_UPDATED, properties={
    k: v for k, v in _UPDATED['properties'].items()
    if k != 'disabled_reason'}, required=_UPDATED['required'][:-1])


class TestServices(base.APITestCase):

    def setUp(self):
        super().setUp()
        service_db.service_create(self.admin_context, {
            'host': 'testhost', 'binary': 'cinder-ma-manager',
            'topic': 'cinder-ma-manager', 'availability_zone': 'nova',
            'disabled': True, 'disabled_reason': 'maintenance',
            'heartbeat_at': timeutils.utcnow() - datetime.timedelta(
                hours=1)})

    def _list(self, query='', headers=base.ADMIN, status=200):
        return self.app.get(self.url('os-services') + query,
                            headers=headers, status=status)

    def test_list(self):
        services = self._list().json['services']
        self.assertEqual(2, len(services))
        backend, manager = services
        self.assertEqual({
            'binary': 'cinder-volume', 'host': 'testhost@file',
            'zone': 'nova', 'status': 'enabled', 'state': 'up',
            'updated_at': backend['updated_at'], 'disabled_reason': None,
            'replication_status': 'disabled', 'active_backend_id': None,
            'frozen': False}, backend)
        timeutils.parse_strtime(backend['updated_at'],
                                '%Y-%m-%dT%H:%M:%S.%f')
        self.assertEqual({
            'binary': 'cinder-ma-manager', 'host': 'testhost',
            'zone': 'nova', 'status': 'disabled', 'state': 'down',
            'updated_at': manager['updated_at'],
            'disabled_reason': 'maintenance'}, manager)

    def test_fields_by_version(self):
        services = self._list(headers=base.headers(
            version=mv.BACKEND_STATE_REPORT)).json['services']
        self.assertIsNone(services[0]['cluster'])
        self.assertIsNone(services[1]['cluster'])
        self.assertEqual('up', services[0]['backend_state'])
        self.assertNotIn('backend_state', services[1])

    def test_filters(self):
        services = self._list('?binary=cinder-ma-manager').json['services']
        self.assertEqual(['testhost'], [s['host'] for s in services])
        services = self._list('?host=testhost@file').json['services']
        self.assertEqual(['cinder-volume'],
                         [s['binary'] for s in services])

    def test_host_filter_lists_what_runs_on_the_node(self):
        # Cinder: host=node lists node and node@backend (Tempest's
        # test_get_service_by_host_name and ..._service_and_host_name).
        service_db.service_create(self.admin_context, {
            'host': 'testhost2@file', 'binary': 'cinder-ma-volume',
            'topic': 'cinder-ma-manager', 'availability_zone': 'nova'})
        service_db.service_create(self.admin_context, {
            'host': 'testhostX@file', 'binary': 'cinder-ma-volume',
            'topic': 'cinder-ma-manager', 'availability_zone': 'nova'})
        services = self._list('?host=testhost').json['services']
        self.assertEqual(['testhost@file', 'testhost'],
                         [s['host'] for s in services])
        services = self._list(
            '?host=testhost&binary=cinder-volume').json['services']
        self.assertEqual(['testhost@file'], [s['host'] for s in services])
        # Our own name of the binary is accepted too.
        services = self._list(
            '?host=testhost&binary=cinder-ma-volume').json['services']
        self.assertEqual(['testhost@file'], [s['host'] for s in services])
        # A LIKE wildcard in the name matches nothing more.
        self.assertEqual([], self._list('?host=testhos_').json['services'])
        services = self._list('?host=testhost@file%23pool').json['services']
        self.assertEqual([], services)

    def test_admin_only(self):
        for headers in (base.MEMBER, base.READER):
            response = self._list(headers=headers, status=403)
            self.assertFault(response, 403, 'forbidden',
                             'volume_extension:services:index')


class TestServiceActions(base.APITestCase):
    """PUT os-services/{action}: Cinder's bodies and answers, checked
    against the response schemas Tempest holds Cinder to."""

    def _put(self, action, body, headers=base.ADMIN, status=200):
        return self.app.put_json(self.url('os-services/' + action), body,
                                 headers=headers, status=status)

    def _backend(self):
        return service_db.service_get_by_host_and_binary(
            self.admin_context, base.BACKEND_HOST, 'cinder-ma-volume')

    def test_disable_enable(self):
        body = self._put('disable', {'host': base.BACKEND_HOST,
                                     'binary': 'cinder-volume'}).json
        jsonschema.validate(body, DISABLE_SERVICE)
        self.assertEqual({'host': base.BACKEND_HOST,
                          'binary': 'cinder-volume', 'service': '',
                          'disabled': True, 'status': 'disabled'}, body)
        self.assertTrue(self._backend().disabled)
        body = self._put('enable', {'host': base.BACKEND_HOST,
                                    'binary': 'cinder-volume'}).json
        jsonschema.validate(body, ENABLE_SERVICE)
        self.assertEqual({'host': base.BACKEND_HOST,
                          'binary': 'cinder-volume', 'service': '',
                          'disabled': False, 'status': 'enabled',
                          'disabled_reason': None}, body)
        self.assertFalse(self._backend().disabled)

    def test_disable_log_reason(self):
        body = self._put('disable-log-reason', {
            'host': base.BACKEND_HOST, 'binary': 'cinder-ma-volume',
            'disabled_reason': 'disk swap'}).json
        jsonschema.validate(body, ENABLE_SERVICE)
        self.assertEqual('disk swap', body['disabled_reason'])
        backend = self._backend()
        self.assertTrue(backend.disabled)
        self.assertEqual('disk swap', backend.disabled_reason)
        service = self.app.get(self.url('os-services'), headers=base.ADMIN
                               ).json['services'][0]
        self.assertEqual(('disabled', 'disk swap'),
                         (service['status'], service['disabled_reason']))

    def test_bad_requests(self):
        for action, body, status, message in (
                ('disable-log-reason', {'host': base.BACKEND_HOST,
                                        'binary': 'cinder-volume',
                                        'disabled_reason': None}, 400,
                 'Disabled reason'),
                ('disable-log-reason', {'host': base.BACKEND_HOST,
                                        'binary': 'cinder-volume',
                                        'disabled_reason': 'x' * 256}, 400,
                 'too long'),
                ('disable', {'binary': 'cinder-volume'}, 400, "'host'"),
                ('disable', {'host': base.BACKEND_HOST}, 400, "'binary'"),
                ('enable', {'host': 'invalid_host',
                            'binary': 'cinder-volume'}, 404, 'invalid_host'),
                ('disable', {'host': base.BACKEND_HOST,
                             'binary': 'invalid_binary'}, 404,
                 'invalid_binary'),
                ('freeze', {'host': 'invalid_host'}, 400,
                 'No service found with host=invalid_host'),
                ('thaw', {'host': 'invalid_host'}, 400, 'invalid_host'),
                ('failover_host', {'host': base.BACKEND_HOST}, 400,
                 'Unknown action'),
                ('enable', ['host'], 400, None)):
            response = self._put(action, body, status=status)
            name = 'badRequest' if status == 400 else 'itemNotFound'
            self.assertFault(response, status, name, message)

    def test_freeze_thaw(self):
        volume = self.create_volume()
        response = self._put('freeze', {'host': 'testhost'})
        self.assertEqual(b'', response.body)
        backend = self._backend()
        self.assertEqual((True, True, 'frozen'), (
            backend.frozen, backend.disabled, backend.disabled_reason))
        service = self.app.get(self.url('os-services'), headers=base.ADMIN
                               ).json['services'][0]
        self.assertTrue(service['frozen'])
        # Changes to its volumes are refused with Cinder's message.
        response = self.app.delete(self.url('volumes/' + volume.id),
                                   headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'not allowed on frozen storage backends')
        response = self.app.post_json(
            self.url('volumes/%s/action' % volume.id),
            {'os-extend': {'new_size': 2}}, headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest', 'frozen')
        # Nothing new is placed there: an 'error' volume, as in Cinder
        # (administrators read why).
        created = self.app.post_json(
            self.url('volumes'), {'volume': {'size': 1}},
            headers=base.ADMIN, status=202).json['volume']
        self.assertEqual('error', created['status'])
        self.assertIn('frozen', volume_db.volume_get(
            self.admin_context, created['id']).error_reason)
        self._put('thaw', {'host': base.BACKEND_HOST})
        backend = self._backend()
        self.assertEqual((False, False, None), (
            backend.frozen, backend.disabled, backend.disabled_reason))
        self.app.delete(self.url('volumes/' + volume.id),
                        headers=base.ADMIN, status=202)

    def test_admin_only(self):
        for action, rule in (('enable', 'volume_extension:services:update'),
                             ('disable', 'volume_extension:services:update'),
                             ('freeze', 'volume:freeze_host'),
                             ('thaw', 'volume:thaw_host')):
            response = self._put(action, {'host': base.BACKEND_HOST,
                                          'binary': 'cinder-volume'},
                                 headers=base.MEMBER, status=403)
            self.assertFault(response, 403, 'forbidden', rule)
