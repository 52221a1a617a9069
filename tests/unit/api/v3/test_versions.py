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

"""Tests of the version documents."""

from cinder_ma.api import microversions as mv
from tests.unit.api import base

VERSION = {
    'id': 'v3.0',
    'status': 'CURRENT',
    'version': mv.MAX_VERSION,
    'min_version': mv.MIN_VERSION,
    'updated': mv.UPDATED,
    'links': [{'rel': 'describedby', 'type': 'text/html',
               'href': 'https://docs.openstack.org/'},
              {'rel': 'self', 'href': 'http://localhost/v3/'}],
    'media-types': [{'base': 'application/json',
                     'type': 'application/vnd.openstack.volume+json;'
                             'version=3'}],
}


class TestVersions(base.APITestCase):

    def test_root_without_auth(self):
        response = self.app.get('/', status=300)
        self.assertEqual({'versions': [VERSION]}, response.json)

    def test_v3_without_auth(self):
        for path in ('/v3', '/v3/'):
            response = self.app.get(path)
            self.assertEqual({'versions': [VERSION]}, response.json)

    def test_with_credentials_too(self):
        response = self.app.get('/v3/', headers=base.MEMBER)
        self.assertEqual({'versions': [VERSION]}, response.json)

    def test_public_endpoint(self):
        self.flags(public_endpoint='https://example.com/volume',
                   group='api')
        version = self.app.get('/v3/').json['versions'][0]
        self.assertEqual('https://example.com/volume/v3/',
                         version['links'][1]['href'])

    def test_script_name(self):
        response = self.app.get('/', status=300, extra_environ={
            'SCRIPT_NAME': '/volume'})
        self.assertEqual('http://localhost/volume/v3/', response.json[
            'versions'][0]['links'][1]['href'])

    def test_post_is_not_allowed(self):
        response = self.app.post('/v3/', headers=base.MEMBER, status=405)
        self.assertFault(response, 405, 'badMethod')

    def test_head(self):
        # Load balancers and clients probe the version documents so.
        response = self.app.head('/', status=300)
        self.assertEqual(b'', response.body)
        for path in ('/v3', '/v3/'):
            response = self.app.head(path, status=200)
            self.assertEqual(b'', response.body)
            self.assertEqual('application/json', response.content_type)
