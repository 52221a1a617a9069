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

"""Tests of the actions of volumes: attach/detach (the legacy attach
API), os-force_detach, os-extend, os-set_bootable, os-retype and
os-force_delete.

Manager calls go to the recorder of tests.unit.api.base (see there why);
the manager's extend cast is a mock.
"""

import uuid

import fixtures
from oslo_serialization import jsonutils

from cinder_ma.api import microversions as mv
from cinder_ma.db import services as service_db
from cinder_ma.volume import types as volume_types
from tests.unit.api import base

CONNECTOR = {'host': 'compute1', 'initiator': 'iqn.2026-11.test:compute1'}


class VolumeActionsTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.volume = self.create_volume()
        self.instance = str(uuid.uuid4())

    def act(self, body, volume=None, headers=base.MEMBER, status=202):
        volume_id = volume if isinstance(volume, str) else (
            volume or self.volume).id
        return self.app.post_json(
            self.url('volumes/%s/action' % volume_id), body,
            headers=headers, status=status)

    def os_attach(self, volume=None, instance=None, status=202, **extra):
        params = {'instance_uuid': instance or self.instance,
                  'mountpoint': '/dev/vdb'}
        params.update(extra)
        return self.act({'os-attach': params}, volume, status=status)

    def view(self, volume=None, headers=base.MEMBER):
        return self.app.get(
            self.url('volumes/%s' % (volume or self.volume).id),
            headers=headers).json['volume']

    def attachments(self, volume=None):
        return self.app.get(
            self.url('attachments/detail?volume_id=%s'
                     % (volume or self.volume).id),
            headers=base.headers(roles=['reader'],
                                 version=mv.MAX_VERSION)).json[
                                     'attachments']


