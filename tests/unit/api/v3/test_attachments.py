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

"""Tests of the attachments API: shapes, microversion gates, validation,
policy, the attach flow of an external consumer and the one through a
cinder_ma manager (extension cinder-ma-manager-attach).

Manager calls go to the recorder of tests.unit.api.base (see there why);
tests/functional/api/v3/test_attachments_end_to_end.py drives the same
API with python-cinderclient and with real managers.
"""

import uuid

import fixtures

from cinder_ma.api import microversions as mv
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import services as service_db
from cinder_ma.db import types as type_db
from cinder_ma import exception
from cinder_ma.volume import attachments as volume_attachments
from tests.unit.api import base

SUMMARY_KEYS = {'id', 'status', 'instance', 'volume_id'}
DETAIL_KEYS = SUMMARY_KEYS | {'attached_at', 'detached_at', 'attach_mode',
                              'connection_info'}
INSTANCE_HOST = 'cinder-ma-manager-attach:instance_host'
ATTACH_MODE = 'cinder-ma-multiattach:attach_mode'
CONNECTOR = {'host': 'compute1', 'initiator': 'iqn.2026-11.test:compute1',
             'platform': 'x86_64', 'os_type': 'linux', 'multipath': False}


def member(version=mv.MAX_VERSION, **kw):
    return base.headers(roles=['member', 'reader'], version=version, **kw)


def service(version=mv.MAX_VERSION):
    return base.headers(user='nova', roles=['member', 'reader'],
                        service_roles=['service'], version=version)


def reader(version=mv.MAX_VERSION):
    return base.headers(user='reader-user', roles=['reader'],
                        version=version)


def admin(version=mv.MAX_VERSION):
    return base.headers(user='admin-user', version=version)


class AttachmentsTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.volume = self.create_volume()
        self.instance = str(uuid.uuid4())

    def shared_volume(self, **values):
        return self.create_volume(multiattach=True, **values)

    def post(self, attachment, headers=None, status=200):
        return self.app.post_json(
            self.url('attachments'), {'attachment': attachment},
            headers=headers or member(), status=status)

    def reserve(self, volume=None, instance=None, headers=None, **extra):
        attachment = {'volume_uuid': (volume or self.volume).id,
                      'instance_uuid': instance or self.instance}
        attachment.update(extra)
        return self.post(attachment, headers=headers).json['attachment']

    def put(self, attachment_id, connector, headers=None, status=200):
        return self.app.put_json(
            self.url('attachments/%s' % attachment_id),
            {'attachment': {'connector': connector}},
            headers=headers or member(), status=status)

    def action(self, attachment_id, body, headers=None, status=204):
        return self.app.post_json(
            self.url('attachments/%s/action' % attachment_id), body,
            headers=headers or member(), status=status)

    def attach(self, volume=None, instance=None, connector=CONNECTOR,
               headers=None):
        """create with a connector, then os-complete: attached."""
        attachment = self.reserve(volume, instance, connector=connector,
                                  headers=headers)
        self.action(attachment['id'], {'os-complete': None},
                    headers=headers)
        return attachment

    def show(self, attachment_id, headers=None, status=200):
        return self.app.get(self.url('attachments/%s' % attachment_id),
                            headers=headers or member(), status=status)

    def volume_view(self, volume=None, headers=None):
        return self.app.get(
            self.url('volumes/%s' % (volume or self.volume).id),
            headers=headers or member()).json['volume']


