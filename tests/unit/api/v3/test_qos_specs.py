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

"""Tests of the qos-specs API, against the response schemas Tempest
holds Cinder to (tempest/lib/api_schema/response/volume/qos.py)."""

import uuid

import jsonschema

from cinder_ma.db import types as type_db
from tests.unit.api import base

_QOS = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string'},
        'id': {'type': 'string', 'format': 'uuid'},
        'consumer': {'type': 'string'},
        'specs': {'type': 'object',
                  'patternProperties': {'^.+$': {'type': 'string'}}},
    },
    'additionalProperties': False,
    'required': ['name', 'id', 'specs'],
}
SHOW_QOS = {
    'type': 'object',
    'properties': {
        'qos_specs': _QOS,
        'links': {'type': 'array', 'items': {
            'type': 'object',
            'properties': {'href': {'type': 'string'},
                           'rel': {'type': 'string'}},
            'additionalProperties': False,
            'required': ['href', 'rel']}},
    },
    'additionalProperties': False,
    'required': ['qos_specs', 'links'],
}
LIST_QOS = {
    'type': 'object',
    'properties': {'qos_specs': {'type': 'array', 'items': _QOS}},
    'additionalProperties': False,
    'required': ['qos_specs'],
}
SET_QOS_KEY = {
    'type': 'object',
    'properties': {'qos_specs': {
        'type': 'object',
        'patternProperties': {'^.+$': {'type': 'string'}}}},
    'additionalProperties': False,
    'required': ['qos_specs'],
}
ASSOCIATIONS = {
    'type': 'object',
    'properties': {'qos_associations': {'type': 'array', 'items': {
        'type': 'object',
        'properties': {'association_type': {'type': 'string'},
                       'id': {'type': 'string', 'format': 'uuid'},
                       'name': {'type': 'string'}},
        'additionalProperties': False,
        'required': ['association_type', 'id', 'name']}}},
    'additionalProperties': False,
    'required': ['qos_associations'],
}


