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

"""Every response in Cinder's shape for its call and microversion.

Drives the real app (tests.unit.api.base) through each call a client
makes and holds the JSON it answers against the schema of Cinder's shape
for that call and microversion (tests.unit.api.cinder_shapes: closed
objects, as Tempest checks them), as a member, an administrator and a
service, at the microversions where the shapes change.
"""

import uuid

import jsonschema

from cinder_ma.api import microversions as mv
from tests.unit.api import base
from tests.unit.api import cinder_shapes as shapes

# The microversions where a volume's shape changes, and the maximum.
VERSIONS = ('3.0', mv.GROUP_VOLUME, mv.VOLUME_DETAIL_PROVIDER_ID,
            mv.SUPPORT_COUNT_INFO, mv.VOLUME_SHARED_TARGETS_AND_SERVICE_FIELDS,
            mv.VOLUME_CLUSTER_NAME, mv.VOLUME_TYPE_ID_IN_VOLUME_DETAIL,
            mv.USE_QUOTA, mv.MAX_VERSION)
# Of the attachments API and the services.
ATTACHMENT_VERSIONS = (mv.NEW_ATTACH, mv.ATTACHMENT_CREATE_MODE_ARG,
                       mv.MAX_VERSION)
SERVICE_VERSIONS = ('3.0', mv.CLUSTER_SUPPORT, mv.BACKEND_STATE_REPORT,
                    mv.MAX_VERSION)
TYPE_VERSIONS = ('3.0', mv.MAX_VERSION)

CONNECTOR = {'host': 'compute1', 'initiator': 'iqn.2026-11.test:compute1'}


def _callers(version):
    return {
        'member': base.headers(roles=['member', 'reader'], version=version),
        'admin': base.headers(user='admin-user', version=version),
        'service': base.headers(user='nova', roles=['member', 'reader'],
                                service_roles=['service'], version=version),
    }


