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

"""python-cinderclient against the app served over HTTP:
cinder_ma/api/v3/volume_metadata.py (its unit tests are in
tests/unit/api/v3/test_volume_metadata.py)."""

from cinder_ma.api import microversions as mv
from tests.functional.api import fixtures as api_fixtures
from tests.unit.api.v3 import test_volume_metadata as unit


class TestWithCinderclient(unit.MetadataTestCase):
    """`cinder metadata <volume> set|unset` and friends, at the version
    the client negotiates (its unset reads the ETag and sends If-Match)
    and below 3.15."""

    def setUp(self):
        super().setUp()
        self.served = self.useFixture(api_fixtures.ServedApp(self.app.app))

    def _check(self, version):
        volumes = api_fixtures.cinderclient_for(self.served.url,
                                                        version).volumes
        volume = volumes.get(self.volume.id)
        volumes.set_metadata(volume, {'c': '3', 'a': '0'})
        self.assertEqual({'a': '0', 'b': '2', 'c': '3'},
                         volumes.get(self.volume.id).metadata)
        volumes.delete_metadata(volume, ['a', 'c'])
        self.assertEqual({'b': '2'}, volumes.get(self.volume.id).metadata)
        volumes.update_all_metadata(volume, {'d': '4'})
        self.assertEqual({'d': '4'}, self.metadata())

    def test_latest(self):
        self._check(mv.MAX_VERSION)

    def test_before_etags(self):
        self._check(mv.prior(mv.ETAGS))
