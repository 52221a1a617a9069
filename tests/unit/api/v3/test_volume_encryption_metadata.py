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

"""Tests of GET /v3/{project_id}/volumes/{volume_id}/encryption
(cinder_ma/api/v3/volume_encryption_metadata.py)."""

import uuid

from cinder_ma.db import types as type_db
from tests.unit.api import base

ENCRYPTION = {'provider': 'luks', 'cipher': 'aes-xts-plain64',
              'key_size': 256, 'control_location': 'front-end'}


class TestVolumeEncryptionMetadata(base.APITestCase):

    def url_of(self, volume, suffix=''):
        return self.url('volumes/%s/encryption%s' % (volume.id, suffix))

    def test_volume_of_a_type_without_encryption(self):
        volume = self.create_volume()
        self.assertEqual({'encryption_key_id': None}, self.app.get(
            self.url_of(volume), headers=base.READER).json)

    def test_volume_of_an_encrypted_type(self):
        vtype = type_db.volume_type_create(self.admin_context,
                                           {'name': 'secret'})
        type_db.volume_type_encryption_create(self.admin_context, vtype.id,
                                              dict(ENCRYPTION))
        volume = self.create_volume(volume_type_id=vtype.id, encrypted=True)
        self.assertEqual(dict(ENCRYPTION, encryption_key_id=None),
                         self.app.get(self.url_of(volume),
                                      headers=base.READER).json)
        # One item, as a bare value (Cinder's show).
        response = self.app.get(self.url_of(volume, '/provider'),
                                headers=base.READER)
        self.assertEqual('luks', response.json)
        response = self.app.get(self.url_of(volume, '/nope'),
                                headers=base.READER, status=404)
        self.assertFault(response, 404, 'itemNotFound',
                         'no encryption metadata with key nope')

    def test_not_found_and_policy(self):
        response = self.app.get(
            self.url('volumes/%s/encryption' % uuid.uuid4()),
            headers=base.READER, status=404)
        self.assertFault(response, 404, 'itemNotFound', 'could not be found')
        response = self.app.get(self.url('volumes/not-a-uuid/encryption'),
                                headers=base.READER, status=404)
        self.assertFault(response, 404, 'itemNotFound',
                         'Volume not-a-uuid could not be found.')
        volume = self.create_volume()
        # Another project's volume is not found; a user of no role of the
        # project is refused.
        self.app.get(self.url_of(volume).replace(base.PROJECT,
                                                 base.OTHER_PROJECT),
                     headers=base.OTHER_MEMBER, status=404)
        nobody = base.headers(user='glance', roles=['service'])
        self.app.get(self.url_of(volume), headers=nobody, status=403)