class TestAttachFlow(VolumeActionsTestCase):

    def test_reserve_attach_detach(self):
        response = self.act({'os-reserve': None})
        self.assertEqual(b'', response.body)
        self.assertEqual('reserved', self.view()['status'])
        (reserved,) = self.attachments()
        self.assertEqual('reserved', reserved['status'])
        self.assertIsNone(reserved['instance'])

        self.os_attach(mode='ro')
        view = self.view()
        self.assertEqual('in-use', view['status'])
        (entry,) = view['attachments']
        # The reservation became the attachment.
        self.assertEqual(reserved['id'], entry['attachment_id'])
        self.assertEqual(self.instance, entry['server_id'])
        self.assertEqual('/dev/vdb', entry['device'])
        self.assertEqual('ro', self.attachments()[0]['attach_mode'])

        self.act({'os-begin_detaching': None})
        self.assertEqual('detaching', self.view()['status'])
        self.act({'os-roll_detaching': {}})
        self.assertEqual('in-use', self.view()['status'])
        self.act({'os-begin_detaching': None})
        self.act({'os-detach': {}})
        view = self.view()
        self.assertEqual('available', view['status'])
        self.assertEqual([], view['attachments'])
        self.assertEqual([], self.attachments())

    def test_legacy_connection_cycle(self):
        """reserve, initialize, attach; begin detaching, terminate,
        detach: Cinder's pre-3.27 flow, and its wire."""
        self.act({'os-reserve': None})
        response = self.act({'os-initialize_connection': {
            'connector': CONNECTOR}}, status=200)
        # Cinder's nested shape.
        self.assertEqual({'connection_info': {
            'driver_volume_type': 'file',
            'data': {'path': '/srv/volume-%s' % self.volume.id,
                     'access_mode': 'rw'}}}, response.json)
        self.assertEqual('attaching', self.view()['status'])
        self.os_attach()
        self.assertEqual('in-use', self.view()['status'])
        (entry,) = self.attachments()
        self.assertEqual('attached', entry['status'])
        self.act({'os-begin_detaching': None})
        response = self.act({'os-terminate_connection': {
            'connector': CONNECTOR}})
        self.assertEqual(b'', response.body)
        self.act({'os-detach': {}})
        self.assertEqual('available', self.view()['status'])
        self.assertEqual(['initialize_connection', 'terminate_connection'],
                         self.rpc.methods())

    def test_legacy_connection_validation(self):
        for action in ('os-initialize_connection',
                       'os-terminate_connection'):
            for params, message in (
                    ({}, "'connector' is a required property"),
                    ({'connector': 'host1'}, "'host1' is not of type "
                                             "'object'"),
                    ({'connector': {'initiator': 'x'}},
                     'connector must be an object with at least "host"'),
                    ({'connector': CONNECTOR, 'x': 1}, "'x' was "
                                                       "unexpected")):
                response = self.act({action: params}, status=400)
                self.assertFault(response, 400, 'badRequest', message)
        self.assertEqual([], self.rpc.calls)
        self.assertEqual('available', self.view()['status'])

    def test_legacy_connection_policy(self):
        self.act({'os-reserve': None})
        for action in ('os-initialize_connection',
                       'os-terminate_connection'):
            response = self.act({action: {'connector': CONNECTOR}},
                                headers=base.READER, status=403)
            self.assertFault(response, 403, 'forbidden')
            self.app.post_json(
                self.url('volumes/%s/action' % self.volume.id,
                         project=base.OTHER_PROJECT),
                {action: {'connector': CONNECTOR}},
                headers=base.OTHER_MEMBER, status=404)
        self.assertEqual([], self.rpc.calls)

    def test_readonly_flag(self):
        response = self.act({'os-update_readonly_flag': {'readonly': True}})
        self.assertEqual(b'', response.body)
        # Whatever mode is asked, the attachment and its connection are
        # read-only.
        self.act({'os-reserve': None})
        info = self.act({'os-initialize_connection': {
            'connector': CONNECTOR}}, status=200).json['connection_info']
        self.assertEqual('ro', info['data']['access_mode'])
        self.os_attach(mode='rw')
        self.assertEqual('ro', self.attachments()[0]['attach_mode'])
        # Only while available.
        response = self.act({'os-update_readonly_flag': {
            'readonly': False}}, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'only while it is available')
        # os-attach without a connection, and the attachments API.
        volume = self.create_volume()
        self.act({'os-update_readonly_flag': {'readonly': 'true'}}, volume)
        self.os_attach(volume, mode='rw')
        self.assertEqual('ro', self.attachments(volume)[0]['attach_mode'])
        volume = self.create_volume()
        self.act({'os-update_readonly_flag': {'readonly': True}}, volume)
        created = self.app.post_json(
            self.url('attachments'), {'attachment': {
                'volume_uuid': volume.id, 'instance_uuid': self.instance,
                'connector': CONNECTOR, 'mode': 'rw'}},
            headers=base.headers(roles=['member'],
                                 version=mv.MAX_VERSION)).json['attachment']
        self.assertEqual('ro', created['attach_mode'])
        self.assertEqual('ro', self.rpc.calls[-1][-1])
        # Back to read-write once available again.
        self.act({'os-update_readonly_flag': {'readonly': False}},
                 self.create_volume())

    def test_readonly_flag_validation_and_policy(self):
        for params, message in (
                ({}, "'readonly' is a required property"),
                ({'readonly': 'maybe'}, 'field/attribute readonly'),
                ({'readonly': True, 'x': 1}, "'x' was unexpected")):
            response = self.act({'os-update_readonly_flag': params},
                                status=400)
            self.assertFault(response, 400, 'badRequest', message)
        response = self.act({'os-update_readonly_flag': {'readonly': True}},
                            headers=base.READER, status=403)
        self.assertFault(response, 403, 'forbidden')

    def test_unreserve(self):
        self.act({'os-reserve': {}})
        self.act({'os-unreserve': None})
        self.assertEqual('available', self.view()['status'])
        self.assertEqual([], self.attachments())
        # Nothing reserved: nothing to do, no error (as in Cinder).
        self.act({'os-unreserve': None})

    def test_unreserve_leaves_reservations_of_the_attachments_api(self):
        # A reservation Nova made with attachment_create (it names its
        # instance) is Nova's to delete, not os-unreserve's.
        volume = self.create_volume(multiattach=True)
        created = self.app.post_json(
            self.url('attachments'),
            {'attachment': {'volume_uuid': volume.id,
                            'instance_uuid': self.instance}},
            headers=base.headers(roles=['member'],
                                 version=mv.MAX_VERSION)).json['attachment']
        self.act({'os-reserve': None}, volume)
        self.act({'os-unreserve': None}, volume)
        (left,) = self.attachments(volume)
        self.assertEqual(created['id'], left['id'])
        self.assertEqual('reserved', self.view(volume)['status'])

    def test_reserve_in_use(self):
        # Cinder: an in-use volume can be reserved again only when it is
        # multiattach.
        self.os_attach()
        response = self.act({'os-reserve': None}, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'is not multiattach and is already held by '
                         'instance %s; it cannot be reserved again'
                         % self.instance)
        # Nor one reserved by os-reserve.
        other = self.create_volume()
        self.act({'os-reserve': None}, other)
        response = self.act({'os-reserve': None}, other, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'is already held by an attachment of no '
                         'instance; it cannot be reserved again')
        self.assertEqual(1, len(self.attachments()))
        shared = self.create_volume(multiattach=True)
        self.os_attach(shared)
        self.act({'os-reserve': None}, shared)
        self.assertEqual('in-use', self.view(shared)['status'])
        self.assertEqual(['attached', 'reserved'],
                         sorted(a['status'] for a in
                                self.attachments(shared)))
        self.act({'os-unreserve': None}, shared)
        self.assertEqual(['attached'], [a['status'] for a in
                                        self.attachments(shared)])

    def test_begin_and_roll_detaching_need_no_attachment(self):
        # Cinder: os-begin_detaching needs an in-use volume (400);
        # os-roll_detaching is never refused for the volume's status.
        response = self.act({'os-begin_detaching': None}, status=400)
        self.assertFault(response, 400, 'badRequest',
                         "Volume status must be 'in-use'")
        self.act({'os-roll_detaching': None})
        self.assertEqual('available', self.view()['status'])
        # One attachment: the volume is detaching, its attachment stays
        # attached, as in Cinder; a second begin is refused.
        self.os_attach()
        self.act({'os-begin_detaching': None})
        self.assertEqual('detaching', self.view()['status'])
        self.assertEqual(['attached'], [a['status'] for a in
                                        self.attachments()])
        response = self.act({'os-begin_detaching': None}, status=400)
        self.assertFault(response, 400, 'badRequest', 'is detaching')
        self.act({'os-roll_detaching': None})
        self.act({'os-roll_detaching': None})
        self.assertEqual('in-use', self.view()['status'])

    def test_attach_to_a_host(self):
        self.act({'os-attach': {'host_name': 'backup-node',
                                'mountpoint': '/mnt/vol'}})
        (entry,) = self.view(headers=base.ADMIN)['attachments']
        self.assertEqual('backup-node', entry['host_name'])
        self.assertIsNone(entry['server_id'])

    def test_attach_validation(self):
        for params, message in (
                ({'instance_uuid': self.instance},
                 "'mountpoint' is a required property"),
                ({'mountpoint': '/dev/vdb'}, 'is not valid under any of '
                                             'the given schemas'),
                ({'instance_uuid': 'srv-1', 'mountpoint': '/dev/vdb'},
                 'field/attribute instance_uuid'),
                ({'instance_uuid': self.instance, 'mountpoint': '/dev/vdb',
                  'mode': 'wr'}, "'wr' is not one of ['rw', 'ro']"),
                ({'instance_uuid': self.instance, 'mountpoint': ''},
                 'field/attribute mountpoint'),
                ({'instance_uuid': self.instance, 'mountpoint': '/dev/vdb',
                  'connector': CONNECTOR}, "'connector' was unexpected")):
            response = self.act({'os-attach': params}, status=400)
            self.assertFault(response, 400, 'badRequest', message)
        response = self.act({'os-attach': None}, status=400)
        self.assertFault(response, 400, 'badRequest',
                         "None is not of type 'object'")
        self.assertEqual('available', self.view()['status'])

    def test_plain_volume_takes_one_instance(self):
        self.os_attach()
        response = self.os_attach(instance=str(uuid.uuid4()),
                                  mountpoint='/dev/vdc', status=400)
        self.assertFault(response, 400, 'badRequest', 'not multiattach')

    def test_shared_volume(self):
        volume = self.create_volume(multiattach=True)
        self.os_attach(volume)
        self.os_attach(volume, str(uuid.uuid4()), mountpoint='/dev/vdc')
        first, second = self.view(volume)['attachments']
        # Without attachment_id os-detach cannot tell which one.
        response = self.act({'os-detach': {}}, volume, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'volume %s has 2 attachments' % volume.id)
        self.assertIn('os-detach needs the attachment_id',
                      response.json['badRequest']['message'])
        # os-begin_detaching acts on the volume (Nova's detach), which
        # stays in-use while another attachment holds it.
        self.act({'os-begin_detaching': {}}, volume)
        self.assertEqual('in-use', self.view(volume)['status'])
        self.act({'os-detach': {'attachment_id': first['attachment_id']}},
                 volume)
        (left,) = self.view(volume)['attachments']
        self.assertEqual(second['attachment_id'], left['attachment_id'])
        self.assertEqual('in-use', self.view(volume)['status'])

    def test_detaching_one_of_several_with_the_extension(self):
        volume = self.create_volume(multiattach=True)
        self.os_attach(volume)
        self.os_attach(volume, str(uuid.uuid4()), mountpoint='/dev/vdc')
        first, second = self.view(volume)['attachments']
        latest = base.headers(roles=['member'], version=mv.MAX_VERSION)
        older = base.headers(roles=['member'],
                             version=mv.prior(mv.MULTIATTACH_VOLUMES))
        field = 'cinder-ma-multiattach:attachment_id'
        body = {'os-begin_detaching': {field: second['attachment_id']}}
        # Ignored below 3.50, as Cinder ignores it: the volume's action.
        self.act(body, volume, headers=older)
        self.act(body, volume, headers=latest)
        # The attachments stay attached, as in Cinder; the volume in-use
        # while the first holds it.
        self.assertEqual({'attached'}, {a['status'] for a in
                                        self.attachments(volume)})
        self.assertEqual('in-use', self.view(volume)['status'])
        response = self.act(body, volume, headers=latest, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'no attachment %s that is attached and not '
                         'already detaching' % second['attachment_id'])
        self.act({'os-begin_detaching': {
            field: first['attachment_id']}}, volume, headers=latest)
        self.assertEqual('detaching', self.view(volume)['status'])
        self.act({'os-roll_detaching': {field: second['attachment_id']}},
                 volume, headers=latest)
        self.assertEqual('in-use', self.view(volume)['status'])
        self.act({'os-roll_detaching': {}}, volume, headers=latest)
        self.assertEqual({'attached'}, {a['status'] for a in
                                        self.attachments(volume)})
        response = self.act({'os-roll_detaching': {field: 'x'}},
                            volume, headers=latest, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'field/attribute %s' % field)
        # cinder_ma's former 3.55 form names the new field.
        response = self.act({'os-begin_detaching': {
            'attachment_id': second['attachment_id']}}, volume,
            headers=latest, status=400)
        self.assertFault(response, 400, 'badRequest', field)

    def test_extend_volume_completion_from_3_71(self):
        older = base.headers(version=mv.prior(mv.EXTEND_VOLUME_COMPLETION))
        latest = base.headers(version=mv.EXTEND_VOLUME_COMPLETION)
        body = {'os-extend_volume_completion': {'error': False}}
        response = self.act(body, headers=older, status=404)
        self.assertFault(response, 404, 'itemNotFound', 'not supported')
        # Nothing waits for a compute service here.
        response = self.act(body, headers=latest, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'is not being extended')
        response = self.act({'os-extend_volume_completion': {'error': 'x'}},
                            headers=latest, status=400)
        self.assertFault(response, 400, 'badRequest', 'error')
        # Admins and services only.
        member = base.headers(roles=['member', 'reader'],
                              version=mv.EXTEND_VOLUME_COMPLETION)
        self.act(body, headers=member, status=403)

    def test_detach_validation(self):
        self.os_attach()
        response = self.act({'os-detach': {'attachment_id': 'nope'}},
                            status=400)
        self.assertFault(response, 400, 'badRequest',
                         'field/attribute attachment_id')
        response = self.act({'os-detach': {'attachment_id': str(
            uuid.uuid4())}}, status=400)
        self.assertFault(response, 400, 'badRequest', 'has no attachment')
        # null is accepted, for old clients.
        self.act({'os-detach': None})
        self.assertEqual('available', self.view()['status'])

    def test_detach_of_a_connected_attachment_needs_the_service(self):
        service = base.headers(user='nova', roles=['member'],
                               service_roles=['service'],
                               version=mv.MAX_VERSION)
        attachment = self.app.post_json(
            self.url('attachments'), {'attachment': {
                'volume_uuid': self.volume.id,
                'instance_uuid': self.instance,
                'connector': CONNECTOR}}, headers=service).json['attachment']
        self.app.post_json(
            self.url('attachments/%s/action' % attachment['id']),
            {'os-complete': None}, headers=service, status=204)
        response = self.act({'os-detach': {}}, status=409)
        self.assertFault(response, 409, 'conflictingRequest',
                         'only the service that attached it')
        self.act({'os-detach': {}}, headers=service)
        self.assertEqual('terminate_connection', self.rpc.calls[-1][0])


