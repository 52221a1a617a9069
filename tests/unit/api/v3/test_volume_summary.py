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

"""volumes/summary: 3.12, metadata from 3.36, all_tenants for admins."""

from tests.unit.api import base


class VolumeSummaryTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.create_volume(size=2, metadata={'a': '1', 'b': 'x'})
        self.create_volume(size=3, metadata={'a': '2'})
        self.create_volume(project=base.OTHER_PROJECT, size=7)

    def _get(self, version, headers=base.MEMBER, query='', status=200):
        return self.app.get(
            self.url('volumes/summary' + query),
            headers=dict(headers, **{
                'OpenStack-API-Version': 'volume %s' % version}),
            status=status)

    def test_before_312_not_found(self):
        self._get('3.11', status=404)

    def test_summary(self):
        self.assertEqual({'volume-summary': {'total_count': 2,
                                             'total_size': 5}},
                         self._get('3.12').json)

    def test_metadata_from_336(self):
        self.assertEqual(
            {'volume-summary': {'total_count': 2, 'total_size': 5,
                                'metadata': {'a': ['1', '2'],
                                             'b': ['x']}}},
            self._get('3.36').json)

    def test_all_tenants_admin(self):
        body = self._get('3.12', headers=base.ADMIN,
                         query='?all_tenants=true').json
        self.assertEqual(12, body['volume-summary']['total_size'])
        body = self._get('3.12', query='?all_tenants=true').json
        self.assertEqual(5, body['volume-summary']['total_size'])
