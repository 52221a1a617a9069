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

"""Tests of the os-hosts API, against the response schemas Tempest holds
Cinder to."""

import jsonschema

from cinder_ma.db import services as service_db
from cinder_ma.db import snapshots as snapshot_db
from tests.unit.api import base

_DATE = {'type': ['string', 'null']}

LIST_HOSTS = {
    'type': 'object',
    'properties': {'hosts': {'type': 'array', 'items': {
        'type': 'object',
        'properties': {
            'service-status': {'enum': ['available', 'unavailable']},
            'service': {'type': 'string'},
            'zone': {'type': 'string'},
            'service-state': {'enum': ['enabled', 'disabled']},
            'host_name': {'type': 'string'},
            'last-update': _DATE,
        },
        'additionalProperties': False,
        'required': ['service-status', 'service', 'zone', 'service-state',
                     'host_name', 'last-update']}}},
    'additionalProperties': False,
    'required': ['hosts'],
}

_RESOURCE_KEYS = ('volume_count', 'total_volume_gb', 'total_snapshot_gb',
                  'project', 'host', 'snapshot_count')
SHOW_HOST = {
    'type': 'object',
    'properties': {'host': {'type': 'array', 'items': {
        'type': 'object',
        'properties': {'resource': {
            'type': 'object',
            'properties': {key: {'type': 'string'}
                           for key in _RESOURCE_KEYS},
            'additionalProperties': False,
            'required': list(_RESOURCE_KEYS)}},
        'additionalProperties': False,
        'required': ['resource']}}},
    'additionalProperties': False,
    'required': ['host'],
}


class TestHosts(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.make_manager(host='testhost')

    def test_list(self):
        body = self.app.get(self.url('os-hosts'), headers=base.ADMIN).json
        jsonschema.validate(body, LIST_HOSTS)
        backend, manager = body['hosts']
        self.assertEqual({'host_name': base.BACKEND_HOST,
                          'service': 'cinder-volume', 'zone': 'nova',
                          'service-status': 'available',
                          'service-state': 'enabled',
                          'last-update': backend['last-update']}, backend)
        self.assertEqual(('testhost', 'cinder-ma-manager'),
                         (manager['host_name'], manager['service']))
        body = self.app.get(self.url('os-hosts?zone=elsewhere'),
                            headers=base.ADMIN).json
        self.assertEqual([], body['hosts'])

    def test_show(self):
        snapped = self.create_volume(size=2)
        snapshot_db.snapshot_create(self.admin_context, {
            'project_id': base.PROJECT, 'volume_id': snapped.id,
            'volume_type_id': snapped.volume_type_id, 'volume_size': 2,
            'status': 'available'}, ('available',))
        self.create_volume(size=3, project=base.OTHER_PROJECT)
        # Elsewhere: counted in its project's total only (as Cinder).
        self.create_volume(size=5, host='otherhost@file#pool')
        for name in (base.BACKEND_HOST, 'testhost'):
            body = self.app.get(self.url('os-hosts/' + name),
                                headers=base.ADMIN).json
            jsonschema.validate(body, SHOW_HOST)
            resources = [r['resource'] for r in body['host']]
            self.assertEqual(
                [('(total)', '2', '5'), (base.PROJECT, '2', '7'),
                 (base.OTHER_PROJECT, '1', '3')],
                [(r['project'], r['volume_count'], r['total_volume_gb'])
                 for r in resources])
            self.assertEqual({name}, {r['host'] for r in resources})
            self.assertEqual(
                [('1', '2'), ('1', '2'), ('0', '0')],
                [(r['snapshot_count'], r['total_snapshot_gb'])
                 for r in resources])

    def test_show_not_found(self):
        # A host without a backend, and a disabled backend, are 404s (what
        # Tempest's test_show_host relies on).
        for name in ('nohost', 'otherhost@file'):
            response = self.app.get(self.url('os-hosts/' + name),
                                    headers=base.ADMIN, status=404)
            self.assertFault(response, 404, 'itemNotFound', name)
        service_db.service_update(self.admin_context, self.service.id,
                                  {'disabled': True})
        self.app.get(self.url('os-hosts/' + base.BACKEND_HOST),
                     headers=base.ADMIN, status=404)

    def test_admin_only(self):
        for path in ('os-hosts', 'os-hosts/' + base.BACKEND_HOST):
            response = self.app.get(self.url(path), headers=base.MEMBER,
                                    status=403)
            self.assertFault(response, 403, 'forbidden',
                             'volume_extension:hosts')