class TestForceDetach(VolumeActionsTestCase):

    def setUp(self):
        super().setUp()
        self.os_attach()
        (self.attachment,) = self.attachments()

    def test_admin_only(self):
        response = self.act({'os-force_detach': {}}, status=403)
        self.assertFault(response, 403, 'forbidden', 'force_detach')
        self.assertEqual('in-use', self.view()['status'])

    def test_force_detach(self):
        self.act({'os-force_detach': {
            'attachment_id': self.attachment['id'],
            'connector': CONNECTOR}}, headers=base.ADMIN)
        self.assertEqual('available', self.view()['status'])
        self.assertEqual([], self.attachments())
        self.assertEqual(['volume.detach.start', 'volume.detach.end',
                          'volume.force_detach'],
                         [c[0][1] for c in self.notify.call_args_list])
        self.notify.assert_called_with(
            self.notify.call_args[0][0], 'volume.force_detach',
            {'volume_id': self.volume.id,
             'attachment_id': self.attachment['id']})

    def test_the_only_attachment(self):
        self.act({'os-force_detach': {'connector': None}},
                 headers=base.ADMIN)
        self.assertEqual('available', self.view()['status'])

    def test_attachment_of_another_volume_is_a_400(self):
        other = self.create_volume()
        self.os_attach(other, str(uuid.uuid4()))
        for attachment_id in (self.attachment['id'], 'nope'):
            response = self.act({'os-force_detach': {
                'attachment_id': attachment_id}}, other,
                headers=base.ADMIN, status=400)
            self.assertFault(response, 400, 'badRequest',
                             'Error force detaching volume - '
                             'VolumeAttachmentNotFound')
        self.assertEqual('in-use', self.view()['status'])
        self.assertEqual('in-use', self.view(other)['status'])

    def test_validation(self):
        for body, message in (
                ({'os-force_detach': None}, "None is not of type 'object'"),
                ({'os-force_detach': {'connector': 5}},
                 'field/attribute connector'),
                ({'os-force_detach': {'host': 'x'}},
                 "'host' was unexpected")):
            response = self.act(body, headers=base.ADMIN, status=400)
            self.assertFault(response, 400, 'badRequest', message)