class TestQoSSpecs(base.APITestCase):

    def _create(self, status=200, headers=base.ADMIN, **specs):
        specs.setdefault('name', 'gold')
        return self.app.post_json(self.url('qos-specs'),
                                  {'qos_specs': specs}, headers=headers,
                                  status=status)

    def _get(self, path, status=200, headers=base.ADMIN):
        return self.app.get(self.url('qos-specs' + path), headers=headers,
                            status=status)

    def _type(self, name):
        return self.app.post_json(
            self.url('types'), {'volume_type': {'name': name}},
            headers=base.ADMIN).json['volume_type']['id']

    def test_create_show_list(self):
        body = self._create(consumer='front-end', read_iops_sec='2000',
                            total_bytes_sec=1024).json
        jsonschema.validate(body, SHOW_QOS)
        qos = body['qos_specs']
        self.assertEqual({'name': 'gold', 'consumer': 'front-end',
                          'specs': {'read_iops_sec': '2000',
                                    'total_bytes_sec': '1024'},
                          'id': qos['id']}, qos)
        self.assertEqual(['self', 'bookmark'],
                         [link['rel'] for link in body['links']])
        self.assertTrue(body['links'][0]['href'].endswith(
            '/v3/%s/qos_specs/%s' % (base.PROJECT, qos['id'])))
        shown = self._get('/' + qos['id']).json
        jsonschema.validate(shown, SHOW_QOS)
        self.assertEqual(qos, shown['qos_specs'])
        listed = self._get('').json
        jsonschema.validate(listed, LIST_QOS)
        # Tempest: the created specs are in the list as created.
        self.assertEqual([qos], listed['qos_specs'])

    def test_consumer(self):
        self.assertEqual('back-end', self._create().json['qos_specs'][
            'consumer'])
        for consumer in ('front-end', 'both'):
            qos = self._create(name=consumer, consumer=consumer).json
            self.assertEqual(consumer, qos['qos_specs']['consumer'])
        response = self._create(name='bad', consumer='middle', status=400)
        self.assertFault(response, 400, 'badRequest', 'consumer')

    def test_create_errors(self):
        self._create()
        response = self._create(status=409)
        self.assertFault(response, 409, 'conflictingRequest', 'gold')
        for body in ({}, {'qos_specs': {}}, {'qos_specs': {'name': ' '}},
                     {'qos_specs': {'name': 'x', 'k': {'a': 1}}}):
            response = self.app.post_json(self.url('qos-specs'), body,
                                          headers=base.ADMIN, status=400)
            self.assertFault(response, 400, 'badRequest')

    def test_set_and_delete_keys(self):
        qos_id = self._create(read_iops_sec='1').json['qos_specs']['id']
        body = self.app.put_json(
            self.url('qos-specs/' + qos_id),
            {'qos_specs': {'iops_bytes': '500', 'read_iops_sec': '2'}},
            headers=base.ADMIN).json
        jsonschema.validate(body, SET_QOS_KEY)
        self.assertEqual({'qos_specs': {'iops_bytes': '500',
                                        'read_iops_sec': '2'}}, body)
        specs = self._get('/' + qos_id).json['qos_specs']['specs']
        self.assertEqual({'iops_bytes': '500', 'read_iops_sec': '2'}, specs)
        self.app.put_json(self.url('qos-specs/%s/delete_keys' % qos_id),
                          {'keys': ['iops_bytes']}, headers=base.ADMIN,
                          status=202)
        specs = self._get('/' + qos_id).json['qos_specs']['specs']
        self.assertEqual({'read_iops_sec': '2'}, specs)
        response = self.app.put_json(
            self.url('qos-specs/%s/delete_keys' % qos_id),
            {'keys': ['iops_bytes']}, headers=base.ADMIN, status=404)
        self.assertFault(response, 404, 'itemNotFound', 'iops_bytes')
        response = self.app.put_json(
            self.url('qos-specs/%s/delete_keys' % qos_id), {'keys': 'x'},
            headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest')
        response = self.app.put_json(
            self.url('qos-specs/' + qos_id),
            {'qos_specs': {'consumer': 'nowhere'}}, headers=base.ADMIN,
            status=400)
        self.assertFault(response, 400, 'badRequest', 'consumer')

    def test_associations(self):
        qos_id = self._create().json['qos_specs']['id']
        type_ids = [self._type('t%d' % i) for i in range(3)]
        for type_id in type_ids:
            response = self._get('/%s/associate?vol_type_id=%s' % (
                qos_id, type_id), status=202)
            self.assertEqual(b'', response.body)
        body = self._get('/%s/associations' % qos_id).json
        jsonschema.validate(body, ASSOCIATIONS)
        self.assertEqual(
            [{'association_type': 'volume_type', 'name': 't%d' % i,
              'id': type_ids[i]} for i in range(3)],
            body['qos_associations'])
        # Admins see the type's qos_specs_id.
        shown = self.app.get(self.url('types/' + type_ids[0]),
                             headers=base.ADMIN).json['volume_type']
        self.assertEqual(qos_id, shown['qos_specs_id'])
        # Associating is idempotent; another specs is refused.
        self._get('/%s/associate?vol_type_id=%s' % (qos_id, type_ids[0]),
                  status=202)
        other = self._create(name='silver').json['qos_specs']['id']
        response = self._get('/%s/associate?vol_type_id=%s' % (
            other, type_ids[0]), status=400)
        self.assertFault(response, 400, 'badRequest',
                         'already associated')
        self._get('/%s/disassociate?vol_type_id=%s' % (qos_id, type_ids[0]),
                  status=202)
        body = self._get('/%s/associations' % qos_id).json
        self.assertEqual(type_ids[1:], [a['id'] for a in
                                        body['qos_associations']])
        self._get('/%s/disassociate_all' % qos_id, status=202)
        self.assertEqual([], self._get('/%s/associations' % qos_id).json[
            'qos_associations'])
        self.assertIsNone(self.app.get(
            self.url('types/' + type_ids[1]),
            headers=base.ADMIN).json['volume_type']['qos_specs_id'])

    def test_association_errors(self):
        qos_id = self._create().json['qos_specs']['id']
        for path, status, message in (
                ('/%s/associate' % qos_id, 400, 'Volume Type id'),
                ('/%s/disassociate' % qos_id, 400, 'Volume Type id'),
                ('/%s/associate?vol_type_id=%s' % (qos_id, uuid.uuid4()),
                 404, 'Volume type'),
                ('/%s/associate?vol_type_id=%s' % (
                    uuid.uuid4(), self.default_type.id), 404, 'QoS'),
                ('/%s/associations' % uuid.uuid4(), 404, 'QoS'),
                ('/%s/disassociate_all' % uuid.uuid4(), 404, 'QoS')):
            response = self._get(path, status=status)
            self.assertFault(response, status,
                             'badRequest' if status == 400
                             else 'itemNotFound', message)

    def test_delete(self):
        qos_id = self._create().json['qos_specs']['id']
        self._get('/%s/associate?vol_type_id=%s' % (
            qos_id, self.default_type.id), status=202)
        response = self.app.delete(self.url('qos-specs/' + qos_id),
                                   headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest', 'associated')
        response = self.app.delete(
            self.url('qos-specs/%s?force=maybe' % qos_id),
            headers=base.ADMIN, status=400)
        self.assertFault(response, 400, 'badRequest', 'force')
        self.app.delete(self.url('qos-specs/%s?force=True' % qos_id),
                        headers=base.ADMIN, status=202)
        self._get('/' + qos_id, status=404)
        self.assertIsNone(type_db.volume_type_get(
            self.admin_context, self.default_type.id).qos_specs_id)
        self.assertEqual([], self._get('').json['qos_specs'])
        # The name is free again.
        self._create()
        response = self.app.delete(self.url('qos-specs/%s' % uuid.uuid4()),
                                   headers=base.ADMIN, status=404)
        self.assertFault(response, 404, 'itemNotFound')

    def test_admin_only(self):
        qos_id = self._create().json['qos_specs']['id']
        for method, path, rule in (
                ('get', '', 'get_all'), ('get', '/' + qos_id, ':get'),
                ('get', '/%s/associations' % qos_id, 'get_all'),
                ('get', '/%s/disassociate_all' % qos_id, 'update'),
                ('delete', '/' + qos_id, 'delete')):
            response = getattr(self.app, method)(
                self.url('qos-specs' + path), headers=base.MEMBER,
                status=403)
            self.assertFault(response, 403, 'forbidden',
                             'volume_extension:qos_specs_manage:')
            self.assertIn(rule, response.json['forbidden']['message'])
        response = self._create(name='x', headers=base.MEMBER, status=403)
        self.assertFault(response, 403, 'forbidden', 'create')
