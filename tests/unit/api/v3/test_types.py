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

"""Tests of the volume types and extra specs API."""

import uuid

from cinder_ma.api import microversions as mv
from tests.unit.api import base

TYPE_KEYS = {'id', 'name', 'is_public', 'description', 'extra_specs',
             'os-volume-type-access:is_public'}


class TypesTestCase(base.APITestCase):

    def _create(self, headers=base.ADMIN, status=200, **values):
        values.setdefault('name', 'gold')
        return self.app.post_json(self.url('types'), {'volume_type': values},
                                  headers=headers, status=status)


class TestTypes(TypesTestCase):

    def test_create_and_show(self):
        created = self._create(description='fast disks', extra_specs={
            'volume_backend_name': 'file'}).json['volume_type']
        # As Cinder's create: no qos_specs_id (show and list have it).
        self.assertEqual(TYPE_KEYS, set(created))
        self.assertEqual('gold', created['name'])
        self.assertEqual('fast disks', created['description'])
        self.assertTrue(created['is_public'])
        self.assertTrue(created['os-volume-type-access:is_public'])
        self.assertEqual({'volume_backend_name': 'file'},
                         created['extra_specs'])
        shown = self.app.get(self.url('types/%s' % created['id']),
                             headers=base.MEMBER).json['volume_type']
        self.assertEqual(TYPE_KEYS, set(shown))
        self.assertEqual(created['id'], shown['id'])
        shown = self.app.get(self.url('types/%s' % created['id']),
                             headers=base.ADMIN).json['volume_type']
        self.assertEqual(TYPE_KEYS | {'qos_specs_id'}, set(shown))
        # Update: neither qos_specs_id nor the access attribute.
        updated = self.app.put_json(
            self.url('types/%s' % created['id']),
            {'volume_type': {'description': 'faster'}},
            headers=base.ADMIN).json['volume_type']
        self.assertEqual(TYPE_KEYS - {'os-volume-type-access:is_public'},
                         set(updated))

    def test_default(self):
        shown = self.app.get(self.url('types/default'),
                             headers=base.MEMBER).json['volume_type']
        self.assertEqual(self.default_type.id, shown['id'])
        self.assertEqual('__DEFAULT__', shown['name'])

    def test_not_found(self):
        for type_id in ('not-a-uuid', str(uuid.uuid4())):
            response = self.app.get(self.url('types/%s' % type_id),
                                    headers=base.MEMBER, status=404)
            self.assertFault(response, 404, 'itemNotFound', type_id)

    def test_member_cannot_write(self):
        response = self._create(headers=base.MEMBER, status=403)
        self.assertFault(response, 403, 'forbidden', 'types_manage')
        type_id = self._create().json['volume_type']['id']
        url = self.url('types/%s' % type_id)
        self.assertFault(self.app.put_json(
            url, {'volume_type': {'name': 'x'}}, headers=base.MEMBER,
            status=403), 403, 'forbidden')
        self.assertFault(self.app.delete(url, headers=base.MEMBER,
                                         status=403), 403, 'forbidden')

    def test_create_validation(self):
        for values, message in (
                ({'name': ''}, 'field/attribute name'),
                ({'name': '   '}, 'field/attribute name'),
                ({'name': 'x' * 256}, 'is too long'),
                ({'name': 'x', 'color': 'red'}, "'color' was unexpected"),
                ({'name': 'x', 'os-volume-type-access:is_public': 'sure'},
                 'field/attribute os-volume-type-access:is_public'),
                ({'name': 'x', 'extra_specs': {'k': 1}},
                 'field/attribute k')):
            response = self._create(status=400, **values)
            self.assertFault(response, 400, 'badRequest', message)

    def test_duplicate_name_is_a_conflict(self):
        self._create()
        response = self._create(status=409)
        self.assertFault(response, 409, 'conflictingRequest', 'gold')

    def test_private_type(self):
        private = self._create(**{'os-volume-type-access:is_public':
                                  'false'}).json['volume_type']
        self.assertFalse(private['is_public'])
        response = self.app.get(self.url('types/%s' % private['id']),
                                headers=base.MEMBER, status=404)
        self.assertFault(response, 404, 'itemNotFound')

    def test_list_and_is_public_filter(self):
        self._create(name='public')
        self._create(name='private',
                     **{'os-volume-type-access:is_public': False})

        def names(query='', headers=base.ADMIN):
            return sorted(t['name'] for t in self.app.get(
                self.url('types') + query,
                headers=headers).json['volume_types'])
        self.assertEqual(['__DEFAULT__', 'public'], names())
        self.assertEqual(['private'], names('?is_public=false'))
        self.assertEqual(['__DEFAULT__', 'private', 'public'],
                         names('?is_public=none'))
        self.assertEqual(['__DEFAULT__', 'public'],
                         names('?is_public=none', headers=base.MEMBER))
        response = self.app.get(self.url('types?is_public=maybe'),
                                headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'Invalid is_public filter [maybe]')

    def test_list_extra_specs_filter_from_3_52(self):
        self._create(name='shared',
                     extra_specs={'multiattach': '<is> True'})
        query = '?extra_specs={"multiattach": "<is> True"}'
        v352 = base.headers(version=mv.SUPPORT_VOLUME_TYPE_FILTER)
        body = self.app.get(self.url('types') + query, headers=v352).json
        self.assertEqual(['shared'],
                         [t['name'] for t in body['volume_types']])
        body = self.app.get(self.url('types') + query,
                            headers=base.ADMIN).json
        self.assertEqual(2, len(body['volume_types']))

    def test_list_paging(self):
        for name in ('a', 'b', 'c'):
            self._create(name=name)
        body = self.app.get(self.url('types?limit=2&sort=name:asc'),
                            headers=base.MEMBER).json
        self.assertEqual(['__DEFAULT__', 'a'],
                         [t['name'] for t in body['volume_types']])
        self.assertIn('marker=', body['volume_type_links'][0]['href'])
        self.assertIn('/types?', body['volume_type_links'][0]['href'])

    def test_update(self):
        type_id = self._create().json['volume_type']['id']
        url = self.url('types/%s' % type_id)
        updated = self.app.put_json(url, {'volume_type': {
            'name': 'platinum', 'description': 'd', 'is_public': 'false'}},
            headers=base.ADMIN).json['volume_type']
        self.assertEqual('platinum', updated['name'])
        self.assertEqual('d', updated['description'])
        self.assertFalse(updated['is_public'])
        for body, message in (
                ({}, 'Specify volume type name, description, is_public'),
                ({'name': ' '}, 'Volume type name can not be empty.'),
                ({'extra_specs': {}}, "'extra_specs' was unexpected")):
            response = self.app.put_json(url, {'volume_type': body},
                                         headers=base.ADMIN, status=400)
            self.assertFault(response, 400, 'badRequest', message)

    def test_delete(self):
        type_id = self._create().json['volume_type']['id']
        url = self.url('types/%s' % type_id)
        response = self.app.delete(url, headers=base.ADMIN, status=202)
        self.assertEqual(b'', response.body)
        self.app.get(url, headers=base.ADMIN, status=404)

    def test_delete_in_use_is_refused(self):
        self.app.delete(self.url('types/%s' % self.default_type.id),
                        headers=base.ADMIN, status=400)
        type_id = self._create().json['volume_type']['id']
        self.create_volume(volume_type_id=type_id)
        response = self.app.delete(self.url('types/%s' % type_id),
                                   headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest', 'volumes present')


class TestExtraSpecs(TypesTestCase):

    def setUp(self):
        super().setUp()
        self.type_id = self._create(extra_specs={'a': '1'}).json[
            'volume_type']['id']
        self.specs_url = self.url('types/%s/extra_specs' % self.type_id)

    def test_crud(self):
        self.assertEqual({'extra_specs': {'a': '1'}}, self.app.get(
            self.specs_url, headers=base.ADMIN).json)
        response = self.app.post_json(
            self.specs_url, {'extra_specs': {'b': '2', 'a': '3'}},
            headers=base.ADMIN)
        self.assertEqual({'extra_specs': {'b': '2', 'a': '3'}},
                         response.json)
        self.assertEqual({'a': '3', 'b': '2'}, self.app.get(
            self.specs_url, headers=base.ADMIN).json['extra_specs'])
        self.assertEqual({'b': '2'}, self.app.get(
            self.specs_url + '/b', headers=base.ADMIN).json)
        self.assertEqual({'b': '4'}, self.app.put_json(
            self.specs_url + '/b', {'b': '4'}, headers=base.ADMIN).json)
        self.app.delete(self.specs_url + '/b', headers=base.ADMIN,
                        status=202)
        response = self.app.get(self.specs_url + '/b', headers=base.ADMIN,
                                status=404)
        self.assertFault(response, 404, 'itemNotFound', 'b')
        response = self.app.delete(self.specs_url + '/b',
                                   headers=base.ADMIN, status=404)
        self.assertFault(response, 404, 'itemNotFound')

    def test_members_see_user_visible_specs_only(self):
        type_id = self._create(name='shared', extra_specs={
            'multiattach': '<is> True', 'volume_backend_name': 'file',
            'multiattach:max_attachments': '4',
            'replication_enabled': '<is> False'}).json['volume_type']['id']
        visible = {'multiattach': '<is> True',
                   'multiattach:max_attachments': '4',
                   'replication_enabled': '<is> False'}
        specs_url = self.url('types/%s/extra_specs' % type_id)
        for headers in (base.MEMBER, base.READER):
            self.assertEqual(visible, self.app.get(
                specs_url, headers=headers).json['extra_specs'])
            self.assertEqual(visible, self.app.get(
                self.url('types/%s' % type_id),
                headers=headers).json['volume_type']['extra_specs'])
            listed = {t['id']: t for t in self.app.get(
                self.url('types'), headers=headers).json['volume_types']}
            self.assertEqual(visible, listed[type_id]['extra_specs'])
            # A hidden spec is not found, like one that does not exist.
            response = self.app.get(specs_url + '/volume_backend_name',
                                    headers=headers, status=404)
            self.assertFault(response, 404, 'itemNotFound')
            self.assertEqual({'multiattach': '<is> True'}, self.app.get(
                specs_url + '/multiattach', headers=headers).json)
        self.assertEqual('file', self.app.get(
            specs_url, headers=base.ADMIN).json['extra_specs'][
                'volume_backend_name'])

    def test_members_cannot_filter_by_hidden_specs(self):
        self._create(name='a', extra_specs={'volume_backend_name': 'x'})
        self._create(name='b', extra_specs={'volume_backend_name': 'y'})

        def names(headers, value):
            query = '?extra_specs={"volume_backend_name": "%s"}' % value
            return sorted(t['name'] for t in self.app.get(
                self.url('types') + query,
                headers=dict(headers, **{'OpenStack-API-Version':
                                         'volume 3.52'})).json[
                    'volume_types'])
        self.assertEqual(['a'], names(base.ADMIN, 'x'))
        # Ignored for members: it would tell the hidden value.
        self.assertEqual(names(base.MEMBER, 'x'), names(base.MEMBER, 'y'))
        self.assertIn('a', names(base.MEMBER, 'x'))
        self.assertIn('b', names(base.MEMBER, 'x'))

    def test_member_cannot_write(self):
        for response in (
                self.app.post_json(self.specs_url, {'extra_specs': {
                    'b': '2'}}, headers=base.MEMBER, status=403),
                self.app.put_json(self.specs_url + '/a', {'a': '2'},
                                  headers=base.MEMBER, status=403),
                self.app.delete(self.specs_url + '/a', headers=base.MEMBER,
                                status=403)):
            self.assertFault(response, 403, 'forbidden',
                             'types_extra_specs:manage')

    def test_validation(self):
        response = self.app.put_json(self.specs_url + '/a', {'b': '2'},
                                     headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'Request body and URI mismatch')
        response = self.app.put_json(self.specs_url + '/a',
                                     {'a': '2', 'b': '3'},
                                     headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest', 'has too many')
        response = self.app.post_json(self.specs_url, {'extra_specs': {
            'bad key': 'x'}}, headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest',
                         "'bad key' does not match any of the regexes")
        response = self.app.post_json(self.specs_url, {'specs': {}},
                                      headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest',
                         "'extra_specs' is a required property")

    def test_unknown_type(self):
        url = self.url('types/%s/extra_specs' % uuid.uuid4())
        self.assertFault(self.app.get(url, headers=base.ADMIN, status=404),
                         404, 'itemNotFound')
        self.assertFault(self.app.post_json(
            url, {'extra_specs': {'a': 'b'}}, headers=base.ADMIN,
            status=404), 404, 'itemNotFound')
        self.assertFault(self.app.get(
            self.url('types/nope/extra_specs'), headers=base.ADMIN,
            status=404), 404, 'itemNotFound')