class TestDispatch(VolumeActionsTestCase):

    def test_unknown_action(self):
        response = self.act({'os-volume_upload_image': {
            'image_name': 'x'}}, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'There is no such action: os-volume_upload_image')

    def test_malformed_bodies(self):
        for body in ({}, {'os-reserve': None, 'os-unreserve': None},
                     ['os-reserve'], 'os-reserve'):
            response = self.act(body, status=400)
            self.assertFault(response, 400, 'badRequest',
                             'Malformed request body')
        response = self.app.post(
            self.url('volumes/%s/action' % self.volume.id), 'nope',
            headers=base.MEMBER, status=400,
            content_type='application/json')
        self.assertFault(response, 400, 'badRequest',
                         'Malformed request body')

    def test_unknown_volumes(self):
        for volume_id in ('not-a-uuid', str(uuid.uuid4())):
            response = self.act({'os-reserve': None}, volume_id,
                                status=404)
            self.assertFault(response, 404, 'itemNotFound',
                             'Volume %s could not be found' % volume_id)

    def test_other_project(self):
        foreign = self.create_volume(project=base.OTHER_PROJECT)
        response = self.act({'os-reserve': None}, foreign, status=404)
        self.assertFault(response, 404, 'itemNotFound')

    def test_reader_cannot(self):
        for body in ({'os-reserve': None},
                     {'os-attach': {'instance_uuid': self.instance,
                                    'mountpoint': '/dev/vdb'}},
                     {'os-detach': None}):
            response = self.act(body, headers=base.READER, status=403)
            self.assertFault(response, 403, 'forbidden')
        self.assertEqual('available', self.view()['status'])

    def test_served_at_every_version(self):
        for version in (mv.MIN_VERSION, mv.MAX_VERSION):
            headers = base.headers(roles=['member'], version=version)
            self.act({'os-reserve': None}, headers=headers)
            self.act({'os-unreserve': None}, headers=headers)

    def test_only_post(self):
        response = self.app.get(
            self.url('volumes/%s/action' % self.volume.id),
            headers=base.MEMBER, status=405)
        self.assertFault(response, 405, 'badMethod')


