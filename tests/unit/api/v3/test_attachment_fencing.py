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

"""Tests of the extension cinder-ma-fencing through the API
(cinder_ma/api/v3/attachments.py, cinder_ma/volume/fencing.py): fence,
reconnect with a new connector, promote a standby.

Unlike the other API unit tests, these run the real managers of a
backend and a compute host over the in-process RPC transport (the
harness of the manager tests), with a recording storage driver that
makes connections per attachment: what fencing and promotion do at the
target is the point. The same with real nbdkit exports and real NBD
clients is in tests/functional/volume/test_fencing.py.
"""

import uuid

import fixtures
from oslo_serialization import jsonutils
import webtest

from cinder_ma.api import app
from cinder_ma.api import microversions as mv
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import messages as message_db
from cinder_ma.db import services as service_db
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma.manager import rpcapi
from tests.unit.api import base
from tests.unit.manager import fixtures as mgr_fixtures

FENCE = 'cinder-ma-fencing:fence'
PROMOTE = 'cinder-ma-fencing:promote'
FENCED = 'cinder-ma-fencing:fenced'
GENERATION = 'cinder-ma-fencing:generation'
EXTENSIONS = {'Cinder-MA-Extensions': 'cinder-ma-fencing'}


def _headers(version=mv.MAX_VERSION, **kw):
    return base.headers(version=version, **kw)


def admin(version=mv.MAX_VERSION):
    return _headers(version, user='admin-user')


def member(version=mv.MAX_VERSION):
    return _headers(version, roles=['member', 'reader'])


def service(version=mv.MAX_VERSION):
    return _headers(version, user='nova', roles=['member', 'reader'],
                    service_roles=['service'])


def connector(host):
    return {'host': host, 'initiator': 'iqn.2026-11.test:%s' % host}


