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

"""Tests of GET /v3/{project_id}/extensions."""

from cinder_ma.api import extensions
from tests.unit.api import base


class TestExtensions(base.APITestCase):

    def test_list(self):
        body = self.app.get(self.url('extensions'),
                            headers=base.READER).json
        aliases = [ext['alias'] for ext in body['extensions']]
        self.assertEqual(
            ['cinder-ma-manager-attach', 'cinder-ma-multiattach',
             'cinder-ma-recovery', 'cinder-ma-writers',
             'cinder-ma-fencing', 'cinder-ma-audit'],
            [alias for alias in aliases if alias.startswith('cinder-ma-')])
        # Cinder's own that cinder_ma serves, by the names Horizon looks
        # for; not those of resources cinder_ma does not have.
        names = {ext['name'] for ext in body['extensions']}
        self.assertLessEqual({'AvailabilityZones', 'VolumeTypeEncryption',
                              'Services', 'Hosts', 'VolumeActions'}, names)
        self.assertEqual(set(), names & {'Backups', 'VolumeTransfer',
                                         'SnapshotActions', 'VolumeManage',
                                         'Consistencygroups'})
        self.assertIn('os-availability-zone', aliases)
        for ext in body['extensions']:
            self.assertEqual({'name', 'alias', 'description', 'updated',
                              'links'}, set(ext))
            self.assertEqual([], ext['links'])

    def test_show(self):
        ext = self.app.get(self.url('extensions/cinder-ma-manager-attach'),
                           headers=base.MEMBER).json['extension']
        self.assertEqual(extensions.MANAGER_ATTACH.description,
                         ext['description'])
        response = self.app.get(self.url('extensions/os-nope'),
                                headers=base.MEMBER, status=404)
        self.assertFault(response, 404, 'itemNotFound', 'os-nope')

    def test_fields_carry_the_alias(self):
        self.assertEqual('cinder-ma-manager-attach:instance_host',
                         extensions.field(extensions.MANAGER_ATTACH,
                                          'instance_host'))
