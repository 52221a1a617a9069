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

"""Snapshot metadata, in Cinder's shapes."""

from tests.unit.api import base
from tests.unit.manager.flows import test_create_snapshot as helpers


class SnapshotMetadataTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.snapshot = helpers.make_snapshot(
            self.admin_context, self.create_volume(), status='available')
        self.path = self.url('snapshots/%s/metadata' % self.snapshot.id)

    def test_round_trip(self):
        get = self.app.get
        self.assertEqual({'metadata': {}},
                         get(self.path, headers=base.READER).json)
        self.assertEqual({'metadata': {'a': '1', 'b': '2'}},
                         self.app.post_json(self.path, {'metadata': {
                             'a': '1', 'b': '2'}},
                             headers=base.MEMBER).json)
        self.assertEqual({'meta': {'a': '3'}}, self.app.put_json(
            self.path + '/a', {'meta': {'a': '3'}},
            headers=base.MEMBER).json)
        self.assertEqual({'meta': {'a': '3'}},
                         get(self.path + '/a', headers=base.READER).json)
        self.app.delete(self.path + '/b', headers=base.MEMBER)
        self.assertEqual({'metadata': {'a': '3'}},
                         get(self.path, headers=base.READER).json)
        self.assertEqual({'metadata': {'c': '4'}}, self.app.put_json(
            self.path, {'metadata': {'c': '4'}}, headers=base.MEMBER).json)
        response = get(self.path + '/a', headers=base.READER, status=404)
        self.assertFault(response, 404, 'itemNotFound', 'no metadata')
        response = self.app.put_json(self.path + '/x', {'meta': {'y': '1'}},
                                     headers=base.MEMBER, status=400)
        self.assertFault(response, 400, 'badRequest', 'URI mismatch')
        self.app.post_json(self.path, {'metadata': {'a': '1'}},
                           headers=base.READER, status=403)