class ManageTestCase(VolumeActionsTestCase):
    """os-extend, os-set_bootable, os-retype, os-force_delete."""

    def setUp(self):
        super().setUp()
        # What the manager does with it is not this suite's business.
        self.extend_cast = self.useFixture(fixtures.MockPatch(
            'cinder_ma.manager.rpcapi.ManagerAPI.extend_volume')).mock

    def in_use_volume(self, **values):
        volume = self.create_volume(status='in-use', **values)
        self.add_attachment(volume)
        return volume

    def backend_extends_online(self):
        caps = dict(base.BACKEND_CAPABILITIES, online_extend=True)
        service_db.service_update(self.admin_context, self.service.id,
                                  {'capabilities': jsonutils.dumps(caps)})

    def make_type(self, name, **specs):
        return volume_types.create_type(self.admin_context, name,
                                        extra_specs=specs)


class TestExtend(ManageTestCase):

    def extend(self, new_size, volume=None, headers=base.MEMBER,
               status=202):
        return self.act({'os-extend': {'new_size': new_size}}, volume,
                        headers=headers, status=status)

    def test_extend(self):
        response = self.extend(3)
        self.assertEqual(b'', response.body)
        self.assertEqual('extending', self.view()['status'])
        self.extend_cast.assert_called_once_with(
            self.extend_cast.call_args[0][0], self.volume.id,
            self.volume.host, 3)

    def test_size_as_a_string(self):
        self.extend('2')
        self.assertEqual(2, self.extend_cast.call_args[0][3])

    def test_bad_sizes(self):
        for new_size, message in (
                (0, '0 is less than the minimum of 1'),
                (-1, 'field/attribute new_size'),
                ('abc', 'field/attribute new_size'),
                (1.5, 'field/attribute new_size'),
                (None, 'field/attribute new_size'),
                (0x80000000, 'is greater than the maximum')):
            response = self.extend(new_size, status=400)
            self.assertFault(response, 400, 'badRequest', message)
        for body, message in (
                ({'os-extend': {}}, "'new_size' is a required property"),
                ({'os-extend': {'new_size': 2, 'force': True}},
                 "'force' was unexpected"),
                ({'os-extend': None}, "None is not of type 'object'")):
            response = self.act(body, status=400)
            self.assertFault(response, 400, 'badRequest', message)
        self.extend_cast.assert_not_called()

    def test_not_larger(self):
        volume = self.create_volume(size=5)
        for new_size in (5, 4):
            response = self.extend(new_size, volume, status=400)
            self.assertFault(response, 400, 'badRequest',
                             'new size must be an integer greater than '
                             'the current size, 5 GiB')
        self.assertEqual('available', self.view(volume)['status'])

    def test_in_use_needs_online_extend(self):
        volume = self.in_use_volume()
        latest = base.headers(roles=['member'], version=mv.MAX_VERSION)
        response = self.extend(2, volume, headers=latest, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'volume %s is in use and its backend does not '
                         'support extending attached volumes' % volume.id)
        self.assertEqual('in-use', self.view(volume)['status'])
        self.backend_extends_online()
        self.extend(2, volume, headers=latest)
        self.assertEqual('extending', self.view(volume)['status'])

    def test_in_use_needs_hosts_that_resize_disks(self):
        # Attachments made through the managers of two hosts: the first
        # one's hypervisor driver can resize attached disks, the second
        # one's cannot (a manager older than RPC 1.6 does not report it).
        self.backend_extends_online()
        volume = self.create_volume(status='in-use', multiattach=True)
        for host, resizes in (('compute1', True), ('compute2', None)):
            service = self.make_manager(host)
            if resizes is not None:
                caps = {'hypervisor': {'driver': 'fake',
                                       'supports_multiattach': True,
                                       'supports_extend_volume': resizes}}
                service_db.service_update(
                    self.admin_context, service.id,
                    {'capabilities': jsonutils.dumps(caps)})
        self.add_attachment(volume, manager_host='compute1',
                            attached_host='compute1')
        unable = self.add_attachment(volume, manager_host='compute2',
                                     attached_host='compute2')
        # A reservation through a host that cannot resize does not count:
        # it is connected only later, at the new size.
        self.add_attachment(volume, manager_host='compute3',
                            attach_status='reserved')
        latest = base.headers(roles=['member'], version=mv.MAX_VERSION)
        response = self.extend(2, volume, headers=latest, status=400)
        self.assertFault(
            response, 400, 'badRequest',
            'volume %s is in use and the hypervisor driver of the host of '
            'attachment %s on host compute2 cannot resize attached disks'
            % (volume.id, unable))
        self.assertEqual('in-use', self.view(volume)['status'])
        self.extend_cast.assert_not_called()
        service = service_db.service_get_by_host_and_binary(
            self.admin_context, 'compute2', 'cinder-ma-manager')
        caps = {'hypervisor': {'driver': 'fake', 'supports_multiattach': True,
                               'supports_extend_volume': True}}
        service_db.service_update(self.admin_context, service.id,
                                  {'capabilities': jsonutils.dumps(caps)})
        self.extend(2, volume, headers=latest)
        self.assertEqual('extending', self.view(volume)['status'])
        # An external consumer's attachment is no host's business.
        external = self.in_use_volume()
        self.extend(2, external, headers=latest)

    def test_in_use_needs_3_42(self):
        self.backend_extends_online()
        volume = self.in_use_volume()
        older = base.headers(roles=['member'],
                             version=mv.prior(mv.VOLUME_EXTEND_INUSE))
        response = self.extend(2, volume, headers=older, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'needs microversion 3.42')
        self.extend_cast.assert_not_called()
        self.extend(2, volume, headers=base.headers(
            roles=['member'], version=mv.VOLUME_EXTEND_INUSE))

    def test_other_statuses(self):
        volume = self.create_volume(status='error')
        response = self.extend(2, volume, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'only available or in-use volumes')

    def test_policy_and_lookup(self):
        self.assertFault(self.extend(2, headers=base.READER, status=403),
                         403, 'forbidden', 'volume:extend')
        foreign = self.create_volume(project=base.OTHER_PROJECT)
        self.assertFault(self.extend(2, foreign, status=404), 404,
                         'itemNotFound')
        self.assertFault(self.extend(2, 'nope', status=404), 404,
                         'itemNotFound')

    def test_manager_unreachable_keeps_the_request(self):
        # Recorded with its size: the manager's reconcile loop runs it.
        self.extend_cast.side_effect = OSError('no route')
        self.extend(2, status=202)
        self.assertEqual('extending', self.view()['status'])


