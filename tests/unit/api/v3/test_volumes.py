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

"""Tests of the volumes API: shapes, validation, paging, contexts."""

import datetime
import uuid

from oslo_utils import timeutils

from cinder_ma.api import microversions as mv
from cinder_ma.api.schemas import parameter_types
from cinder_ma.db import api as db_api
from cinder_ma.db import services as service_db
from cinder_ma.db import volumes as volume_db
from tests.unit.api import base

DETAIL_KEYS = {
    'id', 'status', 'size', 'availability_zone', 'created_at',
    'updated_at', 'name', 'description', 'volume_type', 'snapshot_id',
    'source_volid', 'metadata', 'links', 'user_id', 'bootable',
    'encrypted', 'replication_status', 'consistencygroup_id',
    'multiattach', 'attachments', 'os-vol-tenant-attr:tenant_id'}
ADMIN_KEYS = {'migration_status', 'os-vol-host-attr:host',
              'os-vol-mig-status-attr:migstat',
              'os-vol-mig-status-attr:name_id'}
# Create and update answer without the attributes of Cinder's extensions
# (os-vol-*), as Cinder does (Tempest forbids them there).
CREATED_KEYS = DETAIL_KEYS - {'os-vol-tenant-attr:tenant_id'}
CREATED_ADMIN_KEYS = {'migration_status'}
LATEST_KEYS = {'group_id', 'shared_targets', 'service_uuid',
               'volume_type_id', 'consumes_quota'}


