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

"""capabilities/{hostname}: admins only, a backend's capabilities in
Tempest's schema (exactly these keys), found by backend, pool or host."""

import jsonschema

from tests.unit.api import base

PROPERTY = {
    'type': 'object',
    'properties': {'type': {'type': 'string'},
                   'description': {'type': 'string'},
                   'title': {'type': 'string'}},
    'additionalProperties': False,
    'required': ['type', 'description', 'title'],
}

CAPABILITIES = {
    'type': 'object',
    'properties': {
        'pool_name': {'type': ['string', 'null']},
        'description': {'type': ['string', 'null']},
        'volume_backend_name': {'type': 'string'},
        'namespace': {'type': 'string',
                      'pattern': '^OS::Storage::Capabilities::.+$'},
        'visibility': {'type': ['string', 'null']},
        'driver_version': {'type': 'string'},
        'vendor_name': {'type': 'string'},
        'properties': {'type': 'object',
                       'properties': {'^.+$': PROPERTY}},
        'storage_protocol': {'type': 'string'},
        'replication_targets': {'type': 'array'},
        'display_name': {'type': ['string', 'null']},
    },
    'additionalProperties': False,
    'required': ['pool_name', 'volume_backend_name', 'namespace',
                 'visibility', 'driver_version', 'vendor_name',
                 'properties', 'storage_protocol', 'replication_targets',
                 'display_name', 'description'],
}


class CapabilitiesTestCase(base.APITestCase):

    def _show(self, hostname, **kwargs):
        return self.app.get(self.url('capabilities/%s' % hostname),
                            headers=kwargs.pop('headers', base.ADMIN),
                            **kwargs)

    def test_show(self):
        body = self._show(base.BACKEND_HOST).json
        jsonschema.validate(body, CAPABILITIES)
        self.assertEqual('OS::Storage::Capabilities::%s' % base.BACKEND_HOST,
                         body['namespace'])
        self.assertEqual(('test', 'file'), (body['vendor_name'],
                                            body['volume_backend_name']))
        self.assertEqual([], body['replication_targets'])

    def test_matches_get_pools(self):
        (pool,) = self.app.get(
            self.url('scheduler-stats/get_pools?detail=true'),
            headers=base.ADMIN).json['pools']
        keys = ('vendor_name', 'volume_backend_name', 'storage_protocol')
        caps = pool['capabilities']
        # By the pool's name (URL-quoted '#'), as get_pools names it, and
        # by the host alone.
        for name in (pool['name'].replace('#', '%23'),
                     base.BACKEND_HOST.split('@')[0]):
            body = self._show(name).json
            self.assertEqual([caps[k] for k in keys], [body[k] for k in keys])

    def test_not_found(self):
        self.assertFault(self._show('nohost@file', status=404), 404,
                         'itemNotFound', 'nohost@file')

    def test_admin_only(self):
        self._show(base.BACKEND_HOST, headers=base.MEMBER, status=403)
