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
        self.assertFalse(service_db.service_is_up(service))
        service.heartbeat_at = timeutils.utcnow()
        self.assertTrue(service_db.service_is_up(service))
        service.heartbeat_at -= datetime.timedelta(seconds=61)
        self.assertFalse(service_db.service_is_up(service))