class TestGates(AttachmentsTestCase):

    def test_every_route_is_a_404_below_3_27(self):
        attachment_id = self.reserve()['id']
        old = member(mv.prior(mv.NEW_ATTACH))
        url = self.url('attachments')
        one = self.url('attachments/%s' % attachment_id)
        for response in (
                self.app.get(url, headers=old, status=404),
                self.app.get(url + '/detail', headers=old, status=404),
                self.app.get(one, headers=old, status=404),
                self.app.post_json(url, {'attachment': {
                    'volume_uuid': self.volume.id}}, headers=old,
                    status=404),
                self.app.put_json(one, {'attachment': {
                    'connector': CONNECTOR}}, headers=old, status=404),
                self.app.delete(one, headers=old, status=404),
                self.app.post_json(one + '/action', {'os-complete': None},
                                   headers=old, status=404)):
            self.assertFault(response, 404, 'itemNotFound',
                             'API version 3.26 is not supported on this '
                             'method.')
            self.assertEqual('volume 3.26',
                             response.headers['OpenStack-API-Version'])
        # Nothing happened.
        self.assertEqual('reserved', self.show(attachment_id).json[
            'attachment']['status'])
        self.assertEqual([], self.rpc.calls)

    def test_without_version_header_is_3_0(self):
        response = self.app.get(self.url('attachments'),
                                headers=base.MEMBER, status=404)
        self.assertFault(response, 404, 'itemNotFound', 'API version 3.0')

    def test_served_from_3_27(self):
        attachment = self.reserve(headers=member(mv.NEW_ATTACH))
        self.assertEqual(DETAIL_KEYS, set(attachment))
        self.app.get(self.url('attachments'), headers=member(mv.NEW_ATTACH))

    def test_complete_from_3_44(self):
        attachment = self.reserve(connector=CONNECTOR)
        response = self.action(
            attachment['id'], {'os-complete': None},
            headers=member(mv.prior(mv.NEW_ATTACH_COMPLETION)), status=404)
        self.assertFault(response, 404, 'itemNotFound',
                         'API version 3.43 is not supported')
        self.assertEqual('attaching', self.show(attachment['id']).json[
            'attachment']['status'])
        self.action(attachment['id'], {'os-complete': None},
                    headers=member(mv.NEW_ATTACH_COMPLETION))

    def test_mode_from_3_54(self):
        response = self.post(
            {'volume_uuid': self.volume.id, 'mode': 'ro'},
            headers=member(mv.prior(mv.ATTACHMENT_CREATE_MODE_ARG)),
            status=400)
        self.assertFault(response, 400, 'badRequest', "'mode' was "
                                                      "unexpected")
        attachment = self.post(
            {'volume_uuid': self.volume.id, 'mode': 'ro'},
            headers=member(mv.ATTACHMENT_CREATE_MODE_ARG)).json[
                'attachment']
        self.assertEqual('ro', attachment['attach_mode'])

    def test_instance_host_from_3_54(self):
        self.make_manager()
        response = self.post(
            {'volume_uuid': self.volume.id, 'instance_uuid': self.instance,
             INSTANCE_HOST: base.MANAGER_HOST},
            headers=member(mv.prior(mv.ATTACHMENT_CREATE_MODE_ARG)),
            status=400)
        self.assertFault(response, 400, 'badRequest',
                         "'%s' was unexpected" % INSTANCE_HOST)
        self.assertEqual([], self.rpc.calls)

    def test_former_3_55_form_names_the_extension(self):
        self.make_manager()
        for version in (mv.TRANSFER_WITH_SNAPSHOTS, mv.NEW_ATTACH):
            response = self.post(
                {'volume_uuid': self.volume.id,
                 'instance_uuid': self.instance,
                 'instance_host': base.MANAGER_HOST},
                headers=member(version), status=400)
            self.assertFault(response, 400, 'badRequest',
                             'send %s with microversion 3.54 or later'
                             % INSTANCE_HOST)
        self.assertEqual([], self.rpc.calls)


