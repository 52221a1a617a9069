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
cinder_ma/api/v3/volume_actions.py (its unit tests are in
tests/unit/api/v3/test_volume_actions.py)."""

from cinder_ma.api import microversions as mv
from tests.functional.api import fixtures as api_fixtures
from tests.unit.api.v3 import test_volume_actions as unit


class TestWithCinderclient(unit.ManageTestCase):
    """Cinder's own client, at the version it negotiates."""

    def setUp(self):
        super().setUp()
        served = self.useFixture(api_fixtures.ServedApp(self.app.app))
        self.client = api_fixtures.cinderclient_for(served.url, mv.MAX_VERSION)
        self.admin = api_fixtures.cinderclient_for(served.url, mv.MAX_VERSION,
                                                   user='admin-user',
                                                   roles=('admin',))

    def test_legacy_actions(self):
        volumes = self.client.volumes
        volumes.reserve(self.volume.id)
        self.assertEqual('reserved', volumes.get(self.volume.id).status)
        volumes.attach(self.volume.id, self.instance, '/dev/vdb', mode='rw')
        self.assertEqual('in-use', volumes.get(self.volume.id).status)
        volumes.begin_detaching(self.volume.id)
        volumes.roll_detaching(self.volume.id)
        volumes.detach(self.volume.id)
        self.assertEqual('available', volumes.get(self.volume.id).status)

    def test_manage_actions(self):
        from cinderclient import exceptions
        volumes = self.client.volumes
        self.make_type('silver')
        volumes.set_bootable(self.volume.id, True)
        self.assertEqual('true', volumes.get(self.volume.id).bootable)
        volumes.retype(self.volume.id, 'silver', 'never')
        self.assertEqual('silver', volumes.get(self.volume.id).volume_type)
        error = self.assertRaises(exceptions.BadRequest, volumes.extend,
                                  self.volume.id, 1)
        self.assertIn('greater than the current size', error.message)
        volumes.extend(self.volume.id, 2)
        self.assertEqual('extending', volumes.get(self.volume.id).status)
        self.assertRaises(exceptions.Forbidden, volumes.force_delete,
                          self.volume.id)
        self.admin.volumes.force_delete(self.volume.id)
        self.assertEqual('deleting', volumes.get(self.volume.id).status)
