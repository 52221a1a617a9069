"""Tests of the attach/detach actions of volumes (the legacy attach API)
and of os-force_detach.

Manager calls go to the recorder of tests.unit.api.base (see there why).
"""

import uuid

from cinder_ma.api import microversions as mv
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
        self.assertEqual('attaching', self.view()['status'])
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

    def test_unreserve(self):
        self.act({'os-reserve': {}})
        self.act({'os-unreserve': None})
        self.assertEqual('available', self.view()['status'])
        self.assertEqual([], self.attachments())

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
        # Without attachment_id the service cannot tell which one.
        for action in ('os-detach', 'os-begin_detaching'):
            response = self.act({action: {}}, volume, status=400)
            self.assertFault(response, 400, 'badRequest',
                             'volume %s has 2 attachments' % volume.id)
            self.assertIn('%s needs the attachment_id' % action,
                          response.json['badRequest']['message'])
        self.act({'os-detach': {'attachment_id': first['attachment_id']}},
                 volume)
        (left,) = self.view(volume)['attachments']
        self.assertEqual(second['attachment_id'], left['attachment_id'])
        self.assertEqual('in-use', self.view(volume)['status'])

    def test_detaching_one_of_several_from_3_55(self):
        volume = self.create_volume(multiattach=True)
        self.os_attach(volume)
        self.os_attach(volume, str(uuid.uuid4()), mountpoint='/dev/vdc')
        first, second = self.view(volume)['attachments']
        latest = base.headers(roles=['member'], version=mv.MAX_VERSION)
        older = base.headers(roles=['member'],
                             version=mv.prior(mv.ATTACH_THROUGH_MANAGER))
        body = {'os-begin_detaching': {
            'attachment_id': second['attachment_id']}}
        # Ignored below 3.55, as Cinder ignores it.
        self.act(body, volume, headers=older, status=400)
        self.act(body, volume, headers=latest)
        statuses = {a['id']: a['status'] for a in self.attachments(volume)}
        self.assertEqual('detaching', statuses[second['attachment_id']])
        self.assertEqual('attached', statuses[first['attachment_id']])
        self.act({'os-roll_detaching': {
            'attachment_id': second['attachment_id']}}, volume,
            headers=latest)
        self.assertEqual({'attached'}, {a['status'] for a in
                                        self.attachments(volume)})
        response = self.act({'os-roll_detaching': {'attachment_id': 'x'}},
                            volume, headers=latest, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'field/attribute attachment_id')
        response = self.act({'os-begin_detaching': {'force': True}},
                            volume, headers=latest, status=400)
        self.assertFault(response, 400, 'badRequest',
                         "'force' was unexpected")

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
        self.notify.assert_called_once_with(
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
        response = self.act({'os-extend': {'new_size': 2}}, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'There is no such action: os-extend')

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


class TestWithCinderclient(VolumeActionsTestCase):
    """Cinder's own client, at the version it negotiates."""

    def setUp(self):
        super().setUp()
        served = self.useFixture(base.ServedApp(self.app.app))
        self.client = base.cinderclient_for(served.url, mv.MAX_VERSION)

    def test_legacy_actions(self):
        volumes = self.client.volumes
        volumes.reserve(self.volume.id)
        self.assertEqual('attaching', volumes.get(self.volume.id).status)
        volumes.attach(self.volume.id, self.instance, '/dev/vdb', mode='rw')
        self.assertEqual('in-use', volumes.get(self.volume.id).status)
        volumes.begin_detaching(self.volume.id)
        volumes.roll_detaching(self.volume.id)
        volumes.detach(self.volume.id)
        self.assertEqual('available', volumes.get(self.volume.id).status)