class TestCreate(AttachmentsTestCase):

    def test_reserve(self):
        attachment = self.reserve()
        self.assertEqual(DETAIL_KEYS, set(attachment))
        self.assertEqual('reserved', attachment['status'])
        self.assertEqual(self.instance, attachment['instance'])
        self.assertEqual(self.volume.id, attachment['volume_id'])
        self.assertEqual('rw', attachment['attach_mode'])
        # Cinder prints unset times as empty strings.
        self.assertEqual('', attachment['attached_at'])
        self.assertEqual('', attachment['detached_at'])
        self.assertIsNone(attachment['connection_info'])
        # Only reservations: Cinder's "reserved", which clients wait for.
        self.assertEqual('reserved', self.volume_view()['status'])
        self.assertEqual([], self.rpc.calls)

    def test_with_connector_connects(self):
        attachment = self.reserve(connector=CONNECTOR)
        self.assertEqual('attaching', attachment['status'])
        info = attachment['connection_info']
        # Cinder's flat shape: the backend's data at the top level.
        self.assertEqual({'driver_volume_type': 'file',
                          'path': '/srv/volume-%s' % self.volume.id,
                          'access_mode': 'rw',
                          'attachment_id': attachment['id']}, info)
        self.assertEqual('attaching', self.volume_view()['status'])
        self.assertEqual([('initialize_connection', self.volume.id,
                           self.volume.host, CONNECTOR, 'rw')],
                         self.rpc.calls)

    def test_read_only(self):
        attachment = self.reserve(connector=CONNECTOR, mode='ro')
        self.assertEqual('ro', attachment['attach_mode'])
        self.assertEqual('ro',
                         attachment['connection_info']['access_mode'])
        self.assertEqual('ro', self.rpc.calls[-1][-1])

    def test_connector_mode_below_3_54(self):
        # Cinder's clients before 3.54 give the mode in the connector.
        attachment = self.reserve(
            connector=dict(CONNECTOR, mode='ro'),
            headers=member(mv.prior(mv.ATTACHMENT_CREATE_MODE_ARG)))
        self.assertEqual('ro', attachment['attach_mode'])

    def test_mode_of_the_body_wins(self):
        attachment = self.reserve(connector=dict(CONNECTOR, mode='ro'),
                                  mode='rw')
        self.assertEqual('rw', attachment['attach_mode'])

    def test_without_instance(self):
        # glance's cinder store attaches to no instance; python-cinderclient
        # leaves the key out.
        attachment = self.post({'volume_uuid': self.volume.id,
                                'connector': CONNECTOR}).json['attachment']
        self.assertIsNone(attachment['instance'])
        self.assertEqual('attaching', attachment['status'])

    def test_empty_connector_only_reserves(self):
        attachment = self.reserve(connector={})
        self.assertEqual('reserved', attachment['status'])
        self.assertEqual([], self.rpc.calls)

    def _bad(self, attachment, message, headers=None):
        response = self.post(attachment, headers=headers, status=400)
        self.assertFault(response, 400, 'badRequest', message)
        self.assertEqual('available', self.volume_view()['status'])
        self.assertEqual([], self.rpc.calls)

    def test_bad_input(self):
        vol = self.volume.id
        self._bad({'instance_uuid': self.instance},
                  "'volume_uuid' is a required property")
        self._bad({'volume_uuid': 'not-a-uuid'},
                  "field/attribute volume_uuid. Value: \"not-a-uuid\". "
                  "'not-a-uuid' is not a 'uuid'")
        self._bad({'volume_uuid': vol, 'instance_uuid': 'srv-1'},
                  'field/attribute instance_uuid')
        self._bad({'volume_uuid': vol, 'mode': 'wr'},
                  "field/attribute mode. Value: \"wr\". 'wr' is not one "
                  "of ['rw', 'ro']")
        self._bad({'volume_uuid': vol, 'connector': ['host']},
                  "field/attribute connector. Value: [\"host\"]. "
                  "['host'] is not of type 'object', 'null'")
        self._bad({'volume_uuid': vol, 'connector': 'compute1'},
                  'field/attribute connector')
        self._bad({'volume_uuid': vol, 'size': 1},
                  "Additional properties are not allowed ('size' was "
                  "unexpected)")
        self._bad({'volume_uuid': vol,
                   'connector': {'initiator': 'iqn.x'}},
                  'connector must be an object with at least "host"')

    def test_body_must_be_json(self):
        response = self.app.post(self.url('attachments'), 'nope',
                                 headers=member(), status=400,
                                 content_type='application/json')
        self.assertFault(response, 400, 'badRequest',
                         'Malformed request body')
        response = self.app.post_json(self.url('attachments'),
                                      {'volume_uuid': self.volume.id},
                                      headers=member(), status=400)
        self.assertFault(response, 400, 'badRequest',
                         "'attachment' is a required property")

    def test_unknown_volume(self):
        response = self.post({'volume_uuid': str(uuid.uuid4())},
                             status=404)
        self.assertFault(response, 404, 'itemNotFound', 'could not be '
                                                        'found')

    def test_other_projects_volume_is_not_found(self):
        response = self.app.post_json(
            self.url('attachments', project=base.OTHER_PROJECT),
            {'attachment': {'volume_uuid': self.volume.id}},
            headers=base.headers(project=base.OTHER_PROJECT,
                                 user='other-user',
                                 roles=['member', 'reader'],
                                 version=mv.MAX_VERSION), status=404)
        self.assertFault(response, 404, 'itemNotFound',
                         'Volume %s could not be found' % self.volume.id)

    def test_reader_cannot_create(self):
        response = self.post({'volume_uuid': self.volume.id},
                             headers=reader(), status=403)
        self.assertFault(response, 403, 'forbidden',
                         'volume:attachment_create')
        self.assertEqual('available', self.volume_view()['status'])

    def test_service_and_admin_can_create(self):
        self.reserve(headers=service())
        self.reserve(volume=self.shared_volume(), headers=admin())

    def test_plain_volume_takes_one_instance(self):
        self.attach()
        response = self.post({'volume_uuid': self.volume.id,
                              'instance_uuid': str(uuid.uuid4())},
                             status=400)
        self.assertFault(response, 400, 'badRequest', 'not multiattach')
        self.assertIn('already held by instance %s' % self.instance,
                      response.json['badRequest']['message'])

    def test_plain_volume_held_by_no_instance(self):
        # os-reserve's reservation names no instance; neither does the
        # refusal.
        self.app.post_json(self.url('volumes/%s/action' % self.volume.id),
                           {'os-reserve': None}, headers=member(),
                           status=202)
        response = self.post({'volume_uuid': self.volume.id,
                              'instance_uuid': str(uuid.uuid4())},
                             status=400)
        message = response.json['badRequest']['message']
        self.assertIn('already held by an attachment of no instance',
                      message)
        self.assertNotIn('None', message)

    def test_shared_volume_takes_several_instances(self):
        volume = self.shared_volume()
        first = self.attach(volume)
        second = self.attach(volume, str(uuid.uuid4()),
                             connector=dict(CONNECTOR, host='compute2'))
        view = self.volume_view(volume)
        self.assertEqual('in-use', view['status'])
        self.assertTrue(view['multiattach'])
        self.assertEqual({first['id'], second['id']},
                         {a['attachment_id'] for a in view['attachments']})

    def test_double_attach_on_one_host_is_a_409(self):
        self.attach()
        # The connect flow logs its refused step.
        self.expect_logged_errors()
        response = self.post({'volume_uuid': self.volume.id,
                              'instance_uuid': self.instance,
                              'connector': CONNECTOR}, status=409)
        self.assertFault(response, 409, 'conflictingRequest',
                         'already has volume %s connected on host compute1'
                         % self.volume.id)
        # The same instance on another host (live migration) is fine.
        self.reserve(connector=dict(CONNECTOR, host='compute2'))


