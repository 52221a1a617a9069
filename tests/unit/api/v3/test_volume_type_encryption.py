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

"""Tests of the encryption of volume types, with python-cinderclient's
encryption-type calls too."""

import uuid

from cinder_ma.volume import types as volume_types
from tests.unit.api import base

LUKS = {'provider': 'luks', 'cipher': 'aes-xts-plain64', 'key_size': 256,
        'control_location': 'front-end'}
FIELDS = {'volume_type_id', 'encryption_id', 'provider', 'cipher',
          'key_size', 'control_location', 'created_at', 'updated_at',
          'deleted', 'deleted_at'}


class EncryptionTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.vtype = volume_types.create_type(self.admin_context, 'secret')
        self.enc_url = self.url('types/%s/encryption' % self.vtype.id)

    def create(self, values=None, url=None, headers=base.ADMIN,
               status=200):
        return self.app.post_json(url or self.enc_url,
                                  {'encryption': values or LUKS},
                                  headers=headers, status=status)

    def shown(self):
        return self.app.get(self.enc_url, headers=base.ADMIN).json


class TestEncryption(EncryptionTestCase):

    def test_not_encrypted(self):
        self.assertEqual({}, self.shown())
        response = self.app.get(self.enc_url + '/provider',
                                headers=base.ADMIN, status=404)
        self.assertFault(response, 404, 'itemNotFound',
                         'Volume type encryption for type %s does not '
                         'exist' % self.vtype.id)

    def test_create_and_show(self):
        response = self.create()
        shown = self.shown()
        # As in Cinder, the fields given and the record's ids (Tempest's
        # create_encryption_type schema requires them).
        self.assertEqual({'encryption': dict(
            LUKS, volume_type_id=self.vtype.id,
            encryption_id=shown['encryption_id'])}, response.json)
        uuid.UUID(shown['encryption_id'])
        self.assertEqual(FIELDS, set(shown))
        self.assertEqual(dict(LUKS, volume_type_id=self.vtype.id,
                              deleted=False, deleted_at=None,
                              updated_at=None),
                         {k: shown[k] for k in FIELDS
                          if k not in ('encryption_id', 'created_at')})
        self.assertIsNotNone(shown['created_at'])
        self.assertEqual({'provider': 'luks'}, self.app.get(
            self.enc_url + '/provider', headers=base.ADMIN).json)
        self.assertEqual({'key_size': 256}, self.app.get(
            self.enc_url + '/key_size', headers=base.ADMIN).json)
        response = self.app.get(self.enc_url + '/colour',
                                headers=base.ADMIN, status=404)
        self.assertFault(response, 404, 'itemNotFound')

    def test_nulls_and_strings(self):
        # What python-cinderclient sends without --cipher/--key-size.
        values = {'provider': 'luks', 'cipher': None, 'key_size': None,
                  'control_location': 'back-end'}
        created = self.create(values).json['encryption']
        self.assertEqual(values, {k: created[k] for k in values})
        shown = self.shown()
        self.assertEqual((None, None, 'back-end'),
                         (shown['cipher'], shown['key_size'],
                          shown['control_location']))
        self.app.put_json(self.enc_url + '/provider',
                          {'encryption': {'key_size': '512'}},
                          headers=base.ADMIN)
        self.assertEqual(512, self.shown()['key_size'])

    def test_update(self):
        self.create()
        encryption_id = self.shown()['encryption_id']
        response = self.app.put_json(
            self.enc_url + '/' + encryption_id,
            {'encryption': {'cipher': 'aes-cbc', 'key_size': 128}},
            headers=base.ADMIN)
        self.assertEqual({'encryption': {'cipher': 'aes-cbc',
                                         'key_size': 128}}, response.json)
        shown = self.shown()
        self.assertEqual(('luks', 'aes-cbc', 128),
                         (shown['provider'], shown['cipher'],
                          shown['key_size']))
        self.assertIsNotNone(shown['updated_at'])

    def test_update_without_encryption(self):
        response = self.app.put_json(
            self.enc_url + '/provider', {'encryption': {'cipher': 'x'}},
            headers=base.ADMIN, status=404)
        self.assertFault(response, 404, 'itemNotFound', 'does not exist')

    def test_delete(self):
        self.create()
        response = self.app.delete(self.enc_url + '/provider',
                                   headers=base.ADMIN, status=202)
        self.assertEqual(b'', response.body)
        self.assertEqual({}, self.shown())
        response = self.app.delete(self.enc_url + '/provider',
                                   headers=base.ADMIN, status=404)
        self.assertFault(response, 404, 'itemNotFound', 'does not exist')
        # Encrypted again.
        self.create()
        self.assertEqual('luks', self.shown()['provider'])

    def test_delete_while_volumes_use_it(self):
        self.create()
        self.create_volume(volume_type_id=self.vtype.id, encrypted=True)
        response = self.app.delete(self.enc_url + '/provider',
                                   headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'volumes of the type exist')
        self.assertEqual('luks', self.shown()['provider'])

    def test_create_twice(self):
        self.create()
        response = self.create(status=400)
        self.assertFault(response, 400, 'badRequest', 'already exists')

    def test_multiattach_type_cannot_be_encrypted(self):
        shared = volume_types.create_type(
            self.admin_context, 'shared',
            extra_specs={'multiattach': '<is> True'})
        url = self.url('types/%s/encryption' % shared.id)
        response = self.create(url=url, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'volume type %s is multiattach; a multiattach '
                         'type cannot be encrypted' % shared.id)
        self.assertEqual({}, self.app.get(url, headers=base.ADMIN).json)

    def test_encrypted_type_cannot_be_multiattach(self):
        self.create()
        specs_url = self.url('types/%s/extra_specs' % self.vtype.id)
        response = self.app.post_json(
            specs_url, {'extra_specs': {'multiattach': '<is> True'}},
            headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'volume type %s is encrypted; an encrypted type '
                         'cannot be multiattach' % self.vtype.id)
        response = self.app.put_json(
            specs_url + '/multiattach', {'multiattach': '<is> True'},
            headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest', 'is encrypted')
        self.assertEqual({}, self.app.get(
            specs_url, headers=base.ADMIN).json['extra_specs'])

    def test_validation(self):
        for values, message in (
                ({'cipher': 'x', 'control_location': 'front-end'},
                 "'provider' is a required property"),
                ({'provider': 'luks'},
                 "'control_location' is a required property"),
                (dict(LUKS, control_location='middle'),
                 'field/attribute control_location'),
                (dict(LUKS, key_size=-1), 'field/attribute key_size'),
                (dict(LUKS, key_size='big'), 'field/attribute key_size'),
                (dict(LUKS, key_size=1.5), 'field/attribute key_size'),
                (dict(LUKS, provider='x' * 256), 'is too long'),
                (dict(LUKS, colour='red'), "'colour' was unexpected")):
            response = self.create(values, status=400)
            self.assertFault(response, 400, 'badRequest', message)
        response = self.app.post_json(self.enc_url, {'encrypt': LUKS},
                                      headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest',
                         "'encryption' is a required property")
        self.assertEqual({}, self.shown())
        self.create()
        response = self.app.put_json(
            self.enc_url + '/provider',
            {'encryption': {'control_location': 'nowhere'}},
            headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'field/attribute control_location')

    def test_member_cannot(self):
        self.assertFault(self.create(headers=base.MEMBER, status=403),
                         403, 'forbidden', 'volume_type_encryption:create')
        self.create()
        for response, action in (
                (self.app.get(self.enc_url, headers=base.MEMBER,
                              status=403), 'get'),
                (self.app.get(self.enc_url + '/provider',
                              headers=base.MEMBER, status=403), 'get'),
                (self.app.put_json(self.enc_url + '/provider',
                                   {'encryption': {'cipher': 'x'}},
                                   headers=base.MEMBER, status=403),
                 'update'),
                (self.app.delete(self.enc_url + '/provider',
                                 headers=base.MEMBER, status=403),
                 'delete')):
            self.assertFault(response, 403, 'forbidden',
                             'volume_type_encryption:%s' % action)
        self.assertEqual('luks', self.shown()['provider'])

    def test_unknown_types(self):
        for type_id in ('nope', str(uuid.uuid4())):
            url = self.url('types/%s/encryption' % type_id)
            for response in (
                    self.app.get(url, headers=base.ADMIN, status=404),
                    self.create(url=url, status=404),
                    self.app.get(url + '/provider', headers=base.ADMIN,
                                 status=404),
                    self.app.delete(url + '/provider', headers=base.ADMIN,
                                    status=404)):
                self.assertFault(response, 404, 'itemNotFound', type_id)