class TestCreate(base.APITestCase):

    def _create(self, volume, headers=base.MEMBER, status=202, **kw):
        return self.app.post_json(self.url('volumes'), {'volume': volume},
                                  headers=headers, status=status, **kw)

    def test_create(self):
        response = self._create({'size': 2, 'name': ' data ',
                                 'description': 'my disk',
                                 'metadata': {'k': 'v'}})
        volume = response.json['volume']
        self.assertEqual(CREATED_KEYS, set(volume))
        self.assertEqual('creating', volume['status'])
        self.assertEqual(2, volume['size'])
        self.assertEqual('data', volume['name'])
        self.assertEqual('my disk', volume['description'])
        self.assertEqual({'k': 'v'}, volume['metadata'])
        self.assertEqual('__DEFAULT__', volume['volume_type'])
        self.assertEqual('false', volume['bootable'])
        self.assertFalse(volume['multiattach'])
        self.assertEqual([], volume['attachments'])
        self.assertEqual('fake-user', volume['user_id'])
        self.assertEqual(
            [{'rel': 'self', 'href': 'http://localhost/v3/%s/volumes/%s'
              % (base.PROJECT, volume['id'])},
             {'rel': 'bookmark', 'href': 'http://localhost/%s/volumes/%s'
              % (base.PROJECT, volume['id'])}], volume['links'])
        # ISO 8601 as Cinder prints it.
        timeutils.parse_strtime(volume['created_at'],
                                '%Y-%m-%dT%H:%M:%S.%f')
        self.create_cast.assert_called_once_with(
            self.create_cast.call_args[0][0], volume['id'],
            base.BACKEND_HOST + '#pool')

    def test_create_size_as_string_and_legacy_names(self):
        volume = self._create({'size': '3', 'display_name': 'old',
                               'display_description': 'desc'}).json['volume']
        self.assertEqual(3, volume['size'])
        self.assertEqual('old', volume['name'])
        self.assertEqual('desc', volume['description'])

    def test_create_with_type_by_name(self):
        self.app.post_json(self.url('types'), {'volume_type': {
            'name': 'fast'}}, headers=base.ADMIN)
        volume = self._create({'size': 1, 'volume_type': 'fast'}).json[
            'volume']
        self.assertEqual('fast', volume['volume_type'])

    def test_private_type_by_id_is_not_found(self):
        """A private type of another project is not found by its id
        either, with the answer of a type that does not exist."""
        private = self.app.post_json(self.url('types'), {'volume_type': {
            'name': 'private', 'os-volume-type-access:is_public': False}},
            headers=base.ADMIN).json['volume_type']
        missing = str(uuid.uuid4())
        answers = []
        for type_id in (private['id'], missing):
            response = self._create({'size': 1, 'volume_type': type_id},
                                    status=404)
            answers.append(response.json['itemNotFound']['message'].replace(
                type_id, '<id>'))
        self.assertEqual(answers[0], answers[1])
        # Given access, the project can use it by id.
        self.app.post_json(
            self.url('types/%s/action' % private['id']),
            {'addProjectAccess': {'project': base.PROJECT}},
            headers=base.ADMIN, status=202)
        volume = self._create({'size': 1, 'volume_type': private['id']})
        self.assertEqual('private', volume.json['volume']['volume_type'])

    def test_create_at_latest_shows_new_fields(self):
        volume = self._create({'size': 1}, headers=base.headers(
            roles=['member'], version='latest')).json['volume']
        self.assertEqual(CREATED_KEYS | LATEST_KEYS, set(volume))
        self.assertEqual(self.service.uuid, volume['service_uuid'])
        self.assertFalse(volume['shared_targets'])
        self.assertTrue(volume['consumes_quota'])

    def test_admin_sees_admin_fields(self):
        volume = self._create({'size': 1}, headers=base.headers(
            version=mv.VOLUME_DETAIL_PROVIDER_ID)).json['volume']
        self.assertEqual(CREATED_KEYS | CREATED_ADMIN_KEYS |
                         {'group_id', 'provider_id'}, set(volume))
        shown = self.app.get(self.url('volumes/%s' % volume['id']),
                             headers=base.headers(
                                 version=mv.VOLUME_DETAIL_PROVIDER_ID)).json[
                                     'volume']
        self.assertEqual(DETAIL_KEYS | ADMIN_KEYS | {'group_id',
                                                     'provider_id'},
                         set(shown))
        self.assertEqual(base.BACKEND_HOST + '#pool',
                         shown['os-vol-host-attr:host'])

    def test_reader_cannot_create(self):
        response = self._create({'size': 1}, headers=base.READER,
                                status=403)
        self.assertFault(response, 403, 'forbidden', 'volume:create')

    def _bad(self, volume, message, headers=base.MEMBER):
        casts = self.create_cast.call_count
        response = self._create(volume, headers=headers, status=400)
        self.assertFault(response, 400, 'badRequest', message)
        self.assertEqual(casts, self.create_cast.call_count)

    def test_bad_sizes(self):
        self._bad({'size': 0}, 'field/attribute size. Value: 0.')
        self._bad({'size': -1}, 'field/attribute size. Value: -1.')
        self._bad({'size': parameter_types.MAX_INT + 1},
                  'is greater than the maximum')
        self._bad({'size': '1.5'}, "does not match '^[0-9]+$'")
        self._bad({'size': 1.5}, "is not of type 'integer', 'string'")
        self._bad({'size': True}, 'field/attribute size')
        self._bad({'name': 'x'}, 'field/attribute size')

    def test_wrong_types(self):
        self._bad({'size': 1, 'name': 5}, 'field/attribute name')
        self._bad({'size': 1, 'name': 'x' * 256}, 'is too long')
        self._bad({'size': 1, 'metadata': {'k': 1}},
                  'field/attribute k')
        self._bad({'size': 1, 'metadata': {'k': 'v' * 256}}, 'is too long')
        self._bad({'size': 1, 'metadata': ['k']}, 'field/attribute metadata')
        self._bad({'size': 1, 'multiattach': 'maybe'},
                  'field/attribute multiattach')

    def test_invalid_uuid_in_body(self):
        self._bad({'size': 1, 'snapshot_id': 'not-a-uuid'},
                  'field/attribute snapshot_id')

    def test_sources(self):
        # As in Cinder, a source that does not exist is a 404.
        snapshot_id = str(uuid.uuid4())
        response = self.app.post_json(
            self.url('volumes'),
            {'volume': {'size': 1, 'snapshot_id': snapshot_id}},
            headers=base.MEMBER, status=404)
        self.assertFault(response, 404, 'itemNotFound', snapshot_id)
        response = self.app.post_json(
            self.url('volumes'),
            {'volume': {'size': 1, 'source_volid': str(uuid.uuid4())}},
            headers=base.MEMBER, status=404)
        self.assertFault(response, 404, 'itemNotFound')
        # A clone takes its source's size, backend and type.
        source = self.create_volume(size=2)
        clone = self._create({'source_volid': source.id}).json['volume']
        self.assertEqual((2, source.id), (clone['size'],
                                          clone['source_volid']))
        self._bad({'size': 1, 'source_volid': source.id},
                  'cannot be smaller than original volume size')
        self._bad({'size': 1, 'imageRef': 'abc'}, 'from an image')
        self._bad({}, 'field/attribute size')
        # Null sources, as clients send them, are fine.
        self._create({'size': 1, 'snapshot_id': None, 'imageRef': None,
                      'source_volid': None, 'consistencygroup_id': None})

    def test_body_errors(self):
        response = self.app.post(self.url('volumes'), '{"volume": ',
                                 headers=base.MEMBER, status=400,
                                 content_type='application/json')
        self.assertFault(response, 400, 'badRequest',
                         'Malformed request body')
        response = self.app.post_json(self.url('volumes'), {'size': 1},
                                      headers=base.MEMBER, status=400)
        self.assertFault(response, 400, 'badRequest',
                         "'volume' is a required property")

    def test_unknown_keys_ignored_below_3_53_refused_from(self):
        self._create({'size': 1, 'user_id': 'x'}, headers=base.headers(
            roles=['member'], version='3.52'))
        self._bad({'size': 1, 'user_id': 'x'},
                  "Additional properties are not allowed ('user_id' was "
                  "unexpected)",
                  headers=base.headers(roles=['member'], version='3.53'))
        response = self.app.post_json(
            self.url('volumes'), {'volume': {'size': 1}, 'extra': 1},
            headers=base.MEMBER, status=400)
        self.assertFault(response, 400, 'badRequest', "'extra' was")

    def test_group_and_backup_keys_by_version(self):
        self._create({'size': 1, 'group_id': None}, headers=base.headers(
            roles=['member'], version=mv.GROUP_VOLUME))
        self._bad({'size': 1, 'group_id': 'g'}, 'groups are not supported',
                  headers=base.headers(roles=['member'],
                                       version=mv.GROUP_VOLUME))
        self._bad({'size': 1, 'backup_id': str(uuid.uuid4())},
                  'from a backup',
                  headers=base.headers(
                      roles=['member'],
                      version=mv.VOLUME_CREATE_FROM_BACKUP))

    def test_legacy_multiattach_below_3_50(self):
        volume = self._create({'size': 1, 'multiattach': True},
                              headers=base.headers(version='3.49')
                              ).json['volume']
        self.assertTrue(volume['multiattach'])

    def test_legacy_multiattach_needs_its_policy(self):
        response = self._create({'size': 1, 'multiattach': True},
                                headers=base.headers(roles=['member'],
                                                     version='3.49'),
                                status=403)
        self.assertFault(response, 403, 'forbidden',
                         'volume:multiattach_legacy_flag')

    def test_multiattach_flag_refused_from_3_50(self):
        for version in ('3.50', '3.53', 'latest'):
            self._bad({'size': 1, 'multiattach': True},
                      'multiattach is "<is> True"',
                      headers=base.headers(version=version))
        # A false flag asks for nothing and is accepted.
        self._create({'size': 1, 'multiattach': False},
                     headers=base.headers(version='3.50'))

    def test_multiattach_through_the_type(self):
        self.app.post_json(self.url('types'), {'volume_type': {
            'name': 'shared', 'extra_specs': {
                'multiattach': '<is> True'}}}, headers=base.ADMIN)
        member = base.headers(roles=['member'], version='3.50')
        # Members may by default, as in Cinder (the type is the gate)...
        volume = self._create({'size': 1, 'volume_type': 'shared'},
                              headers=member).json['volume']
        self.assertTrue(volume['multiattach'])
        # ... and a cloud may keep volume:multiattach to admins.
        self.set_policy_rules({'volume:multiattach': 'rule:admin_api'})
        response = self._create({'size': 1, 'volume_type': 'shared'},
                                headers=member, status=403)
        self.assertFault(response, 403, 'forbidden', 'volume:multiattach')
        volume = self._create({'size': 1, 'volume_type': 'shared'},
                              headers=base.headers(version='3.50')
                              ).json['volume']
        self.assertTrue(volume['multiattach'])

    def test_no_backend_is_an_error_volume(self):
        service_db.service_update(self.admin_context, self.service.id,
                                  {'disabled': True})
        casts = self.create_cast.call_count
        volume = self._create({'size': 1}, headers=base.MEMBER,
                              status=202).json['volume']
        # As Cinder: 'error', nothing cast; the project has a message.
        self.assertEqual('error', volume['status'])
        self.assertEqual(casts, self.create_cast.call_count)
        messages = self.app.get(self.url('messages'), headers=base.headers(
            roles=['reader'], version='3.3')).json['messages']
        self.assertEqual([(volume['id'], 'VOLUME_VOLUME_001_003')],
                         [(m['resource_uuid'], m['event_id'])
                          for m in messages])