class TestWriterPolicy(AttachmentsTestCase):
    """multiattach:writers = one: any number of ro, one rw at a time (the
    race of it is in tests/functional/db/test_writer_races.py)."""

    def one_writer_volume(self):
        vtype = type_db.volume_type_create(
            self.admin_context, {'name': 'one-writer'},
            extra_specs={'multiattach': '<is> True',
                         'multiattach:writers': 'one'})
        return self.shared_volume(volume_type_id=vtype.id)

    def test_second_writer_is_a_409_naming_the_writer(self):
        volume = self.one_writer_volume()
        writer = self.attach(volume)
        readers = [self.reserve(volume, str(uuid.uuid4()), mode='ro')
                   for _ in range(2)]
        other = str(uuid.uuid4())
        response = self.post({'volume_uuid': volume.id,
                              'instance_uuid': other, 'mode': 'rw'},
                             status=409)
        self.assertFault(response, 409, 'conflictingRequest',
                         'attachment %s of instance %s' % (
                             writer['id'], self.instance))
        self.assertIn('multiattach:writers=one',
                      response.json['conflictingRequest']['message'])
        # Once the writer is gone, another may write.
        self.app.delete(self.url('attachments/%s' % writer['id']),
                        headers=service())
        self.reserve(volume, other, mode='rw')
        self.assertEqual(2, len(readers))

    def test_volume_view_shows_the_policy(self):
        """Behind the extension cinder-ma-writers: Cinder's shape for the
        clients that do not ask for it."""
        asking = dict(member(), **{'Cinder-MA-Extensions':
                                   'cinder-ma-writers'})
        field = 'cinder-ma-writers:writers'
        volume = self.one_writer_volume()
        self.assertEqual('one', self.volume_view(volume, asking)[field])
        self.assertNotIn(field, self.volume_view(volume))
        listed = self.app.get(self.url('volumes/detail'),
                              headers=asking).json['volumes']
        by_id = {v['id']: v for v in listed}
        self.assertEqual('one', by_id[volume.id][field])
        shared = self.shared_volume()
        self.assertEqual('many', self.volume_view(shared, asking)[field])
        self.assertNotIn(field, self.volume_view(headers=asking))

    def test_many_is_cinders_behaviour(self):
        volume = self.shared_volume()
        self.reserve(volume, mode='rw')
        self.reserve(volume, str(uuid.uuid4()), mode='rw')


