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

"""scheduler-stats/get_pools: admins only, names and, with detail, each
pool's capabilities (Tempest's schema: no other keys per pool)."""

import jsonschema

from tests.unit.api import base

POOLS = {
    'type': 'object',
    'properties': {'pools': {'type': 'array', 'items': {
        'type': 'object',
        'properties': {
            'name': {'type': 'string'},
            'capabilities': {'type': ['object', 'null'], 'properties': {
                'total_capacity_gb': {'type': ['number', 'string']},
                'free_capacity_gb': {'type': ['number', 'string']},
                'volume_backend_name': {'type': 'string'},
                'driver_version': {'type': 'string'},
                'reserved_percentage': {'type': 'integer'},
                'storage_protocol': {'type': 'string'},
                'vendor_name': {'type': 'string'},
                'timestamp': {'type': ['string', 'null']}}}},
        'additionalProperties': False,
        'required': ['name']}}},
    'additionalProperties': False,
    'required': ['pools'],
}


class GetPoolsTestCase(base.APITestCase):

    def test_names(self):
        body = self.app.get(self.url('scheduler-stats/get_pools'),
                            headers=base.ADMIN).json
        jsonschema.validate(body, POOLS)
        self.assertEqual({'pools': [{'name': 'testhost@file#pool'}]}, body)

    def test_detail(self):
        body = self.app.get(
            self.url('scheduler-stats/get_pools?detail=true'),
            headers=base.ADMIN).json
        jsonschema.validate(body, POOLS)
        (pool,) = body['pools']
        caps = pool['capabilities']
        self.assertEqual('testhost@file#pool', pool['name'])
        self.assertTrue(caps['multiattach'])
        self.assertEqual((1000.0, 'test', 'file'), (
            caps['free_capacity_gb'], caps['vendor_name'],
            caps['volume_backend_name']))
        self.assertNotIn('pools', caps)
        self.assertIsNotNone(caps['timestamp'])

    def test_backend_filter(self):
        body = self.app.get(
            self.url('scheduler-stats/get_pools?volume_backend_name=nope'),
            headers=base.ADMIN).json
        self.assertEqual({'pools': []}, body)

    def test_admin_only(self):
        self.app.get(self.url('scheduler-stats/get_pools'),
                     headers=base.MEMBER, status=403)