class TestCinderShapes(base.APITestCase):

    def check(self, schema, response, what):
        errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(
            response.json), key=str)
        if errors:
            self.fail('%s: %s' % (what, '; '.join(
                '%s at %s' % (e.message, list(e.absolute_path))
                for e in errors)))

    def setUp(self):
        super().setUp()
        # Volumes are made for every caller at every version: the quotas
        # must not decide.
        self.flags(quota_volumes=-1, quota_gigabytes=-1)
        self.volume = self.create_volume(name='attached', multiattach=True)
        self.add_attachment(self.volume, attach_status='attached',
                            instance_uuid=str(uuid.uuid4()),
                            attached_host='compute1', mountpoint='/dev/vdb',
                            attach_mode='ro')
        self.add_attachment(self.volume, attach_status='reserved')

    def test_volumes(self):
        for version in VERSIONS:
            for who, headers in _callers(version).items():
                what = '%s at %s' % (who, version)
                created = self.app.post_json(
                    self.url('volumes'), {'volume': {'size': 1}},
                    headers=headers, status=202)
                self.check(shapes.volume_create(version), created,
                           'create, ' + what)
                volume_id = created.json['volume']['id']
                updated = self.app.put_json(
                    self.url('volumes/%s' % volume_id),
                    {'volume': {'name': 'renamed'}}, headers=headers)
                self.check(shapes.volume_create(version), updated,
                           'update, ' + what)
                for volume in (volume_id, self.volume.id):
                    shown = self.app.get(self.url('volumes/%s' % volume),
                                         headers=headers)
                    self.check(shapes.volume_show(version), shown,
                               'show, ' + what)
                query = '?limit=1&with_count=true'
                self.check(shapes.volume_detail_list(version),
                           self.app.get(self.url('volumes/detail') + query,
                                        headers=headers),
                           'detail list, ' + what)
                self.check(shapes.volume_summary_list(version),
                           self.app.get(self.url('volumes') + query,
                                        headers=headers),
                           'summary list, ' + what)
                self.check(shapes.METADATA, self.app.get(
                    self.url('volumes/%s/metadata' % volume_id),
                    headers=headers), 'metadata, ' + what)

    def test_attachment_entries_have_seven_keys(self):
        shown = self.app.get(self.url('volumes/%s' % self.volume.id),
                             headers=_callers(mv.MAX_VERSION)['admin'])
        (entry,) = shown.json['volume']['attachments']
        self.assertEqual(7, len(entry))
        self.check(shapes.volume_show(mv.MAX_VERSION), shown, 'show')

    def test_types(self):
        for version in TYPE_VERSIONS:
            callers = _callers(version)
            admin = callers['admin']
            created = self.app.post_json(
                self.url('types'),
                {'volume_type': {'name': 'gold-%s' % version,
                                 'extra_specs': {'k': 'v'}}},
                headers=admin)
            self.check(shapes.VOLUME_TYPE_CREATE, created,
                       'create at %s' % version)
            type_id = created.json['volume_type']['id']
            updated = self.app.put_json(
                self.url('types/%s' % type_id),
                {'volume_type': {'description': 'd'}}, headers=admin)
            self.check(shapes.VOLUME_TYPE_UPDATE, updated,
                       'update at %s' % version)
            specs = self.url('types/%s/extra_specs' % type_id)
            self.check(shapes.EXTRA_SPECS_LIST, self.app.post_json(
                specs, {'extra_specs': {'a': 'b'}}, headers=admin),
                'extra specs create')
            self.check(shapes.EXTRA_SPEC_ITEM, self.app.put_json(
                specs + '/a', {'a': 'c'}, headers=admin),
                'extra spec update')
            for who, headers in callers.items():
                what = '%s at %s' % (who, version)
                self.check(shapes.VOLUME_TYPE_SHOW, self.app.get(
                    self.url('types/%s' % type_id), headers=headers),
                    'show, ' + what)
                self.check(shapes.VOLUME_TYPE_LIST, self.app.get(
                    self.url('types'), headers=headers), 'list, ' + what)
            self.check(shapes.EXTRA_SPECS_LIST, self.app.get(
                specs, headers=admin), 'extra specs')
            self.check(shapes.EXTRA_SPEC_ITEM, self.app.get(
                specs + '/a', headers=admin), 'extra spec')
        private = self.app.post_json(
            self.url('types'),
            {'volume_type': {'name': 'private',
                             'os-volume-type-access:is_public': False}},
            headers=_callers('3.0')['admin']).json['volume_type']
        self.check(shapes.TYPE_ACCESS_LIST, self.app.get(
            self.url('types/%s/os-volume-type-access' % private['id']),
            headers=_callers('3.0')['admin']), 'type access')

    def test_attachments(self):
        for version in ATTACHMENT_VERSIONS:
            headers = _callers(version)['service']
            volume = self.create_volume(multiattach=True)
            created = self.app.post_json(
                self.url('attachments'),
                {'attachment': {'volume_uuid': volume.id,
                                'instance_uuid': str(uuid.uuid4()),
                                'connector': CONNECTOR}},
                headers=headers)
            self.check(shapes.ATTACHMENT_SHOW, created,
                       'create at %s' % version)
            self.app.delete(self.url('attachments/%s' % created.json[
                'attachment']['id']), headers=headers)
            # A connector is given to a reservation only (a connected
            # attachment is a 409).
            reserved = self.app.post_json(
                self.url('attachments'),
                {'attachment': {'volume_uuid': volume.id,
                                'instance_uuid': str(uuid.uuid4())}},
                headers=headers)
            self.check(shapes.ATTACHMENT_SHOW, reserved,
                       'reserve at %s' % version)
            attachment_id = reserved.json['attachment']['id']
            self.check(shapes.ATTACHMENT_SHOW, self.app.put_json(
                self.url('attachments/%s' % attachment_id),
                {'attachment': {'connector': CONNECTOR}}, headers=headers),
                'update at %s' % version)
            self.check(shapes.ATTACHMENT_SHOW, self.app.get(
                self.url('attachments/%s' % attachment_id),
                headers=headers), 'show at %s' % version)
            self.check(shapes.ATTACHMENT_SUMMARY_LIST, self.app.get(
                self.url('attachments?limit=1'), headers=headers),
                'list at %s' % version)
            self.check(shapes.ATTACHMENT_DETAIL_LIST, self.app.get(
                self.url('attachments/detail?limit=1'), headers=headers),
                'detail list at %s' % version)
            self.check(shapes.ATTACHMENT_SUMMARY_LIST, self.app.delete(
                self.url('attachments/%s' % attachment_id),
                headers=headers), 'delete at %s' % version)

    def test_services(self):
        for version in SERVICE_VERSIONS:
            self.check(shapes.services(version), self.app.get(
                self.url('os-services'), headers=_callers(version)['admin']),
                'services at %s' % version)

    def test_versions(self):
        self.check(shapes.VERSIONS, self.app.get('/', status=300),
                   'GET /')
        self.check(shapes.VERSIONS, self.app.get('/v3/'), 'GET /v3/')

    def test_extensions(self):
        headers = _callers(mv.MAX_VERSION)['member']
        listed = self.app.get(self.url('extensions'), headers=headers)
        self.check(shapes.EXTENSIONS, listed, 'extensions')
        for extension in listed.json['extensions']:
            self.check(shapes.EXTENSION, self.app.get(
                self.url('extensions/%s' % extension['alias']),
                headers=headers), extension['alias'])

    def test_schemas_are_closed(self):
        # A key Cinder does not send fails, as it fails Tempest.
        shown = self.app.get(self.url('volumes/%s' % self.volume.id),
                             headers=_callers('3.0')['member'])
        self.check(shapes.volume_show('3.0'), shown, 'show')
        body = dict(shown.json)
        body['volume'] = dict(body['volume'], extra='x')
        self.assertRaises(jsonschema.ValidationError, jsonschema.validate,
                          body, shapes.volume_show('3.0'))
        self.assertRaises(
            jsonschema.ValidationError, jsonschema.validate,
            shown.json, shapes.volume_create('3.0'))