class TestThroughManager(AttachmentsTestCase):
    """cinder-ma-manager-attach: the manager of the host runs the attach
    flow."""

    def setUp(self):
        super().setUp()
        self.make_manager()

    def _post(self, status=200, headers=None, **extra):
        attachment = {'volume_uuid': self.volume.id,
                      'instance_uuid': self.instance,
                      INSTANCE_HOST: base.MANAGER_HOST}
        attachment.update({INSTANCE_HOST if k == 'instance_host' else k: v
                           for k, v in extra.items()})
        return self.post(attachment, status=status,
                         headers=headers and dict(
                             headers, **{'OpenStack-API-Version':
                                         'volume %s' % mv.MAX_VERSION}))

    def test_casts_the_attach_to_the_host(self):
        attachment = self._post(mode='ro').json['attachment']
        self.assertEqual(DETAIL_KEYS, set(attachment))
        self.assertEqual('reserved', attachment['status'])
        self.assertEqual('ro', attachment['attach_mode'])
        self.assertEqual([('get_instance_owner', self.instance,
                           base.MANAGER_HOST),
                          ('attach_volume', attachment['id'],
                           base.MANAGER_HOST)], self.rpc.calls)
        self.assertEqual('volume.attach.start',
                         self.notify.call_args[0][1])
        # The client polls until the manager is done.
        self.assertEqual('reserved', self.show(attachment['id']).json[
            'attachment']['status'])

    def test_connector_is_exclusive(self):
        response = self._post(connector=CONNECTOR, status=400)
        self.assertFault(response, 400, 'badRequest',
                         '%s and connector are mutually '
                         'exclusive' % INSTANCE_HOST)
        self.assertEqual('available', self.volume_view()['status'])
        self.assertEqual([], self.rpc.calls)
        # A null connector is no connector (python-cinderclient sends it).
        self._post(connector=None)

    def test_needs_an_instance(self):
        response = self._post(instance_uuid=None, status=400)
        self.assertFault(response, 400, 'badRequest',
                         '%s needs instance_uuid' % INSTANCE_HOST)

    def test_bad_hosts(self):
        response = self._post(instance_host='nowhere', status=400,
                              headers=base.ADMIN)
        self.assertFault(response, 400, 'badRequest',
                         'host nowhere is not run by a cinder_ma manager')
        response = self._post(instance_host='  ', status=400)
        self.assertFault(response, 400, 'badRequest',
                         'field/attribute %s' % INSTANCE_HOST)
        self.assertEqual([], self.rpc.calls)

    def test_members_attach_only_into_their_own_instances(self):
        """A host or an instance that is not the caller's answers as one
        that does not exist: same status, same message."""
        self.make_manager('compute2')
        self.make_manager('compute3')
        service_db.service_update(
            self.admin_context,
            service_db.service_get_by_host_and_binary(
                self.admin_context, 'compute3', 'cinder-ma-manager').id,
            {'capabilities': {'hypervisor': {
                'driver': 'blind', 'supports_multiattach': True}}})
        theirs = str(uuid.uuid4())
        self.rpc.owners[theirs] = base.OTHER_PROJECT
        unknown = str(uuid.uuid4())
        self.rpc.owners[unknown] = None
        answers = []
        for instance, host in ((theirs, base.MANAGER_HOST),
                               (unknown, base.MANAGER_HOST),
                               (self.instance, 'nowhere'),
                               # A driver that cannot tell owners.
                               (self.instance, 'compute3')):
            response = self._post(instance_uuid=instance,
                                  instance_host=host, status=400)
            self.assertFault(response, 400, 'badRequest',
                             'runs no instance')
            answers.append(response.json['badRequest']['message'].replace(
                instance, '<instance>').replace(host, '<host>'))
        self.assertEqual(1, len(set(answers)), answers)
        self.assertEqual([], [c for c in self.rpc.calls
                              if c[0] != 'get_instance_owner'])
        self.assertEqual('available', self.volume_view()['status'])
        # Their own instance, on any host that runs it.
        self.rpc.owners[theirs] = base.PROJECT
        self._post(instance_uuid=theirs, instance_host='compute2')
        # Administrators attach into any instance.
        other = str(uuid.uuid4())
        self.rpc.owners[other] = base.OTHER_PROJECT
        self._post(volume_uuid=self.shared_volume().id,
                   instance_uuid=other, headers=base.ADMIN)

    def test_shared_volume_needs_a_multiattach_hypervisor(self):
        self.make_manager('compute2', supports_multiattach=False)
        volume = self.shared_volume()
        self.attach(volume)
        response = self._post(volume_uuid=volume.id,
                              instance_uuid=str(uuid.uuid4()),
                              instance_host='compute2', status=400)
        self.assertFault(response, 400, 'badRequest',
                         'does not support multiattach')

    def test_reader_cannot(self):
        response = self.post({'volume_uuid': self.volume.id,
                              'instance_uuid': self.instance,
                              INSTANCE_HOST: base.MANAGER_HOST},
                             headers=reader(), status=403)
        self.assertFault(response, 403, 'forbidden')

    def test_lost_cast_keeps_the_reservation(self):
        def broken():
            raise RuntimeError('no route to compute1')
        rpc = base.RecordingRPC()
        rpc.attach_volume = lambda *a, **k: broken()
        self.useFixture(fixtures.MockPatchObject(
            volume_attachments, '_rpc', lambda: rpc))
        # The reservation is the request: the host's reconcile loop
        # attaches it (tests/unit/manager/test_reconcile.py).
        attachment = self._post().json['attachment']
        self.assertEqual('reserved', attachment['status'])
        self.assertEqual('reserved', self.volume_view()['status'])

    def test_delete_casts_the_detach(self):
        attachment = self._post().json['attachment']
        # What the manager's attach flow records when it is done.
        attachment_db.attachment_update(
            self.admin_context, attachment['id'],
            {'attach_status': 'attached', 'mountpoint': '/dev/vdb'})
        self.rpc.calls.clear()
        response = self.app.delete(
            self.url('attachments/%s' % attachment['id']),
            headers=service())
        self.assertEqual({'attachments': []}, response.json)
        self.assertEqual([('detach_volume', attachment['id'],
                           base.MANAGER_HOST)], self.rpc.calls)
        self.assertEqual('detaching', self.show(attachment['id']).json[
            'attachment']['status'])


