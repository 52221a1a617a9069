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
cinder_ma/api/v3/volume_type_access.py (its unit tests are in
tests/unit/api/v3/test_volume_type_access.py)."""

from cinder_ma.api import microversions as mv
from tests.functional.api import fixtures as api_fixtures
from tests.unit.api import base
from tests.unit.api.v3 import test_volume_type_access as unit


class TestWithCinderclient(unit.TypeAccessTestCase):
    """python-cinderclient's type-access-add/list/remove calls."""

    def setUp(self):
        super().setUp()
        from cinderclient import exceptions
        self.client_errors = exceptions
        served = self.useFixture(api_fixtures.ServedApp(self.app.app))
        self.admin = api_fixtures.cinderclient_for(served.url, mv.MAX_VERSION,
                                                   user='admin-user',
                                                   roles=('admin',))
        self.member = api_fixtures.cinderclient_for(served.url, mv.MAX_VERSION)

    def test_type_access_add_list_remove(self):
        access = self.admin.volume_type_access
        vtype = self.admin.volume_types.find(name='private')
        self.assertFalse(vtype.is_public)
        access.add_project_access(vtype, base.OTHER_PROJECT)
        listed = access.list(vtype)
        self.assertEqual([(self.private.id, base.OTHER_PROJECT)],
                         [(a.volume_type_id, a.project_id)
                          for a in listed])
        access.remove_project_access(vtype, base.OTHER_PROJECT)
        self.assertEqual([], list(access.list(vtype)))
        error = self.assertRaises(self.client_errors.Forbidden,
                                  self.member.volume_type_access
                                  .add_project_access,
                                  self.private.id, base.PROJECT)
        self.assertIn('addProjectAccess', error.message)

    def test_private_types_listed_for_admins(self):
        # cinderclient sends is_public=None unless told otherwise.
        listed = self.admin.volume_types.list()
        self.assertIn('private', [t.name for t in listed])
        listed = self.admin.volume_types.list(is_public=True)
        self.assertNotIn('private', [t.name for t in listed])
        listed = self.member.volume_types.list()
        self.assertNotIn('private', [t.name for t in listed])