class TestSetBootable(ManageTestCase):

    def set_bootable(self, value, headers=base.MEMBER, status=200):
        return self.act({'os-set_bootable': {'bootable': value}},
                        headers=headers, status=status)

    def test_values(self):
        for value, expected in ((True, 'true'), ('false', 'false'),
                                ('1', 'true'), ('off', 'false'),
                                ('YES', 'true'), (False, 'false')):
            response = self.set_bootable(value)
            self.assertEqual(b'', response.body)
            self.assertEqual(expected, self.view()['bootable'], value)

    def test_validation(self):
        for body, message in (
                ({'os-set_bootable': {'bootable': 'maybe'}},
                 'field/attribute bootable'),
                ({'os-set_bootable': {'bootable': 1}},
                 'field/attribute bootable'),
                ({'os-set_bootable': {}},
                 "'bootable' is a required property"),
                ({'os-set_bootable': {'bootable': True, 'x': 1}},
                 "'x' was unexpected")):
            response = self.act(body, status=400)
            self.assertFault(response, 400, 'badRequest', message)
        self.assertEqual('false', self.view()['bootable'])

    def test_policy(self):
        response = self.set_bootable(True, headers=base.READER, status=403)
        self.assertFault(response, 403, 'forbidden', 'set_bootable')
        self.set_bootable(True, headers=base.ADMIN)
        self.assertEqual('true', self.view()['bootable'])