class TestShowUpdateDelete(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.volume = self.create_volume(name='vol', metadata={'a': '1'})

    def test_show(self):
        volume = self.app.get(self.url('volumes/%s' % self.volume.id),
                              headers=base.READER).json['volume']
        self.assertEqual(DETAIL_KEYS, set(volume))
        self.assertEqual('available', volume['status'])
        self.assertEqual({'a': '1'}, volume['metadata'])

    def test_invalid_uuid_in_path_is_not_found(self):
        for method in (self.app.get, self.app.delete):
            response = method(self.url('volumes/not-a-uuid'),
                              headers=base.MEMBER, status=404)
            self.assertFault(response, 404, 'itemNotFound',
                             'Volume not-a-uuid could not be found.')
        response = self.app.put_json(self.url('volumes/not-a-uuid'),
                                     {'volume': {'name': 'x'}},
                                     headers=base.MEMBER, status=404)
        self.assertFault(response, 404, 'itemNotFound')

    def test_other_projects_volume_is_not_found(self):
        response = self.app.get(
            self.url('volumes/%s' % self.volume.id,
                     project=base.OTHER_PROJECT),
            headers=base.OTHER_MEMBER, status=404)
        self.assertFault(response, 404, 'itemNotFound')

    def test_attachments_shown_when_attached(self):
        with db_api.main_context_manager.writer.using(self.admin_context):
            from cinder_ma.db import models
            self.admin_context.session.add(models.VolumeAttachment(
                id='a1', volume_id=self.volume.id, instance_uuid='srv',
                attached_host='h1', mountpoint='/dev/vdb',
                attach_status='attached',
                attach_time=timeutils.utcnow()))
            self.admin_context.session.add(models.VolumeAttachment(
                id='a2', volume_id=self.volume.id, instance_uuid='srv2',
                attach_status='reserved'))
        member_view = self.app.get(
            self.url('volumes/%s' % self.volume.id),
            headers=base.MEMBER).json['volume']['attachments']
        self.assertEqual(1, len(member_view))
        attachment = member_view[0]
        self.assertEqual({'id', 'attachment_id', 'volume_id', 'server_id',
                          'host_name', 'device', 'attached_at'},
                         set(attachment))
        self.assertEqual('a1', attachment['attachment_id'])
        self.assertEqual(self.volume.id, attachment['id'])
        self.assertEqual('srv', attachment['server_id'])
        self.assertIsNone(attachment['host_name'])
        self.assertEqual('/dev/vdb', attachment['device'])
        admin_view = self.app.get(
            self.url('volumes/%s' % self.volume.id),
            headers=base.ADMIN).json['volume']['attachments']
        self.assertEqual('h1', admin_view[0]['host_name'])

    def test_update(self):
        volume = self.app.put_json(
            self.url('volumes/%s' % self.volume.id),
            {'volume': {'name': 'renamed', 'metadata': {'b': '2'}}},
            headers=base.MEMBER).json['volume']
        self.assertEqual('renamed', volume['name'])
        self.assertEqual({'b': '2'}, volume['metadata'])
        self.assertEqual(CREATED_KEYS, set(volume))

    def test_update_validation(self):
        url = self.url('volumes/%s' % self.volume.id)
        response = self.app.put_json(url, {'volume': {'size': 5}},
                                     headers=base.MEMBER, status=400)
        self.assertFault(response, 400, 'badRequest', "'size' was")
        # Below 3.53 an empty update is accepted, from 3.53 it is not.
        self.app.put_json(url, {'volume': {}}, headers=base.MEMBER)
        response = self.app.put_json(
            url, {'volume': {}}, status=400,
            headers=base.headers(roles=['member'], version='3.53'))
        self.assertFault(response, 400, 'badRequest',
                         'field/attribute volume')

    def test_reader_cannot_update(self):
        response = self.app.put_json(
            self.url('volumes/%s' % self.volume.id),
            {'volume': {'name': 'x'}}, headers=base.READER, status=403)
        self.assertFault(response, 403, 'forbidden')

    def test_delete(self):
        response = self.app.delete(self.url('volumes/%s' % self.volume.id),
                                   headers=base.MEMBER, status=202)
        self.assertEqual(b'', response.body)
        self.delete_cast.assert_called_once_with(
            self.delete_cast.call_args[0][0], self.volume.id,
            base.BACKEND_HOST + '#pool')
        volume = self.app.get(self.url('volumes/%s' % self.volume.id),
                              headers=base.MEMBER).json['volume']
        self.assertEqual('deleting', volume['status'])

    def test_delete_params(self):
        url = self.url('volumes/%s' % self.volume.id)
        response = self.app.delete(url + '?cascade=maybe',
                                   headers=base.MEMBER, status=400)
        self.assertFault(response, 400, 'badRequest',
                         "Value 'maybe' for 'cascade' is not a boolean")
        # force is a 3.23 parameter, and for admins only.
        response = self.app.delete(url + '?force=true', status=403,
                                   headers=base.headers(roles=['member'],
                                                        version='3.23'))
        self.assertFault(response, 403, 'forbidden')
        self.app.delete(url + '?force=true', headers=base.MEMBER,
                        status=202)

    def test_delete_in_wrong_status_is_refused(self):
        volume = self.create_volume(status='creating')
        response = self.app.delete(self.url('volumes/%s' % volume.id),
                                   headers=base.MEMBER, status=400)
        self.assertFault(response, 400, 'badRequest', 'status')


class TestList(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.volumes = [self.create_volume(name='vol%d' % i, size=i + 1)
                        for i in range(5)]
        self.create_volume(project=base.OTHER_PROJECT, name='theirs')

    def _list(self, query='', path='volumes', headers=base.MEMBER,
              status=200):
        return self.app.get(self.url(path) + query, headers=headers,
                            status=status)

    def test_summary(self):
        body = self._list().json
        self.assertEqual(['volumes'], list(body))
        self.assertEqual(5, len(body['volumes']))
        self.assertEqual({'id', 'name', 'links'}, set(body['volumes'][0]))
        # Newest first by default.
        self.assertEqual('vol4', body['volumes'][0]['name'])

    def test_detail(self):
        body = self._list(path='volumes/detail').json
        self.assertEqual(5, len(body['volumes']))
        self.assertEqual(DETAIL_KEYS, set(body['volumes'][0]))

    def test_paging(self):
        body = self._list('?limit=2&sort=name:asc').json
        self.assertEqual(['vol0', 'vol1'], [v['name'] for v in body[
            'volumes']])
        next_link = body['volumes_links'][0]
        self.assertEqual('next', next_link['rel'])
        self.assertTrue(next_link['href'].startswith(
            'http://localhost/v3/%s/volumes?' % base.PROJECT))
        self.assertIn('marker=%s' % body['volumes'][-1]['id'],
                      next_link['href'])
        self.assertIn('limit=2', next_link['href'])
        names = []
        url = next_link['href'].replace('http://localhost', '')
        while url:
            page = self.app.get(url, headers=base.MEMBER).json
            names.extend(v['name'] for v in page['volumes'])
            links = page.get('volumes_links')
            url = links[0]['href'].replace('http://localhost', '') \
                if links else None
        self.assertEqual(['vol2', 'vol3', 'vol4'], names)

    def test_detail_paging_link(self):
        body = self._list('?limit=5', path='volumes/detail').json
        self.assertIn('/volumes/detail?',
                      body['volumes_links'][0]['href'])

    def test_max_limit_caps_pages(self):
        self.flags(max_limit=3, group='api')
        body = self._list().json
        self.assertEqual(3, len(body['volumes']))
        self.assertIn('volumes_links', body)

    def test_public_endpoint_in_links(self):
        self.flags(public_endpoint='https://api.example.com/volume/',
                   group='api')
        body = self._list('?limit=1').json
        self.assertTrue(body['volumes'][0]['links'][0]['href'].startswith(
            'https://api.example.com/volume/v3/'))
        self.assertTrue(body['volumes_links'][0]['href'].startswith(
            'https://api.example.com/volume/v3/'))

    def test_sort_keys_and_dirs(self):
        body = self._list('?sort_key=size&sort_dir=asc').json
        self.assertEqual([1, 2, 3, 4, 5], [
            self._size(v['id']) for v in body['volumes']])
        body = self._list('?sort=size:desc,name').json
        self.assertEqual(5, self._size(body['volumes'][0]['id']))
        self.assertFault(self._list('?sort=size:sideways', status=400),
                         400, 'badRequest', 'sort direction')
        self.assertFault(self._list('?sort=nope', status=400), 400,
                         'badRequest', 'nope')
        self.assertFault(self._list('?sort=size&sort_key=size',
                                    status=400), 400, 'badRequest')

    def _size(self, volume_id):
        return volume_db.volume_get(self.admin_context, volume_id).size

    def test_bad_limit_and_marker(self):
        self.assertFault(self._list('?limit=x', status=400), 400,
                         'badRequest', 'limit param must be an integer')
        self.assertFault(self._list('?limit=-1', status=400), 400,
                         'badRequest', 'limit param must be positive')
        # Cinder looks the marker up as a volume: 404.
        self.assertFault(self._list('?marker=%s' % uuid.uuid4(),
                                    status=404), 404, 'itemNotFound',
                         'Marker')

    def test_filters(self):
        self.create_volume(name='boot', bootable=True, status='error',
                           metadata={'role': 'db'})
        names = lambda q, **kw: sorted(  # noqa: E731
            v['name'] for v in self._list(q, **kw).json['volumes'])
        self.assertEqual(['vol1'], names('?name=vol1'))
        self.assertEqual(['boot'], names('?status=error'))
        self.assertEqual(['boot'], names('?metadata={"role": "db"}'))
        # Cinder's form too: a Python literal dict.
        self.assertEqual(['boot'], names("?metadata={'role': 'db'}"))
        self.assertEqual(['boot'], names('?bootable=true'))
        self.assertEqual(5, len(names('?bootable=False')))
        self.assertEqual(6, len(names('?availability_zone=nova')))
        self.assertEqual(6, len(names('?volume_type=__DEFAULT__')))
        self.assertEqual([], names('?volume_type=nonexistent'))
        self.assertEqual([], names('?multiattach=true'))
        v34 = base.headers(roles=['member'], version=mv.LIKE_FILTER)
        self.assertEqual(['vol%d' % i for i in range(5)],
                         names('?name~=vol', headers=v34))
        self.assertFault(self._list('?metadata=[1]', status=400), 400,
                         'badRequest', 'metadata filter')

    def test_bootable_filter_by_version(self):
        # Before 3.2 any value but "false"/"False" means bootable.
        self.assertEqual([], self._list('?bootable=maybe').json['volumes'])
        response = self._list('?bootable=maybe', status=400,
                              headers=base.headers(
                                  roles=['member'],
                                  version=mv.VOLUME_LIST_BOOTABLE))
        self.assertFault(response, 400, 'badRequest', 'bootable=maybe')

    def test_unknown_filters_by_version(self):
        self.assertEqual(5, len(self._list('?color=red').json['volumes']))
        response = self._list('?color=red', status=400,
                              headers=base.headers(
                                  roles=['member'],
                                  version=mv.RESOURCE_FILTER))
        self.assertFault(response, 400, 'badRequest',
                         'Invalid filters color are found')

    def test_with_count(self):
        headers = base.headers(roles=['member'],
                               version=mv.SUPPORT_COUNT_INFO)
        body = self._list('?with_count=true&limit=2', headers=headers).json
        self.assertEqual(5, body['count'])
        self.assertEqual(2, len(body['volumes']))
        body = self._list('?with_count=true&limit=2').json
        self.assertNotIn('count', body)
        body = self._list('?with_count=true&volume_type=none',
                          headers=headers).json
        self.assertEqual(0, body['count'])

    def test_all_tenants(self):
        body = self._list('?all_tenants=1', headers=base.ADMIN).json
        self.assertEqual(6, len(body['volumes']))
        body = self._list(headers=base.ADMIN).json
        self.assertEqual(5, len(body['volumes']))

    def test_all_tenants_of_one_project(self):
        body = self._list('?all_tenants=1&project_id=%s' % base.PROJECT,
                          headers=base.ADMIN).json
        self.assertEqual(5, len(body['volumes']))
        body = self._list('?all_tenants=1&project_id=nobody',
                          headers=base.ADMIN).json
        self.assertEqual([], body['volumes'])
        # A member's list stays the member's own.
        body = self._list('?all_tenants=1&project_id=%s'
                          % base.OTHER_PROJECT).json
        self.assertEqual([], body['volumes'])

    def test_all_tenants_is_ignored_for_members(self):
        body = self._list('?all_tenants=1').json
        self.assertEqual(5, len(body['volumes']))

    def test_reader_can_list(self):
        body = self._list(headers=base.READER).json
        self.assertEqual(5, len(body['volumes']))

    def test_other_project_sees_its_own(self):
        body = self.app.get(self.url('volumes', project=base.OTHER_PROJECT),
                            headers=base.OTHER_MEMBER).json
        self.assertEqual(['theirs'], [v['name'] for v in body['volumes']])


class TestNewerFilters(base.APITestCase):
    """3.60 time comparison filters and 3.65 consumes_quota."""

    def setUp(self):
        super().setUp()
        self.old = self.create_volume(
            name='old', created_at=datetime.datetime(2026, 1, 1, 12, 0))
        self.new = self.create_volume(
            name='new', created_at=datetime.datetime(2026, 6, 1, 12, 0),
            updated_at=datetime.datetime(2026, 6, 2, 12, 0))

    def _names(self, query, version=mv.MAX_VERSION, status=200):
        response = self.app.get(
            self.url('volumes') + query, status=status,
            headers=base.headers(roles=['member'], version=version))
        if status != 200:
            return response
        return sorted(v['name'] for v in response.json['volumes'])

    def test_time_filters_from_3_60(self):
        self.assertEqual(['new'], self._names(
            '?created_at=gt:2026-03-01T00:00:00'))
        self.assertEqual(['old'], self._names(
            '?created_at=lte:2026-01-01T12:00:00'))
        self.assertEqual(['new', 'old'], self._names(
            '?created_at=gte:2026-01-01T12:00:00,lt:2026-06-02T00:00:00'))
        self.assertEqual(['old'], self._names(
            '?created_at=eq:2026-01-01T12:00:00Z'))
        self.assertEqual(['new'], self._names(
            '?created_at=neq:2026-01-01T12:00:00%2B00:00'))
        # A volume never updated has no updated_at: no time matches it.
        self.assertEqual(['new'], self._names(
            '?updated_at=lt:2999-01-01T00:00:00'))
        for query, message in (
                ('?created_at=after:2026-01-01T00:00:00',
                 'Invalid after operator'),
                ('?created_at=gt:yesterday', 'Invalid created_at value'),
                ('?created_at=2026', 'operator')):
            self.assertFault(self._names(query, status=400), 400,
                             'badRequest', message)
        # Below 3.60, an unknown filter (3.31 on).
        self.assertFault(self._names(
            '?created_at=gt:2026-03-01T00:00:00', status=400,
            version=mv.prior(mv.VOLUME_TIME_COMPARISON_FILTER)), 400,
            'badRequest', 'Invalid filters created_at')

    def test_consumes_quota_from_3_65(self):
        self.assertEqual(['new', 'old'], self._names('?consumes_quota=true'))
        self.assertEqual([], self._names('?consumes_quota=false'))
        self.assertFault(self._names('?consumes_quota=maybe', status=400),
                         400, 'badRequest', 'not a boolean')
        self.assertFault(self._names(
            '?consumes_quota=true', status=400,
            version=mv.prior(mv.USE_QUOTA)), 400, 'badRequest',
            'Invalid filters consumes_quota')

    def test_urls_without_the_project(self):
        # 3.67: both forms are routed (at every version, as in Cinder).
        for version in (mv.SUPPORT_PROJECT_ID_OPTIONAL, '3.0'):
            headers = base.headers(roles=['member'], version=version)
            listed = self.app.get('/v3/volumes/detail', headers=headers)
            self.assertEqual(2, len(listed.json['volumes']))
            shown = self.app.get('/v3/volumes/%s' % self.old.id,
                                 headers=headers)
            self.assertEqual('old', shown.json['volume']['name'])
        self.app.get('/v3/types', headers=base.MEMBER)
        self.app.get('/v3/extensions', headers=base.MEMBER)