class FencingTestCase(mgr_fixtures.AttachmentTestCase):
    """The API, then the backend's manager (and the compute host's for
    attachments made through a manager), for real."""

    DRIVER = mgr_fixtures.PerAttachmentFileDriver

    def setUp(self):
        super().setUp()
        self.flags(auth_strategy='noauth')
        self.app = webtest.TestApp(app.setup_app(self.conf))
        self.addCleanup(rpcapi.reset_version_cap)
        self.one_writer = type_db.volume_type_create(
            self.admin_context, {'name': 'one-writer'},
            extra_specs={'multiattach': '<is> True',
                         'multiattach:writers': 'one'})

    # -- helpers -----------------------------------------------------------

    def url(self, path):
        return '/v3/%s/%s' % (base.PROJECT, path)

    def one_writer_volume(self):
        volume = self.volume(multiattach=True)
        volume_db.volume_update(self.admin_context, volume.id,
                                {'volume_type_id': self.one_writer.id})
        return volume_db.volume_get(self.admin_context, volume.id)

    def connected(self, volume, mode, host='node-a', complete=True):
        """An attachment an external consumer connected (service)."""
        made = self.app.post_json(
            self.url('attachments'),
            {'attachment': {'volume_uuid': volume.id,
                            'instance_uuid': str(uuid.uuid4()),
                            'connector': connector(host), 'mode': mode}},
            headers=service()).json['attachment']
        if complete:
            self.action(made['id'], {'os-complete': None}, service(),
                        status=204)
        return made

    def action(self, attachment_id, body, headers=None, status=200):
        return self.app.post_json(
            self.url('attachments/%s/action' % attachment_id), body,
            headers=headers or admin(), status=status)

    def fence(self, attachment_id, headers=None, status=200):
        return self.action(attachment_id, {FENCE: {}}, headers, status)

    def promote(self, attachment_id, headers=None, status=200):
        return self.action(attachment_id, {PROMOTE: {}}, headers, status)

    def show(self, attachment_id, headers=None):
        return self.app.get(
            self.url('attachments/%s' % attachment_id),
            headers=dict(headers or admin(), **EXTENSIONS)).json[
                'attachment']

    def driver_calls(self):
        """The initialize/terminate calls of the backend's driver, in
        order, as (method, attachment id, mode)."""
        return [(call[0], call[4] if call[0] == 'initialize_connection'
                 else call[3], call[3] if call[0] ==
                 'initialize_connection' else None)
                for call in self.driver.calls
                if call[0] in ('initialize_connection',
                               'terminate_connection')]

    # -- fence -------------------------------------------------------------

    def test_fence_revokes_and_reconnect_gives_new_credentials(self):
        volume = self.volume(multiattach=True)
        made = self.connected(volume, 'rw')
        other = self.connected(volume, 'rw')   # same host, its own
        self.driver.calls.clear()
        body = self.fence(made['id']).json['attachment']
        self.assertEqual((True, 1, 'attached'),
                         (body[FENCED], body[GENERATION], body['status']))
        # Its connection alone was ended at the target.
        self.assertEqual([('terminate_connection', made['id'], None)],
                         self.driver_calls())
        self.assertEqual({(volume.id, other['id'])},
                         self.driver.connections)
        self.assertIn(('volume.attachment.fence'),
                      [e for e, _p in self.notifications()])
        # Its owner is told (a message of cinder_ma's own event).
        (message,) = message_db.message_get_all(self.admin_context)
        self.assertEqual(('VOLUME_VOLUME_901_901', volume.id, 'WARNING'),
                         (message.event_id, message.resource_uuid,
                          message.message_level))
        # Shown when asked for, never otherwise.
        self.assertTrue(self.show(made['id'])[FENCED])
        plain = self.app.get(self.url('attachments/%s' % made['id']),
                             headers=admin()).json['attachment']
        self.assertNotIn(FENCED, plain)
        # Idempotent: fencing again revokes again.
        body = self.fence(made['id'], headers=service()).json['attachment']
        self.assertEqual((True, 1), (body[FENCED], body[GENERATION]))
        self.assertEqual(2, len(self.driver.called('terminate_connection')))
        # The consumer connects it again: a new connection, the next
        # generation, 'attaching' until it completes it.
        updated = self.app.put_json(
            self.url('attachments/%s' % made['id']),
            {'attachment': {'connector': connector('node-b')}},
            headers=dict(service(), **EXTENSIONS)).json['attachment']
        self.assertEqual(('attaching', False, 2),
                         (updated['status'], updated[FENCED],
                          updated[GENERATION]))
        self.assertEqual((volume.id, 'node-b', 'rw', made['id']),
                         self.driver.called('initialize_connection')[-1])
        self.action(made['id'], {'os-complete': None}, service(),
                    status=204)
        shown = self.show(made['id'])
        self.assertEqual(('attached', False, 2),
                         (shown['status'], shown[FENCED],
                          shown[GENERATION]))
        self.assertEqual('node-b', self.get(made['id']).attached_host)

    def test_lists_show_the_fields_when_asked(self):
        volume = self.volume(multiattach=True)
        made = self.connected(volume, 'rw')
        self.fence(made['id'])
        url = self.url('attachments/detail?volume_id=%s' % volume.id)
        (asked,) = self.app.get(url, headers=dict(
            member(), **EXTENSIONS)).json['attachments']
        self.assertEqual((True, 1), (asked[FENCED], asked[GENERATION]))
        (plain,) = self.app.get(url, headers=member()).json['attachments']
        self.assertNotIn(FENCED, plain)
        # Summaries never carry them.
        (summary,) = self.app.get(
            self.url('attachments?volume_id=%s' % volume.id),
            headers=dict(member(), **EXTENSIONS)).json['attachments']
        self.assertNotIn(FENCED, summary)
        # Below the extension's microversion, not even when asked.
        shown = self.app.get(
            self.url('attachments/%s' % made['id']),
            headers=dict(member('3.43'), **EXTENSIONS)).json['attachment']
        self.assertNotIn(FENCED, shown)

    def test_fence_is_for_administrators_and_services(self):
        volume = self.volume(multiattach=True)
        made = self.connected(volume, 'rw')
        self.fence(made['id'], headers=member(), status=403)
        other = base.headers(project=base.OTHER_PROJECT, user='o',
                             roles=['member', 'reader'],
                             service_roles=['service'],
                             version=mv.MAX_VERSION)
        self.app.post_json(
            '/v3/%s/attachments/%s/action' % (base.OTHER_PROJECT,
                                              made['id']),
            {FENCE: {}}, headers=other, status=404)
        self.assertIsNone(self.get(made['id']).fenced_at)

    def test_fence_refusals(self):
        volume = self.volume(multiattach=True)
        reserved = self.app.post_json(
            self.url('attachments'),
            {'attachment': {'volume_uuid': volume.id,
                            'instance_uuid': str(uuid.uuid4())}},
            headers=service()).json['attachment']
        response = self.fence(reserved['id'], status=409)
        self.assertIn('holds no connection',
                      response.json['conflictingRequest']['message'])
        made = self.connected(volume, 'rw')
        for body in ({FENCE: {'force': True}}, {FENCE: 'now'},
                     {FENCE: []}, {FENCE: {}, 'os-complete': None}):
            self.action(made['id'], body, status=400)
        # Below the extension's microversion: no such action there.
        self.action(made['id'], {FENCE: {}}, admin('3.43'), status=404)
        self.fence('not-a-uuid', status=404)
        self.fence(str(uuid.uuid4()), status=404)
        self.assertIsNone(self.get(made['id']).fenced_at)

    def test_a_connection_of_the_host_cannot_be_fenced_alone(self):
        # Connected by a manager older than 1.5: the host's (its
        # connection info does not say it is the attachment's own).
        volume = self.volume(multiattach=True)
        made = self.connected(volume, 'rw')
        info = dict(self.get(made['id']).connection_info)
        info.pop(rpcapi.SCOPE_KEY)
        attachment_db.attachment_update(self.admin_context, made['id'],
                                        {'connection_info': info})
        response = self.fence(made['id'], status=409)
        self.assertIn('not its own',
                      response.json['conflictingRequest']['message'])
        self.assertIsNone(self.get(made['id']).fenced_at)

    def test_pinned_below_1_8_nothing_is_fenced(self):
        volume = self.volume(multiattach=True)
        made = self.connected(volume, 'rw')
        self.flags(group='upgrade_levels', manager='1.7')
        rpcapi.reset_version_cap()
        response = self.fence(made['id'], status=409)
        self.assertIn('1.8', response.json['conflictingRequest']['message'])
        self.assertIsNone(self.get(made['id']).fenced_at)

    def test_a_storage_manager_older_than_1_8_is_not_asked(self):
        volume = self.volume(multiattach=True)
        made = self.connected(volume, 'rw')
        service_db.service_create(self.admin_context, {
            'host': 'testhost', 'binary': 'cinder-ma-manager',
            'topic': rpcapi.ManagerAPI.TOPIC,
            'capabilities': jsonutils.dumps({rpcapi.VERSION_KEY: '1.7'})})
        self.driver.calls.clear()
        response = self.fence(made['id'], status=409)
        self.assertIn('serves RPC API 1.7 and this needs 1.8',
                      response.json['conflictingRequest']['message'])
        self.assertIsNone(self.get(made['id']).fenced_at)
        self.assertEqual([], self.driver_calls())

    def test_revocation_failure_keeps_it_fenced_and_fencing_again_ends_it(
            self):
        volume = self.volume(multiattach=True)
        made = self.connected(volume, 'rw')
        self.driver.fail('terminate_connection')
        logged = self.expect_logged_errors()
        self.fence(made['id'], status=500)
        self.assertIn('injected failure of terminate_connection',
                      logged.output)
        fenced = self.get(made['id'])
        self.assertIsNotNone(fenced.fenced_at)
        self.assertIn('Fencing failed', fenced.error_reason)
        self.assertIn((volume.id, made['id']), self.driver.connections)
        self.driver.failures.clear()
        self.fence(made['id'])
        self.assertNotIn((volume.id, made['id']), self.driver.connections)

    def test_deleting_a_fenced_attachment(self):
        volume = self.volume(multiattach=True)
        made = self.connected(volume, 'rw')
        self.fence(made['id'])
        self.app.delete(self.url('attachments/%s' % made['id']),
                        headers=service())
        self.assertIsNone(self.get(made['id']))
        self.assertEqual('available', self.status(volume))

    # -- promote -----------------------------------------------------------

    def test_promote_a_consumers_standby(self):
        volume = self.one_writer_volume()
        writer = self.connected(volume, 'rw', host='node-a')
        standby = self.connected(volume, 'ro', host='node-b')
        self.driver.calls.clear()
        body = self.promote(standby['id'],
                            headers=service()).json['attachment']
        self.assertEqual(('rw', 'rw', False, 2),
                         (body['attach_mode'],
                          body['connection_info']['access_mode'],
                          body[FENCED], body[GENERATION]))
        # The writer's access ended before the standby's read-write
        # connection existed.
        self.assertEqual([('terminate_connection', writer['id'], None),
                          ('initialize_connection', standby['id'], 'rw')],
                         self.driver_calls())
        self.assertEqual({(volume.id, standby['id']): 'rw'},
                         self.driver.modes)
        old = self.show(writer['id'])
        self.assertEqual(('ro', True, 1),
                         (old['attach_mode'], old[FENCED], old[GENERATION]))
        events = [e for e, _p in self.notifications()]
        for event in ('volume.attachment.fence',
                      'volume.attachment.promote.start',
                      'volume.attachment.promote.end'):
            self.assertIn(event, events)
        # The new writer holds the one-writer slot.
        response = self.app.post_json(
            self.url('attachments'),
            {'attachment': {'volume_uuid': volume.id,
                            'instance_uuid': str(uuid.uuid4()),
                            'mode': 'rw'}},
            headers=service(), status=409)
        self.assertIn(standby['id'],
                      response.json['conflictingRequest']['message'])
        # Promoting the writer again, or the fenced one, is refused.
        response = self.promote(standby['id'], status=409)
        self.assertIn('writer of volume',
                      response.json['conflictingRequest']['message'])
        response = self.promote(writer['id'], status=409)
        self.assertIn('fenced', response.json['conflictingRequest']
                      ['message'])
        # The old writer comes back as a standby: read-only, new
        # credentials.
        back = self.app.put_json(
            self.url('attachments/%s' % writer['id']),
            {'attachment': {'connector': connector('node-a')}},
            headers=dict(service(), **EXTENSIONS)).json['attachment']
        self.assertEqual(('ro', 'ro', False, 2),
                         (back['attach_mode'],
                          back['connection_info']['access_mode'],
                          back[FENCED], back[GENERATION]))

    def test_promote_over_a_fenced_writer(self):
        volume = self.one_writer_volume()
        writer = self.connected(volume, 'rw', host='node-a')
        standby = self.connected(volume, 'ro', host='node-b')
        self.fence(writer['id'])
        body = self.promote(standby['id']).json['attachment']
        self.assertEqual(('rw', False, 2), (body['attach_mode'],
                                            body[FENCED], body[GENERATION]))
        old = self.show(writer['id'])
        self.assertEqual(('ro', True, 1),
                         (old['attach_mode'], old[FENCED], old[GENERATION]))
        # One fence: one event and one message, those of the fence
        # action; the promotion demoted a writer fenced already.
        events = [e for e, _p in self.notifications()]
        self.assertEqual(1, events.count('volume.attachment.fence'))
        self.assertIn('volume.attachment.promote.end', events)
        self.assertEqual(1, len(message_db.message_get_all(
            self.admin_context)))

    def test_promote_without_a_writer(self):
        volume = self.one_writer_volume()
        standby = self.connected(volume, 'ro')
        body = self.promote(standby['id']).json['attachment']
        self.assertEqual(('rw', 2), (body['attach_mode'], body[GENERATION]))

    def test_promote_refusals(self):
        many = self.volume(multiattach=True)
        made = self.connected(many, 'ro')
        response = self.promote(made['id'], status=400)
        self.assertIn('no one-writer policy',
                      response.json['badRequest']['message'])
        self.promote(made['id'], headers=member(), status=403)
        volume = self.one_writer_volume()
        reserved = self.app.post_json(
            self.url('attachments'),
            {'attachment': {'volume_uuid': volume.id,
                            'instance_uuid': str(uuid.uuid4()),
                            'mode': 'ro'}},
            headers=service()).json['attachment']
        response = self.promote(reserved['id'], status=409)
        self.assertIn('only a connected',
                      response.json['conflictingRequest']['message'])
        writer = self.connected(volume, 'rw')
        response = self.promote(writer['id'], status=409)
        self.assertIn('writer of volume %s already' % volume.id,
                      response.json['conflictingRequest']['message'])
        self.action(writer['id'], {PROMOTE: {'to': 'rw'}}, status=400)
        self.assertEqual('rw', self.get(writer['id']).attach_mode)

    def test_failed_promotion_is_finished_by_promoting_again(self):
        volume = self.one_writer_volume()
        writer = self.connected(volume, 'rw', host='node-a')
        standby = self.connected(volume, 'ro', host='node-b')
        self.driver.fail('initialize_connection')
        logged = self.expect_logged_errors()
        self.promote(standby['id'], status=500)
        self.assertIn('injected failure of initialize_connection',
                      logged.output)
        # The decision stands; the target work did not finish.
        promoted = self.get(standby['id'])
        self.assertEqual(('rw', 2), (promoted.attach_mode,
                                     promoted.generation))
        self.assertIn('Promotion failed', promoted.error_reason)
        self.assertEqual('ro', promoted.connection_info['data']['access_mode'])
        self.assertIsNotNone(self.get(writer['id']).fenced_at)
        self.assertNotIn((volume.id, writer['id']), self.driver.connections)
        self.driver.failures.clear()
        body = self.promote(standby['id']).json['attachment']
        self.assertEqual(('rw', 'rw', 2),
                         (body['attach_mode'],
                          body['connection_info']['access_mode'],
                          body[GENERATION]))
        self.assertEqual('rw', self.driver.modes[(volume.id,
                                                  standby['id'])])

    def test_promote_through_the_manager_of_the_host(self):
        volume = self.one_writer_volume()
        writer = self.attach(volume, str(uuid.uuid4()), mode='rw')
        instance = str(uuid.uuid4())
        standby = self.attach(volume, instance, mode='ro')
        self.assertEqual('attached', standby.attach_status)
        self.driver.calls.clear()
        body = self.promote(standby.id).json['attachment']
        self.assertEqual(('rw', 2), (body['attach_mode'], body[GENERATION]))
        self.assertEqual([('terminate_connection', writer.id, None),
                          ('initialize_connection', standby.id, 'rw')],
                         self.driver_calls())
        # The instance kept its disk; the hypervisor switched it.
        self.assertEqual([], self.hypervisor.called('detach_volume'))
        (call,) = self.hypervisor.called('reconnect_volume')
        self.assertEqual((instance, standby.id, 'rw', True), call[:4])
        (record,) = self.hypervisor.list_attachments(instance)
        self.assertEqual('rw', record['mode'])
        self.assertTrue(self.show(writer.id)[FENCED])

    def test_promote_through_a_manager_older_than_1_5(self):
        volume = self.one_writer_volume()
        standby = self.attach(volume, str(uuid.uuid4()), mode='ro')
        row = service_db.service_get_by_host_and_binary(
            self.admin_context, self.COMPUTE, 'cinder-ma-manager')
        service_db.service_update(self.admin_context, row.id, {
            'capabilities': {rpcapi.VERSION_KEY: '1.4', 'hypervisor': {
                'driver': 'x', 'supports_reconnect': True}}})
        response = self.promote(standby.id, status=409)
        self.assertIn('promote attachment %s on %s' % (standby.id,
                                                       self.COMPUTE),
                      response.json['conflictingRequest']['message'])
        self.assertEqual('ro', self.get(standby.id).attach_mode)

    def test_promote_through_a_manager_that_is_down(self):
        volume = self.one_writer_volume()
        self.attach(volume, str(uuid.uuid4()), mode='rw')
        standby = self.attach(volume, str(uuid.uuid4()), mode='ro')
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.db.services.service_is_up', return_value=False))
        self.promote(standby.id, status=503)
        self.assertEqual('ro', self.get(standby.id).attach_mode)

    def test_promote_through_a_host_that_cannot_reconnect(self):
        volume = self.one_writer_volume()
        standby = self.attach(volume, str(uuid.uuid4()), mode='ro')
        service_row = service_db.service_get_by_host_and_binary(
            self.admin_context, self.COMPUTE, 'cinder-ma-manager')
        service_db.service_update(self.admin_context, service_row.id, {
            'capabilities': {'hypervisor': {'driver': 'x',
                                            'supports_multiattach': True}}})
        response = self.promote(standby.id, status=409)
        self.assertIn('cannot switch a disk',
                      response.json['conflictingRequest']['message'])
        self.assertEqual(1, attachment_db.attachment_get(
            self.admin_context, standby.id).generation)