class TestUpdate(AttachmentsTestCase):

    def test_connect(self):
        attachment = self.reserve()
        updated = self.put(attachment['id'], CONNECTOR).json['attachment']
        self.assertEqual(DETAIL_KEYS, set(updated))
        self.assertEqual('attaching', updated['status'])
        self.assertEqual('rw', updated['connection_info']['access_mode'])
        self.assertNotIn('data', updated['connection_info'])
        self.assertEqual(updated['connection_info'],
                         self.show(attachment['id']).json['attachment'][
                             'connection_info'])
        self.assertEqual('initialize_connection', self.rpc.calls[-1][0])

    def test_coordination_backend_down_is_a_503(self):
        # The connection lock cannot be taken: nothing is asked of the
        # backend, and the flow's sentinel marks the attachment failed.
        attachment = self.reserve()
        self.flags(backend_url='file:///proc/cinder_ma-nowhere',
                   group='coordination')
        logged = self.expect_logged_errors()
        response = self.put(attachment['id'], CONNECTOR, status=503)
        self.assertIn('The coordination backend is unavailable',
                      logged.output)
        self.assertEqual(503, response.json['serviceUnavailable']['code'])
        self.assertEqual([], [c for c in self.rpc.calls
                              if c[0] == 'initialize_connection'])
        self.assertEqual('error_attaching',
                         self.show(attachment['id']).json['attachment'][
                             'status'])

    def test_bad_connectors(self):
        attachment_id = self.reserve()['id']
        for connector, message in (
                ({}, 'Value: {}. {} should be non-empty'),
                (None, "None is not of type 'object'"),
                ('compute1', "'compute1' is not of type 'object'"),
                ({'initiator': 'iqn.x'},
                 'connector must be an object with at least "host"')):
            response = self.put(attachment_id, connector, status=400)
            self.assertFault(response, 400, 'badRequest', message)
        response = self.app.put_json(
            self.url('attachments/%s' % attachment_id),
            {'attachment': {'connector': CONNECTOR, 'mode': 'ro'}},
            headers=member(), status=400)
        self.assertFault(response, 400, 'badRequest', "'mode' was "
                                                      "unexpected")
        self.assertEqual([], self.rpc.calls)

    def test_unknown_attachments(self):
        for attachment_id in ('not-a-uuid', str(uuid.uuid4()), 'detail'):
            response = self.put(attachment_id, CONNECTOR, status=404)
            self.assertFault(response, 404, 'itemNotFound',
                             'Volume attachment could not be found with '
                             'filter: attachment_id = %s' % attachment_id)

    def test_other_projects_attachment_is_not_found(self):
        attachment_id = self.reserve()['id']
        response = self.app.put_json(
            self.url('attachments/%s' % attachment_id,
                     project=base.OTHER_PROJECT),
            {'attachment': {'connector': CONNECTOR}},
            headers=base.headers(project=base.OTHER_PROJECT,
                                 roles=['member'], version=mv.MAX_VERSION),
            status=404)
        self.assertFault(response, 404, 'itemNotFound')

    def test_reader_cannot(self):
        attachment_id = self.reserve()['id']
        response = self.put(attachment_id, CONNECTOR, headers=reader(),
                            status=403)
        self.assertFault(response, 403, 'forbidden',
                         'volume:attachment_update')


class TestComplete(AttachmentsTestCase):

    def test_complete(self):
        attachment = self.reserve(connector=dict(CONNECTOR,
                                                 mountpoint='/dev/vdb'))
        response = self.action(attachment['id'], {'os-complete': None})
        self.assertEqual(b'', response.body)
        shown = self.show(attachment['id']).json['attachment']
        self.assertEqual('attached', shown['status'])
        self.assertNotEqual('', shown['attached_at'])
        view = self.volume_view()
        self.assertEqual('in-use', view['status'])
        (entry,) = view['attachments']
        self.assertEqual(attachment['id'], entry['attachment_id'])
        self.assertEqual(self.instance, entry['server_id'])
        self.assertEqual('/dev/vdb', entry['device'])
        self.assertEqual(shown['attached_at'], entry['attached_at'])

    def test_complete_needs_a_connection(self):
        attachment = self.reserve()
        response = self.action(attachment['id'], {'os-complete': None},
                               status=409)
        self.assertFault(response, 409, 'conflictingRequest',
                         'is reserved, expected attaching or attached')

    def test_action_bodies(self):
        attachment_id = self.reserve(connector=CONNECTOR)['id']
        response = self.action(attachment_id, {'os-nope': None},
                               status=400)
        self.assertFault(response, 400, 'badRequest',
                         'There is no such action: os-nope')
        response = self.action(attachment_id, {'os-complete': None,
                                               'os-nope': None},
                               status=400)
        self.assertFault(response, 400, 'badRequest',
                         'Malformed request body')
        response = self.action(attachment_id, ['os-complete'], status=400)
        self.assertFault(response, 400, 'badRequest',
                         'Malformed request body')
        # Any value of the key, as in Cinder.
        self.action(attachment_id, {'os-complete': {}})

    def test_reader_cannot(self):
        attachment_id = self.reserve(connector=CONNECTOR)['id']
        response = self.action(attachment_id, {'os-complete': None},
                               headers=reader(), status=403)
        self.assertFault(response, 403, 'forbidden',
                         'volume:attachment_complete')


