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

"""Tests of the access lists of private volume types
(os-volume-type-access), with python-cinderclient too."""

import uuid

from cinder_ma.volume import types as volume_types
from tests.unit.api import base


class TypeAccessTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.private = volume_types.create_type(
            self.admin_context, 'private', is_public=False)
        self.public = volume_types.create_type(self.admin_context, 'public')

    def access_url(self, vtype=None):
        type_id = getattr(vtype or self.private, 'id', vtype)
        return self.url('types/%s/os-volume-type-access' % type_id)

    def act(self, body, vtype=None, headers=base.ADMIN, status=202):
        type_id = getattr(vtype or self.private, 'id', vtype)
        return self.app.post_json(self.url('types/%s/action' % type_id),
                                  body, headers=headers, status=status)

    def add(self, project, vtype=None, **kw):
        return self.act({'addProjectAccess': {'project': project}}, vtype,
                        **kw)

    def remove(self, project, vtype=None, **kw):
        return self.act({'removeProjectAccess': {'project': project}},
                        vtype, **kw)

    def listed(self, vtype=None):
        return self.app.get(self.access_url(vtype),
                            headers=base.ADMIN).json


class TestTypeAccess(TypeAccessTestCase):

    def test_add_list_remove(self):
        self.assertEqual({'volume_type_access': []}, self.listed())
        response = self.add(base.OTHER_PROJECT)
        self.assertEqual(b'', response.body)
        self.add(base.PROJECT)
        body = self.listed()
        self.assertEqual(
            sorted([{'volume_type_id': self.private.id,
                     'project_id': base.OTHER_PROJECT},
                    {'volume_type_id': self.private.id,
                     'project_id': base.PROJECT}],
                   key=lambda a: a['project_id']),
            sorted(body['volume_type_access'],
                   key=lambda a: a['project_id']))
        self.remove(base.OTHER_PROJECT)
        self.assertEqual([base.PROJECT], [
            a['project_id'] for a in self.listed()['volume_type_access']])

    def test_access_lets_the_project_see_and_use_the_type(self):
        url = self.url('types/%s' % self.private.id)
        self.app.get(url, headers=base.MEMBER, status=404)
        self.add(base.PROJECT)
        shown = self.app.get(url, headers=base.MEMBER).json['volume_type']
        self.assertFalse(shown['os-volume-type-access:is_public'])
        names = [t['name'] for t in self.app.get(
            self.url('types'), headers=base.MEMBER).json['volume_types']]
        self.assertIn('private', names)
        self.remove(base.PROJECT)
        self.app.get(url, headers=base.MEMBER, status=404)

    def test_public_type_has_no_list(self):
        # Cinder: 404 (VolumeTypeAccessNotFound).
        response = self.app.get(self.access_url(self.public),
                                headers=base.ADMIN, status=404)
        self.assertFault(response, 404, 'itemNotFound',
                         'Access list not available for public volume '
                         'types')
        response = self.add(base.PROJECT, self.public, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'access cannot be added to a public volume type')

    def test_twice_and_never(self):
        self.add(base.PROJECT)
        response = self.add(base.PROJECT, status=409)
        self.assertFault(response, 409, 'conflictingRequest',
                         'already exists')
        response = self.remove(base.OTHER_PROJECT, status=404)
        self.assertFault(response, 404, 'itemNotFound',
                         'Volume type access not found')

    def test_unknown_types(self):
        for type_id in ('nope', str(uuid.uuid4())):
            self.assertFault(self.app.get(
                self.access_url(type_id), headers=base.ADMIN, status=404),
                404, 'itemNotFound', type_id)
            self.assertFault(self.add(base.PROJECT, type_id, status=404),
                             404, 'itemNotFound', type_id)
            self.assertFault(self.remove(base.PROJECT, type_id,
                                         status=404),
                             404, 'itemNotFound', type_id)

    def test_member_cannot(self):
        response = self.app.get(self.access_url(), headers=base.MEMBER,
                                status=403)
        self.assertFault(response, 403, 'forbidden',
                         'volume_extension:volume_type_access')
        response = self.add(base.PROJECT, headers=base.MEMBER, status=403)
        self.assertFault(response, 403, 'forbidden', 'addProjectAccess')
        self.add(base.PROJECT)
        response = self.remove(base.PROJECT, headers=base.MEMBER,
                               status=403)
        self.assertFault(response, 403, 'forbidden', 'removeProjectAccess')
        self.assertEqual(1, len(self.listed()['volume_type_access']))

    def test_validation(self):
        for body, message in (
                ({'addProjectAccess': {}},
                 "'project' is a required property"),
                ({'addProjectAccess': {'project': ''}},
                 'field/attribute project'),
                ({'addProjectAccess': {'project': 5}},
                 'field/attribute project'),
                ({'addProjectAccess': {'project': 'x' * 256}},
                 'is too long'),
                ({'removeProjectAccess': {'project': 'p', 'x': 1}},
                 "'x' was unexpected"),
                ({'removeProjectAccess': None},
                 "None is not of type 'object'"),
                ({'addProjectAccess': {'project': 'p'},
                  'removeProjectAccess': {'project': 'p'}},
                 'Malformed request body'),
                ({'os-extend': {}}, 'There is no such action: os-extend')):
            response = self.act(body, status=400)
            self.assertFault(response, 400, 'badRequest', message)

    def test_is_public_filter_of_type_lists(self):
        def names(query, headers=base.ADMIN):
            return sorted(t['name'] for t in self.app.get(
                self.url('types') + query,
                headers=headers).json['volume_types'])
        everything = ['__DEFAULT__', 'private', 'public']
        self.assertEqual(everything, names('?is_public=None'))
        self.assertEqual(['__DEFAULT__', 'public'],
                         names('?is_public=true'))
        self.assertEqual(['private'], names('?is_public=false'))
        # Members see public types whatever they ask.
        self.assertEqual(['__DEFAULT__', 'public'],
                         names('?is_public=None', base.MEMBER))
