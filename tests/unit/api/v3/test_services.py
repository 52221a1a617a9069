"""Tests of the os-services API."""

import datetime

from oslo_utils import timeutils

from cinder_ma.api import microversions as mv
from cinder_ma.db import api as db_api
from tests.unit.api import base


class TestServices(base.APITestCase):

    def setUp(self):
        super().setUp()
        db_api.service_create(self.admin_context, {
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
            'binary': 'cinder-ma-volume', 'host': 'testhost@file',
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
        self.assertEqual(['cinder-ma-volume'],
                         [s['binary'] for s in services])

    def test_admin_only(self):
        for headers in (base.MEMBER, base.READER):
            response = self._list(headers=headers, status=403)
            self.assertFault(response, 403, 'forbidden',
                             'volume_extension:services:index')