class TestDelete(AttachmentsTestCase):

    def delete(self, attachment_id, headers=None, status=200):
        return self.app.delete(self.url('attachments/%s' % attachment_id),
                               headers=headers or member(), status=status)

    def test_delete_a_reservation(self):
        attachment_id = self.reserve()['id']
        response = self.delete(attachment_id)
        self.assertEqual({'attachments': []}, response.json)
        self.assertEqual('available', self.volume_view()['status'])
        self.show(attachment_id, status=404)
        self.assertEqual([], self.rpc.calls)

    def test_connected_attachment_needs_the_service(self):
        attachment = self.attach(headers=service())
        response = self.delete(attachment['id'], status=409)
        self.assertFault(response, 409, 'conflictingRequest',
                         'only the service that attached it can delete it')
        self.assertEqual('in-use', self.volume_view()['status'])
        self.assertNotIn('terminate_connection', self.rpc.methods())
        self.delete(attachment['id'], headers=service())
        self.assertEqual(('terminate_connection', self.volume.id,
                          self.volume.host, CONNECTOR), self.rpc.calls[-1])
        self.assertEqual('available', self.volume_view()['status'])

    def test_connected_attachment_of_no_instance(self):
        attachment = self.post({'volume_uuid': self.volume.id,
                                'connector': CONNECTOR},
                               headers=service()).json['attachment']
        self.action(attachment['id'], {'os-complete': None},
                    headers=service())
        response = self.delete(attachment['id'], status=409)
        self.assertFault(response, 409, 'conflictingRequest',
                         'is connected to host compute1 (it names no '
                         'instance)')
        self.assertNotIn('None', response.text)

    def test_answers_the_other_attachments(self):
        volume = self.shared_volume()
        first = self.attach(volume, headers=service())
        second = self.attach(volume, str(uuid.uuid4()), headers=service())
        response = self.delete(first['id'], headers=service())
        (other,) = response.json['attachments']
        self.assertEqual(SUMMARY_KEYS, set(other))
        self.assertEqual(second['id'], other['id'])
        self.assertEqual('attached', other['status'])
        # The connection of compute1 is still used by the second one.
        self.assertNotIn('terminate_connection', self.rpc.methods())
        self.assertEqual('in-use', self.volume_view(volume)['status'])

    def test_policy_and_projects(self):
        attachment_id = self.reserve()['id']
        response = self.delete(attachment_id, headers=reader(), status=403)
        self.assertFault(response, 403, 'forbidden',
                         'volume:attachment_delete')
        response = self.app.delete(
            self.url('attachments/%s' % attachment_id,
                     project=base.OTHER_PROJECT),
            headers=base.headers(project=base.OTHER_PROJECT,
                                 roles=['member'], version=mv.MAX_VERSION),
            status=404)
        self.assertFault(response, 404, 'itemNotFound')
        self.delete('not-a-uuid', status=404)
        self.delete(str(uuid.uuid4()), status=404)


