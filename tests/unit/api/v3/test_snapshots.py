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

"""The snapshots API end to end in the API process (the casts to the
manager recorded): Cinder's shapes and statuses, 3.66 in-use snapshots,
quotas, lists, and what snapshots change for volumes (delete refused
unless cascade, volumes made from them, revert)."""

import uuid

from cinder_ma.api import microversions as mv
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from tests.unit.api import base

V = mv.MAX_VERSION
SUMMARY_KEYS = {'id', 'created_at', 'updated_at', 'name', 'description',
                'volume_id', 'status', 'size', 'metadata'}
DETAIL_KEYS = SUMMARY_KEYS | {'group_snapshot_id', 'user_id',
                              'consumes_quota'}
EXTENDED = {'os-extended-snapshot-attributes:project_id',
            'os-extended-snapshot-attributes:progress'}


def member(version=V):
    return base.headers(roles=['member', 'reader'], version=version)


def admin(version=V):
    return base.headers(user='admin-user', version=version)


class SnapshotsTestCase(base.APITestCase):

    def _create(self, volume_id, status=202, version=V, headers=None,
                project=base.PROJECT, **fields):
        body = {'snapshot': dict(fields, volume_id=volume_id)}
        return self.app.post_json(self.url('snapshots', project), body,
                                  headers=headers or member(version),
                                  status=status)

    def _in_use(self):
        volume = self.create_volume(status='in-use', attach_count=1)
        self.add_attachment(volume)
        return volume

    def test_create_show_list_update_delete(self):
        volume = self.create_volume(size=3)
        body = self._create(volume.id, name=' s1 ', description='d',
                            metadata={'k': 'v'}).json['snapshot']
        self.assertEqual(DETAIL_KEYS, set(body))
        self.assertEqual(('s1', 'creating', 3, {'k': 'v'}, True),
                         (body['name'], body['status'], body['size'],
                          body['metadata'], body['consumes_quota']))
        cast = self.snapshot_casts['create_snapshot']
        self.assertEqual(body['id'], cast.call_args[0][1])
        # Show: the extended attributes for readers of the project.
        shown = self.app.get(self.url('snapshots/%s' % body['id']),
                             headers=member()).json['snapshot']
        self.assertEqual(DETAIL_KEYS | EXTENDED, set(shown))
        self.assertEqual('0%', shown[
            'os-extended-snapshot-attributes:progress'])
        # Below 3.14 / 3.41 / 3.65 the detail has fewer fields.
        old = self.app.get(self.url('snapshots/%s' % body['id']),
                           headers=member('3.0')).json['snapshot']
        self.assertEqual(SUMMARY_KEYS | EXTENDED, set(old))
        listed = self.app.get(self.url('snapshots'),
                              headers=member()).json['snapshots']
        self.assertEqual([SUMMARY_KEYS], [set(s) for s in listed])
        detail = self.app.get(self.url('snapshots/detail'),
                              headers=member()).json['snapshots']
        self.assertEqual([DETAIL_KEYS | EXTENDED], [set(s) for s in detail])
        updated = self.app.put_json(
            self.url('snapshots/%s' % body['id']),
            {'snapshot': {'display_name': 'n2'}},
            headers=member()).json['snapshot']
        self.assertEqual('n2', updated['name'])
        # Not deletable while creating.
        response = self.app.delete(self.url('snapshots/%s' % body['id']),
                                   headers=member(), status=400)
        self.assertFault(response, 400, 'badRequest',
                         'Snapshot status must be available or error')
        snapshot_db.snapshot_change(self.admin_context, body['id'],
                                    {'status': 'available'})
        self.app.delete(self.url('snapshots/%s' % body['id']),
                        headers=member(), status=202)
        self.assertEqual('deleting', snapshot_db.snapshot_get(
            self.admin_context, body['id']).status)
        self.assertEqual(1, self.snapshot_casts['delete_snapshot']
                         .call_count)

    def test_in_use_needs_force_below_3_66(self):
        volume = self._in_use()
        response = self._create(volume.id, status=400, version='3.65')
        self.assertFault(response, 400, 'badRequest',
                         'status must be available, but current status '
                         'is: in-use')
        self._create(volume.id, version='3.65', force=True)
        self._create(volume.id, version='3.66')
        self._create(volume.id, version='3.66', force='true')
        response = self._create(volume.id, status=400, version='3.66',
                                force=False)
        self.assertFault(response, 400, 'badRequest',
                         "the 'force' flag is invalid")

    def test_refusals(self):
        response = self._create(str(uuid.uuid4()), status=404)
        self.assertFault(response, 404, 'itemNotFound')
        volume = self.create_volume(status='error')
        response = self._create(volume.id, status=400)
        self.assertFault(response, 400, 'badRequest', 'in error status')
        response = self._create(self.create_volume().id, status=400,
                                bogus=1)
        self.assertFault(response, 400, 'badRequest')
        # Another project's volume is not found.
        response = self._create(self.create_volume().id, status=404,
                                headers=base.OTHER_MEMBER,
                                project=base.OTHER_PROJECT)
        self.assertEqual(0, self.snapshot_casts['create_snapshot']
                         .call_count)

    def test_quota(self):
        self.flags(quota_snapshots=1)
        volume = self.create_volume(size=2)
        self._create(volume.id)
        response = self._create(volume.id, status=413)
        self.assertFault(response, 413, 'overLimit',
                         "Maximum number of snapshots allowed (1) exceeded "
                         "for quota 'snapshots'.")
        quota = self.app.get(
            self.url('os-quota-sets/%s?usage=true' % base.PROJECT),
            headers=member()).json['quota_set']
        self.assertEqual(1, quota['snapshots']['in_use'])
        # The snapshot's gigabytes count with the volume's.
        self.assertEqual(4, quota['gigabytes']['in_use'])

    def test_list_filters_paging_count(self):
        volume = self.create_volume()
        ids = [self._create(volume.id, name='s%d' % i,
                            metadata={'i': str(i)}).json['snapshot']['id']
               for i in range(3)]
        got = self.app.get(self.url('snapshots?name=s1'),
                           headers=member()).json['snapshots']
        self.assertEqual([ids[1]], [s['id'] for s in got])
        got = self.app.get(self.url('snapshots?metadata={"i": "2"}'),
                           headers=member()).json['snapshots']
        self.assertEqual([ids[2]], [s['id'] for s in got])
        got = self.app.get(self.url('snapshots?limit=2&sort=name:asc'
                                    '&with_count=true'),
                           headers=member()).json
        self.assertEqual(ids[:2], [s['id'] for s in got['snapshots']])
        self.assertEqual(3, got['count'])
        self.assertIn('marker=%s' % ids[1],
                      got['snapshots_links'][0]['href'])
        # offset skips that many of the sorted list (Cinder's).
        got = self.app.get(self.url('snapshots?sort=name:asc&offset=2'
                                    '&limit=3'),
                           headers=member()).json['snapshots']
        self.assertEqual([ids[2]], [s['id'] for s in got])
        # A marker the caller sees no snapshot of: Cinder's 404.
        response = self.app.get(
            self.url('snapshots?marker=6f0b4bde-4a3f-4b8d-9f0c-'
                     '3f4a4cf2f7d1'), headers=member(), status=404)
        self.assertFault(response, 404, 'itemNotFound', 'Marker')
        response = self.app.get(self.url('snapshots?bogus=1'),
                                headers=member(), status=400)
        self.assertFault(response, 400, 'badRequest', 'Invalid filters')
        self.assertEqual([], self.app.get(
            self.url('snapshots?consumes_quota=false'),
            headers=member()).json['snapshots'])
        # Another project sees none of them.
        self.assertEqual([], self.app.get(
            self.url('snapshots', project=base.OTHER_PROJECT),
            headers=base.OTHER_MEMBER).json['snapshots'])

    def test_volume_delete_refused_with_snapshots_unless_cascade(self):
        volume = self.create_volume()
        snapshot_id = self._create(volume.id).json['snapshot']['id']
        snapshot_db.snapshot_change(self.admin_context, snapshot_id,
                                    {'status': 'available'})
        response = self.app.delete(self.url('volumes/%s' % volume.id),
                                   headers=member(), status=400)
        self.assertFault(response, 400, 'badRequest',
                         'Volume status must be available or error or '
                         'error_deleting or error_extending and must not '
                         'be migrating, attached, belong to a group, have '
                         'snapshots')
        self.app.delete(self.url('volumes/%s?cascade=true' % volume.id),
                        headers=member(), status=202)
        self.assertEqual('deleting', volume_db.volume_get(
            self.admin_context, volume.id).status)
        self.assertEqual('deleting', snapshot_db.snapshot_get(
            self.admin_context, snapshot_id).status)

    def test_volume_from_snapshot(self):
        volume = self.create_volume(size=2)
        snapshot_id = self._create(volume.id).json['snapshot']['id']
        body = {'volume': {'snapshot_id': snapshot_id}}
        response = self.app.post_json(self.url('volumes'), body,
                                      headers=member(), status=400)
        self.assertFault(response, 400, 'badRequest',
                         "Originating snapshot status must be one of "
                         "'available' values")
        snapshot_db.snapshot_change(self.admin_context, snapshot_id,
                                    {'status': 'available'})
        made = self.app.post_json(self.url('volumes'), body,
                                  headers=member()).json['volume']
        self.assertEqual((2, snapshot_id, volume.host),
                         (made['size'], made['snapshot_id'],
                          volume_db.volume_get(self.admin_context,
                                               made['id']).host))
        response = self.app.post_json(
            self.url('volumes'),
            {'volume': {'snapshot_id': snapshot_id, 'size': 1}},
            headers=member(), status=400)
        self.assertFault(response, 400, 'badRequest',
                         'cannot be smaller than the snapshot size 2GB')
        # The snapshot cannot be deleted while a volume is made from it.
        response = self.app.delete(self.url('snapshots/%s' % snapshot_id),
                                   headers=member(), status=400)
        self.assertFault(response, 400, 'badRequest', made['id'])

    def test_clone_of_an_in_use_shareable_volume(self):
        shared = type_db.volume_type_create(
            self.admin_context, {'name': 'shared'},
            extra_specs={'multiattach': '<is> True'})
        source = self.create_volume(status='in-use', attach_count=2,
                                    multiattach=True,
                                    volume_type_id=shared.id)
        made = self.app.post_json(
            self.url('volumes'),
            {'volume': {'source_volid': source.id,
                        'volume_type': self.default_type.name}},
            headers=member()).json['volume']
        # Shareable only through its own type.
        self.assertEqual((source.id, False),
                         (made['source_volid'], made['multiattach']))
        made = self.app.post_json(
            self.url('volumes'), {'volume': {'source_volid': source.id}},
            headers=member()).json['volume']
        self.assertTrue(made['multiattach'])

    def test_revert(self):
        volume = self.create_volume()
        url = self.url('volumes/%s/action' % volume.id)
        response = self.app.post_json(url, {'revert': {'snapshot_id': None}},
                                      headers=member(), status=400)
        self.assertFault(response, 400, 'badRequest',
                         "doesn't have any snapshots")
        first = self._create(volume.id).json['snapshot']['id']
        latest = self._create(volume.id).json['snapshot']['id']
        for snapshot_id in (first, latest):
            snapshot_db.snapshot_change(self.admin_context, snapshot_id,
                                        {'status': 'available'})
        response = self.app.post_json(url, {'revert': {'snapshot_id': first}},
                                      headers=member(), status=400)
        self.assertFault(response, 400, 'badRequest',
                         'not the latest one')
        # Below 3.40 there is no such action.
        self.app.post_json(url, {'revert': {'snapshot_id': latest}},
                           headers=member('3.39'), status=404)
        # Refused while attached, as Cinder (a 409).
        attachment = self.add_attachment(volume)
        volume_db.volume_change(self.admin_context, volume.id,
                                {'status': 'in-use', 'attach_count': 1})
        response = self.app.post_json(
            url, {'revert': {'snapshot_id': latest}}, headers=member(),
            status=409)
        self.assertFault(response, 409, 'conflictingRequest', attachment)
        attachment_db.attachment_destroy(self.admin_context, attachment)
        volume_db.volume_change(self.admin_context, volume.id,
                                {'status': 'available', 'attach_count': 0})
        self.app.post_json(url, {'revert': {'snapshot_id': latest}},
                           headers=member(), status=202)
        self.assertEqual('reverting', volume_db.volume_get(
            self.admin_context, volume.id).status)
        self.assertEqual('restoring', snapshot_db.snapshot_get(
            self.admin_context, latest).status)
