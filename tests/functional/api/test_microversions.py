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

"""Microversion negotiation by python-cinderclient against the app served over
HTTP (the rest of cinder_ma/api/microversions.py is tested in
tests/unit/api/test_microversions.py)."""

from cinder_ma.api import microversions as mv
from tests.functional.api import fixtures as api_fixtures
from tests.unit.api import base
from tests.unit.api.test_microversions import HEADER


class TestCinderclientNegotiation(base.APITestCase):
    """python-cinderclient (its maximum is 3.71) against the served app."""

    def setUp(self):
        super().setUp()
        from cinderclient import api_versions
        self.api_versions = api_versions
        self.served = self.useFixture(api_fixtures.ServedApp(self.app.app))

    def test_negotiates_our_maximum(self):
        client_max = self.api_versions.APIVersion(
            self.api_versions.MAX_VERSION)
        self.assertGreaterEqual(client_max, self.api_versions.APIVersion(
            mv.MAX_VERSION))
        client = api_fixtures.cinderclient_for(self.served.url,
                                               self.api_versions.MAX_VERSION)
        negotiated = self.api_versions.discover_version(client, client_max)
        self.assertEqual(self.api_versions.APIVersion(mv.MAX_VERSION),
                         negotiated)
        self.assertEqual(negotiated,
                         self.api_versions.get_highest_version(client))

    def test_negotiated_client_is_served(self):
        client = api_fixtures.cinderclient_for(self.served.url, mv.MAX_VERSION)
        volume = self.create_volume(name='v')
        self.assertEqual([volume.id], [v.id for v in client.volumes.list()])
        response, body = client.client.get('/volumes/%s' % volume.id)
        self.assertEqual('volume %s' % mv.MAX_VERSION,
                         response.headers[HEADER])
        self.assertEqual('v', body['volume']['name'])

    def test_an_older_client_version_is_served_too(self):
        client = api_fixtures.cinderclient_for(self.served.url, '3.50')
        self.assertEqual([], client.volumes.list())
