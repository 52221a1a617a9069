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

"""Tests of cinder_ma.db.services on the SQLite file database."""

import datetime

from oslo_utils import timeutils

from cinder_ma.db import records
from cinder_ma.db import services as service_db
from cinder_ma import exception
from tests import base


class ServiceDBTestCase(base.DBTestCase):

    def _service(self, host, **values):
        values.update(host=host, binary='cinder-ma-manager',
                      topic='cinder-ma-manager')
        return service_db.service_create(self.admin_context, values)

    def test_host_filter_matches_what_runs_on_a_host(self):
        for host in ('node', 'node@a', 'node@a#p', 'node2@a', 'nodex'):
            self._service(host)

        def hosts(name):
            return [s.host for s in service_db.service_get_all(
                self.admin_context, filters={'host': name})]

        self.assertEqual(['node', 'node@a', 'node@a#p'], hosts('node'))
        self.assertEqual(['node@a', 'node@a#p'], hosts('node@a'))
        self.assertEqual(['node@a#p'], hosts('node@a#p'))

    def test_update_and_frozen_backend(self):
        service = self._service('node@b')
        self.assertFalse(service_db.backend_is_frozen(self.admin_context,
                                                      'node@b#pool'))
        service_db.service_update(self.admin_context, service.id,
                                  {'frozen': True,
                                   'capabilities': {'pools': []}})
        self.assertTrue(service_db.backend_is_frozen(self.admin_context,
                                                     'node@b#pool'))
        row = service_db.service_get_by_host_and_binary(
            self.admin_context, 'node@b', 'cinder-ma-manager')
        self.assertEqual('{"pools": []}', row.capabilities)
        self.assertRaises(exception.ServiceNotFound,
                          service_db.service_update, self.admin_context,
                          service.id + 1000, {'frozen': False})

    def test_service_is_up_by_heartbeat(self):
        self.flags(group='manager', service_down_time=60)
        service = self._service('n')
        self.assertIsInstance(service, records.Service)
        self.assertFalse(service_db.service_is_up(service))
        service = service.replace(heartbeat_at=timeutils.utcnow())
        self.assertTrue(service_db.service_is_up(service))
        service = service.replace(
            heartbeat_at=service.heartbeat_at - datetime.timedelta(
                seconds=61))
        self.assertFalse(service_db.service_is_up(service))

    def test_scheduling_rows_are_the_live_services_of_a_binary(self):
        first = service_db.service_create(self.admin_context, {
            'host': 'node@a', 'binary': 'cinder-ma-volume',
            'topic': 'cinder-ma-volume', 'availability_zone': 'az1',
            'capabilities': '{"pools": []}', 'frozen': True,
            'heartbeat_at': timeutils.utcnow()})
        self._service('node')
        gone = service_db.service_create(self.admin_context, {
            'host': 'gone@a', 'binary': 'cinder-ma-volume',
            'topic': 'cinder-ma-volume'})
        service_db.service_update(self.admin_context, gone.id,
                                  {'deleted': True})
        second = service_db.service_create(self.admin_context, {
            'host': 'node@b', 'binary': 'cinder-ma-volume',
            'topic': 'cinder-ma-volume', 'disabled': True})
        rows = service_db.service_get_all_for_scheduling(
            self.admin_context, 'cinder-ma-volume')
        whole = service_db.service_get_all(
            self.admin_context, {'binary': 'cinder-ma-volume'})
        self.assertEqual([first.id, second.id], [row.id for row in rows])
        fields = ('id', 'uuid', 'host', 'binary', 'availability_zone',
                  'disabled', 'frozen', 'heartbeat_at', 'capabilities')
        # Records of services, with what scheduling reads of them and the
        # defaults in the rest.
        self.assertIsInstance(rows[0], records.Service)
        self.assertEqual(
            [tuple(getattr(service, name) for name in fields)
             for service in whole],
            [tuple(getattr(row, name) for name in fields) for row in rows])
        self.assertIsNone(rows[0].topic)
        self.assertTrue(service_db.service_is_up(rows[0]))
        self.assertFalse(service_db.service_is_up(rows[1]))