class TestRetype(ManageTestCase):

    def setUp(self):
        super().setUp()
        self.silver = self.make_type('silver')
        self.shared = self.make_type('shared', multiattach='<is> True')

    def retype(self, new_type, volume=None, headers=base.MEMBER,
               status=202, **extra):
        params = dict(new_type=new_type, **extra)
        return self.act({'os-retype': params}, volume, headers=headers,
                        status=status)

    def test_retype_by_name_or_id(self):
        response = self.retype('silver', migration_policy='never')
        self.assertEqual(b'', response.body)
        self.assertEqual('silver', self.view()['volume_type'])
        self.retype(self.default_type.id, migration_policy='on-demand')
        self.assertEqual(self.default_type.name,
                         self.view()['volume_type'])

    def test_private_type_by_id_is_not_found(self):
        private = volume_types.create_type(self.admin_context, 'private',
                                           is_public=False)
        answers = []
        for type_id in (private.id, str(uuid.uuid4())):
            response = self.retype(type_id, status=404)
            answers.append(response.json['itemNotFound']['message'].replace(
                type_id, '<id>'))
        self.assertEqual(answers[0], answers[1])
        self.assertEqual(self.default_type.name, self.view()['volume_type'])
        self.retype(private.id, headers=base.ADMIN)
        self.assertEqual('private', self.view()['volume_type'])

    def test_to_and_from_shareable_while_available(self):
        self.retype('shared', headers=base.ADMIN)
        view = self.view()
        self.assertEqual(('shared', True),
                         (view['volume_type'], view['multiattach']))
        self.retype('silver')
        self.assertFalse(self.view()['multiattach'])

    def test_in_use_between_shareable_and_not(self):
        volume = self.in_use_volume()
        response = self.retype('shared', volume, headers=base.ADMIN,
                               status=400)
        self.assertFault(response, 400, 'badRequest',
                         'volume %s is in-use; it can move between a '
                         'shareable and a non-shareable type only while '
                         'available' % volume.id)
        shared = self.in_use_volume(multiattach=True,
                                    volume_type_id=self.shared.id)
        response = self.retype('silver', shared, status=400)
        self.assertFault(response, 400, 'badRequest', 'only while '
                                                      'available')
        self.assertEqual(('in-use', False),
                         (self.view(volume)['status'],
                          self.view(volume)['multiattach']))

    def test_in_use_within_its_kind(self):
        volume = self.in_use_volume()
        self.retype('silver', volume)
        self.assertEqual('silver', self.view(volume)['volume_type'])

    def test_shareable_type_needs_the_multiattach_policy(self):
        self.set_policy_rules({'volume:multiattach': 'rule:admin_api'})
        response = self.retype('shared', status=403)
        self.assertFault(response, 403, 'forbidden', 'volume:multiattach')

    def test_refusals(self):
        response = self.retype(self.default_type.name, status=400)
        self.assertFault(response, 400, 'badRequest', 'already has type')
        response = self.retype('nope', status=404)
        self.assertFault(response, 404, 'itemNotFound', 'nope')
        self.make_type('fast', volume_backend_name='other')
        response = self.retype('fast', status=400)
        self.assertFault(response, 400, 'badRequest',
                         'cinder_ma does not migrate volumes')
        self.assertEqual(self.default_type.name,
                         self.view()['volume_type'])

    def test_encrypted_type_needs_a_migration(self):
        secret = self.make_type('secret')
        volume_types.create_encryption(self.admin_context, secret.id,
                                       {'provider': 'luks'})
        response = self.retype('secret', status=400)
        self.assertFault(response, 400, 'badRequest', 'needs a migration')

    def test_validation(self):
        for params, message in (
                ({}, "'new_type' is a required property"),
                ({'new_type': 5}, 'field/attribute new_type'),
                ({'new_type': 'silver', 'migration_policy': 'always'},
                 'field/attribute migration_policy'),
                # null is refused, as in Cinder.
                ({'new_type': 'silver', 'migration_policy': None},
                 'field/attribute migration_policy'),
                ({'new_type': 'silver', 'force': True},
                 "'force' was unexpected")):
            response = self.act({'os-retype': params}, status=400)
            self.assertFault(response, 400, 'badRequest', message)

    def test_reader_cannot(self):
        self.assertFault(self.retype('silver', headers=base.READER,
                                     status=403), 403, 'forbidden')


class TestForceDelete(ManageTestCase):

    def test_admin_only(self):
        response = self.act({'os-force_delete': {}}, status=403)
        self.assertFault(response, 403, 'forbidden', 'force_delete')
        self.delete_cast.assert_not_called()

    def test_force_delete(self):
        volume = self.create_volume(status='error_extending')
        response = self.act({'os-force_delete': {}}, volume,
                            headers=base.ADMIN)
        self.assertEqual(b'', response.body)
        self.assertEqual('deleting', self.view(volume)['status'])
        self.delete_cast.assert_called_once_with(
            self.delete_cast.call_args[0][0], volume.id, volume.host)

    def test_detaches_first(self):
        self.os_attach()
        self.act({'os-force_delete': None}, headers=base.ADMIN)
        view = self.view(headers=base.ADMIN)
        self.assertEqual(('deleting', []),
                         (view['status'], view['attachments']))
        self.assertEqual([], self.attachments())

    def test_unknown_volume(self):
        for volume_id in ('nope', str(uuid.uuid4())):
            response = self.act({'os-force_delete': {}}, volume_id,
                                headers=base.ADMIN, status=404)
            self.assertFault(response, 404, 'itemNotFound')
