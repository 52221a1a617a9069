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

"""Tests of the volume transfer API (os-volume-transfer, and
volume-transfers from 3.55), against the shapes Tempest holds Cinder's
to (tempest/lib/api_schema/response/volume/transfers.py, v3_55 and
v3_57)."""

import jsonschema

from cinder_ma.api import microversions as mv
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import volumes as volume_db
from tests.unit.api import base

_LINKS = {'type': 'array', 'items': {
    'type': 'object',
    'properties': {'href': {'type': 'string'}, 'rel': {'type': 'string'}},
    'additionalProperties': False, 'required': ['href', 'rel']}}
_SUMMARY = {'type': 'object',
            'properties': {'id': {'type': 'string', 'format': 'uuid'},
                           'volume_id': {'type': 'string'},
                           'name': {'type': ['string', 'null']},
                           'links': _LINKS},
            'additionalProperties': False,
            'required': ['id', 'volume_id', 'name', 'links']}


def _detail(extra=(), required=()):
    schema = {'type': 'object',
              'properties': dict(_SUMMARY['properties'],
                                 created_at={'type': 'string'}),
              'additionalProperties': False,
              'required': _SUMMARY['required'] + ['created_at']}
    for name, spec in extra:
        schema['properties'][name] = spec
    schema['required'] += list(required)
    return schema


_HISTORY = (('no_snapshots', {'type': 'boolean'}),
            ('destination_project_id', {'type': ['string', 'null']}),
            ('source_project_id', {'type': ['string', 'null']}),
            ('accepted', {'type': 'boolean'}))
DETAIL = _detail()
DETAIL_355 = _detail(_HISTORY[:1], ['no_snapshots'])
DETAIL_357 = _detail(_HISTORY, [name for name, _s in _HISTORY])
CREATE = _detail([('auth_key', {'type': 'string'})], ['auth_key'])
CREATE_357 = _detail(_HISTORY + (('auth_key', {'type': 'string'}),),
                     [name for name, _s in _HISTORY] + ['auth_key'])


def _wrapped(schema):
    return {'type': 'object', 'properties': {'transfer': schema},
            'additionalProperties': False, 'required': ['transfer']}


def _listed(schema):
    return {'type': 'object',
            'properties': {'transfers': {'type': 'array', 'items': schema},
                           'transfers_links': _LINKS},
            'additionalProperties': False, 'required': ['transfers']}


def _member(version=None, project=base.PROJECT, user='fake-user'):
    return base.headers(project=project, user=user,
                        roles=['member', 'reader'], version=version)


class TransfersAPITestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.flags(quota_volumes=-1, quota_gigabytes=-1)

    def _create(self, path='os-volume-transfer', version=None, **fields):
        volume = self.create_volume()
        body = {'transfer': dict({'volume_id': volume.id}, **fields)}
        response = self.app.post_json(self.url(path), body,
                                      headers=_member(version), status=202)
        return volume, response.json['transfer']

    def test_lifecycle_through_os_volume_transfer(self):
        volume, created = self._create(name=' gift ')
        jsonschema.validate({'transfer': created}, _wrapped(CREATE))
        self.assertEqual('gift', created['name'])
        self.assertIn('/os-volume-transfer/', created['links'][0]['href'])
        self.assertEqual('awaiting-transfer', volume_db.volume_get(
            self.admin_context, volume.id).status)
        listed = self.app.get(self.url('os-volume-transfer'),
                              headers=_member()).json
        jsonschema.validate(listed, _listed(_SUMMARY))
        detailed = self.app.get(self.url('os-volume-transfer/detail'),
                                headers=_member(mv.MAX_VERSION)).json
        # Cinder's extension shows no v3 fields at any version.
        jsonschema.validate(detailed, _listed(DETAIL))
        shown = self.app.get(
            self.url('os-volume-transfer/%s' % created['id']),
            headers=_member()).json
        jsonschema.validate(shown, _wrapped(DETAIL))
        self.assertNotIn('auth_key', shown['transfer'])
        # Another project does not see it, but accepts it with its key.
        other = _member(project=base.OTHER_PROJECT, user='bob')
        self.app.get(self.url('os-volume-transfer/%s' % created['id'],
                              project=base.OTHER_PROJECT),
                     headers=other, status=404)
        response = self.app.post_json(
            self.url('os-volume-transfer/%s/accept' % created['id'],
                     project=base.OTHER_PROJECT),
            {'accept': {'auth_key': 'wrong'}}, headers=other, status=400)
        self.assertFault(response, 400, 'badRequest', 'Invalid auth key')
        accepted = self.app.post_json(
            self.url('os-volume-transfer/%s/accept' % created['id'],
                     project=base.OTHER_PROJECT),
            {'accept': {'auth_key': created['auth_key']}}, headers=other,
            status=202).json
        jsonschema.validate(accepted, _wrapped(_SUMMARY))
        moved = volume_db.volume_get(self.admin_context, volume.id)
        self.assertEqual((base.OTHER_PROJECT, 'available'),
                         (moved.project_id, moved.status))
        self.app.get(self.url('os-volume-transfer/%s' % created['id']),
                     headers=_member(), status=404)

    def test_v3_fields_and_delete(self):
        version = mv.TRANSFER_WITH_SNAPSHOTS
        volume, created = self._create('volume-transfers', version,
                                       no_snapshots=True)
        self.assertTrue(created['no_snapshots'])
        shown = self.app.get(
            self.url('volume-transfers/%s' % created['id']),
            headers=_member(version)).json
        jsonschema.validate(shown, _wrapped(DETAIL_355))
        shown = self.app.get(
            self.url('volume-transfers/%s' % created['id']),
            headers=_member(mv.TRANSFER_WITH_HISTORY)).json
        jsonschema.validate(shown, _wrapped(DETAIL_357))
        self.assertEqual((base.PROJECT, None, False),
                         (shown['transfer']['source_project_id'],
                          shown['transfer']['destination_project_id'],
                          shown['transfer']['accepted']))
        self.app.delete(self.url('volume-transfers/%s' % created['id']),
                        headers=_member(version), status=202)
        self.assertEqual('available', volume_db.volume_get(
            self.admin_context, volume.id).status)

    def test_create_357_shape_and_version_gates(self):
        _volume, created = self._create('volume-transfers',
                                        mv.TRANSFER_WITH_HISTORY)
        jsonschema.validate({'transfer': created}, _wrapped(CREATE_357))
        response = self.app.get(
            self.url('volume-transfers'), status=404,
            headers=_member(mv.prior(mv.TRANSFER_WITH_SNAPSHOTS)))
        self.assertFault(response, 404, 'itemNotFound',
                         'not supported on this method')
        # no_snapshots only through volume-transfers.
        volume = self.create_volume()
        self.app.post_json(
            self.url('os-volume-transfer'),
            {'transfer': {'volume_id': volume.id, 'no_snapshots': True}},
            headers=_member(mv.MAX_VERSION), status=400)

    def test_paging_from_359(self):
        made = sorted(self._create('volume-transfers',
                                   mv.TRANSFER_WITH_SNAPSHOTS)[1]['id']
                      for _ in range(3))
        version = mv.SUPPORT_TRANSFER_PAGINATION
        page = self.app.get(self.url('volume-transfers?limit=2&sort=id:asc'),
                            headers=_member(version)).json
        self.assertEqual(made[:2], [t['id'] for t in page['transfers']])
        self.assertIn('marker=', page['transfers_links'][0]['href'])
        rest = self.app.get(
            self.url('volume-transfers?sort=id:asc&marker=%s' % made[1]),
            headers=_member(version)).json
        self.assertEqual(made[2:], [t['id'] for t in rest['transfers']])
        self.app.get(self.url('volume-transfers?offset=x'),
                     headers=_member(version), status=400)

    def test_refusals(self):
        volume = self.create_volume(status='in-use')
        response = self.app.post_json(
            self.url('os-volume-transfer'),
            {'transfer': {'volume_id': volume.id}}, headers=_member(),
            status=400)
        self.assertFault(response, 400, 'badRequest', 'must be available')
        response = self.app.post_json(
            self.url('os-volume-transfer'),
            {'transfer': {'volume_id': '6f0b4bde-4a3f-4b8d-9f0c-'
                                       '3f4a4cf2f7d1'}},
            headers=_member(), status=404)
        self.assertFault(response, 404, 'itemNotFound')
        # An offered volume cannot be deleted meanwhile.
        offered, _created = self._create()
        self.app.delete(self.url('volumes/%s' % offered.id),
                        headers=_member(), status=400)

    def test_snapshots_must_be_available_unless_left_behind(self):
        volume = self.create_volume()
        snapshot = snapshot_db.snapshot_create(self.admin_context, {
            'project_id': base.PROJECT, 'user_id': 'fake-user',
            'volume_id': volume.id, 'volume_type_id': volume.volume_type_id,
            'volume_size': volume.size, 'status': 'error'}, ('available',))
        response = self.app.post_json(
            self.url('os-volume-transfer'),
            {'transfer': {'volume_id': volume.id}}, headers=_member(),
            status=400)
        self.assertFault(response, 400, 'badRequest',
                         'snapshot: %s status must be available'
                         % snapshot.id)
        version = mv.TRANSFER_WITH_SNAPSHOTS
        created = self.app.post_json(
            self.url('volume-transfers'),
            {'transfer': {'volume_id': volume.id, 'no_snapshots': True}},
            headers=_member(version), status=202).json['transfer']
        self.assertTrue(created['no_snapshots'])