class TestShowAndList(AttachmentsTestCase):

    def setUp(self):
        super().setUp()
        self.other_volume = self.shared_volume()
        self.ids = [self.reserve(connector=CONNECTOR)['id']]
        for _ in range(2):
            self.ids.append(self.reserve(self.other_volume,
                                         str(uuid.uuid4()))['id'])
        self.foreign = self.create_volume(project=base.OTHER_PROJECT)
        self.foreign_id = self.add_attachment(self.foreign)

    def get(self, query='', headers=None, status=200, detail=False):
        path = 'attachments/detail' if detail else 'attachments'
        return self.app.get(self.url(path) + query,
                            headers=headers or member(), status=status)

    def test_show(self):
        shown = self.show(self.ids[0]).json['attachment']
        self.assertEqual(DETAIL_KEYS, set(shown))
        self.assertEqual('attaching', shown['status'])
        self.assertEqual('rw', shown['connection_info']['access_mode'])
        self.show(self.ids[0], headers=reader())
        self.show(self.ids[0], headers=service())
        # Administrators see why the last step failed when they ask for
        # the extension cinder-ma-recovery.
        shown = self.show(self.ids[0], headers=admin()).json[
            'attachment']
        self.assertEqual(DETAIL_KEYS, set(shown))
        shown = self.show(self.ids[0], headers=dict(
            admin(), **{'Cinder-MA-Extensions': 'cinder-ma-recovery'})).json[
            'attachment']
        self.assertIsNone(shown.pop('cinder-ma-recovery:failure_reason'))
        self.assertEqual(DETAIL_KEYS, set(shown))
        self.show(self.foreign_id, status=404)
        self.show('not-a-uuid', status=404)

    def test_summary_and_detail(self):
        attachments = self.get().json['attachments']
        self.assertEqual(set(self.ids), {a['id'] for a in attachments})
        for attachment in attachments:
            self.assertEqual(SUMMARY_KEYS, set(attachment))
        attachments = self.get(detail=True).json['attachments']
        self.assertEqual(set(self.ids), {a['id'] for a in attachments})
        for attachment in attachments:
            self.assertEqual(DETAIL_KEYS, set(attachment))
        self.assertEqual(['attachments'], list(self.get(
            headers=reader()).json))

    def test_filters(self):
        def ids(query, **kw):
            return {a['id'] for a in self.get(query, **kw).json[
                'attachments']}
        self.assertEqual(set(self.ids[1:]),
                         ids('?volume_id=%s' % self.other_volume.id))
        self.assertEqual({self.ids[0]}, ids('?instance_id=%s'
                                            % self.instance))
        self.assertEqual({self.ids[0]}, ids('?status=attaching'))
        self.assertEqual(set(self.ids[1:]), ids('?attach_status=reserved'))
        self.assertEqual(set(), ids('?status=attached'))

    def test_unknown_filters(self):
        # Ignored below 3.31, refused from 3.31 on.
        response = self.get('?host=compute1',
                            headers=member(mv.prior(mv.RESOURCE_FILTER)))
        self.assertEqual(3, len(response.json['attachments']))
        response = self.get('?host=compute1&zone=x', status=400)
        self.assertFault(response, 400, 'badRequest',
                         'Invalid filters host,zone are found in query '
                         'options.')

    def test_paging_and_sorting(self):
        ordered = [a['id'] for a in self.get('?sort=created_at:asc').json[
            'attachments']]
        self.assertEqual(self.ids, ordered)
        page = self.get('?sort=created_at:asc&limit=2').json
        self.assertEqual(self.ids[:2], [a['id'] for a in
                                        page['attachments']])
        # Cinder's attachment lists have no links: the client pages
        # with the marker.
        self.assertEqual(['attachments'], list(page))
        page = self.get('?sort=created_at:asc&limit=2&marker=%s'
                        % self.ids[1]).json
        self.assertEqual(self.ids[2:], [a['id'] for a in
                                        page['attachments']])
        detail = self.get('?limit=1', detail=True).json
        self.assertEqual(['attachments'], list(detail))

    def test_bad_paging(self):
        for query, message in (
                ('?limit=x', 'limit param must be an integer'),
                ('?sort=size', 'Sort key supplied is invalid: size'),
                ('?sort=created_at:up', 'Unknown sort direction up'),
                ('?all_tenants=maybe', "'maybe' for 'all_tenants' is not "
                                       "a boolean")):
            response = self.get(query, status=400)
            self.assertFault(response, 400, 'badRequest', message)
        # Cinder looks the marker up as an attachment: 404.
        for marker in (uuid.uuid4(), self.foreign_id):
            response = self.get('?marker=%s' % marker, status=404)
            self.assertFault(response, 404, 'itemNotFound',
                             'could not be found')

    def test_all_tenants(self):
        every = {a['id'] for a in self.get(
            '?all_tenants=1', headers=admin()).json['attachments']}
        self.assertEqual(set(self.ids) | {self.foreign_id}, every)
        own = {a['id'] for a in self.get(
            '?all_tenants=1').json['attachments']}
        self.assertEqual(set(self.ids), own)
        # An admin without all_tenants sees its own project only, as in
        # Cinder.
        self.assertEqual(set(self.ids), {a['id'] for a in self.get(
            headers=admin()).json['attachments']})

    def test_other_project_sees_its_own(self):
        response = self.app.get(
            self.url('attachments', project=base.OTHER_PROJECT),
            headers=base.headers(project=base.OTHER_PROJECT,
                                 roles=['reader'], version=mv.MAX_VERSION))
        self.assertEqual([self.foreign_id],
                         [a['id'] for a in response.json['attachments']])


class TestVolumeViewAttachMode(AttachmentsTestCase):

    def test_attach_mode_with_the_extension(self):
        volume = self.shared_volume()
        attachment = self.reserve(volume, connector=CONNECTOR, mode='ro')
        self.action(attachment['id'], {'os-complete': None})
        cinders = {'id', 'attachment_id', 'volume_id', 'server_id',
                   'host_name', 'device', 'attached_at'}
        # Without asking: Cinder's shape, at any version.
        (entry,) = self.volume_view(volume)['attachments']
        self.assertEqual(cinders, set(entry))
        asked = dict(member(), **{'Cinder-MA-Extensions':
                                  'cinder-ma-multiattach, other'})
        (entry,) = self.volume_view(volume, headers=asked)['attachments']
        self.assertEqual(cinders | {ATTACH_MODE}, set(entry))
        self.assertEqual('ro', entry[ATTACH_MODE])
        # Below the extension's microversion, not even when asked.
        asked = dict(member(mv.prior(mv.MULTIATTACH_VOLUMES)),
                     **{'Cinder-MA-Extensions': 'cinder-ma-multiattach'})
        (entry,) = self.volume_view(volume, headers=asked)['attachments']
        self.assertEqual(cinders, set(entry))


class TestServiceLayerErrors(AttachmentsTestCase):

    def test_unexpected_errors_are_500s_without_details(self):
        logged = self.expect_logged_errors()
        self.useFixture(fixtures.MockPatchObject(
            volume_attachments, 'create_attachment',
            side_effect=exception.DriverError(reason='secret')))
        response = self.post({'volume_uuid': self.volume.id}, status=500)
        self.assertFault(response, 500, 'computeFault')
        self.assertNotIn('secret', response.text)
        self.assertIn('Storage driver error: secret', logged.output)

