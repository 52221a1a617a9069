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

"""Tests of cinder_ma.manager.rpcapi: routing by volume host."""

import datetime
import threading

import fixtures
import oslo_messaging as messaging
from oslo_serialization import jsonutils
from oslo_utils import timeutils

from cinder_ma import context
from cinder_ma.db import services as service_db
from cinder_ma import exception
from cinder_ma.manager import manager
from cinder_ma.manager import rpcapi
from cinder_ma import rpc
from tests import base
from tests import fixtures as cm_fixtures
from tests.unit.manager import fixtures as mgr_fixtures


class HostPartsTestCase(base.TestCase):

    def test_server_for(self):
        self.assertEqual('node1', rpcapi.server_for('node1@file#pool'))
        self.assertEqual('node1', rpcapi.server_for('node1@file'))
        self.assertEqual('node1', rpcapi.server_for('node1'))
        self.assertRaises(ValueError, rpcapi.server_for, None)

    def test_backend_of(self):
        self.assertEqual('file', rpcapi.backend_of('node1@file#pool'))
        self.assertEqual('file', rpcapi.backend_of('node1@file'))
        self.assertIsNone(rpcapi.backend_of('node1'))
        self.assertIsNone(rpcapi.backend_of(None))


class RecordingManager:
    """Stands for the Manager of one node."""

    target = messaging.Target(version=rpcapi.ManagerAPI.RPC_API_VERSION)

    def __init__(self):
        self.calls = []
        self.event = threading.Event()

    def create_volume(self, ctxt, volume_id):
        self.calls.append(('create_volume', ctxt.project_id, volume_id))
        self.event.set()

    def delete_volume(self, ctxt, volume_id):
        self.calls.append(('delete_volume', ctxt.project_id, volume_id))
        self.event.set()

    def initialize_connection(self, ctxt, volume_id, connector, attach_mode,
                              **kwargs):
        self.calls.append(('initialize_connection', volume_id, connector,
                           attach_mode) + tuple(sorted(kwargs.items())))
        return {'driver_volume_type': 'file',
                'data': {'path': '/v/' + volume_id,
                         'access_mode': attach_mode}}

    def terminate_connection(self, ctxt, volume_id, connector, **kwargs):
        self.calls.append(('terminate_connection', volume_id, connector) +
                          tuple(sorted(kwargs.items())))

    def promote_attachment(self, ctxt, attachment_id, revoke_ids):
        self.calls.append(('promote_attachment', attachment_id,
                           revoke_ids))

    def attach_volume(self, ctxt, attachment_id):
        self.calls.append(('attach_volume', attachment_id))
        self.event.set()

    def extend_volume(self, ctxt, volume_id, new_size):
        self.calls.append(('extend_volume', volume_id, new_size))
        self.event.set()

    def detach_volume(self, ctxt, attachment_id):
        self.calls.append(('detach_volume', attachment_id,
                           threading.current_thread().name))
        self.event.set()

    def resize_attachment(self, ctxt, attachment_id, new_size):
        self.calls.append(('resize_attachment', attachment_id, new_size))


class ManagerAPITestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))
        self.node1 = RecordingManager()
        self.node2 = RecordingManager()
        rpc.register_local_endpoint('node1', self.node1)
        rpc.register_local_endpoint('node2', self.node2)
        self.ctxt = context.RequestContext(user_id='u', project_id='p')
        self.api = rpcapi.ManagerAPI()

    def test_version_shared_with_manager(self):
        self.assertEqual('1.9', rpcapi.ManagerAPI.RPC_API_VERSION)
        self.assertEqual(rpcapi.ManagerAPI.RPC_API_VERSION,
                         manager.Manager.target.version)
        self.assertEqual('cinder-ma-manager', rpcapi.ManagerAPI.TOPIC)

    def test_create_volume_goes_to_the_node_of_the_host(self):
        self.api.create_volume(self.ctxt, 'vol-1', 'node2@file#file')
        self.assertTrue(self.node2.event.wait(10))
        self.assertEqual([('create_volume', 'p', 'vol-1')], self.node2.calls)
        self.assertEqual([], self.node1.calls)

    def test_delete_volume_goes_to_the_node_of_the_host(self):
        self.api.delete_volume(self.ctxt, 'vol-2', 'node1@other#x')
        self.assertTrue(self.node1.event.wait(10))
        self.assertEqual([('delete_volume', 'p', 'vol-2')], self.node1.calls)
        self.assertEqual([], self.node2.calls)

    def test_extend_volume_goes_to_the_node_of_the_host(self):
        self.api.extend_volume(self.ctxt, 'vol-3', 'node2@file#file', 4)
        self.assertTrue(self.node2.event.wait(10))
        self.assertEqual([('extend_volume', 'vol-3', 4)], self.node2.calls)

    def test_initialize_connection_is_a_call_to_the_backend(self):
        connector = {'host': 'compute1', 'initiator': None}
        info = self.api.initialize_connection(
            self.ctxt, 'vol-1', 'node2@file#file', connector, 'ro')
        self.assertEqual({'driver_volume_type': 'file',
                          'data': {'path': '/v/vol-1', 'access_mode': 'ro'}},
                         info)
        self.assertEqual([('initialize_connection', 'vol-1', connector,
                           'ro')], self.node2.calls)
        self.assertIsNone(self.api.terminate_connection(
            self.ctxt, 'vol-1', 'node2@file#file', connector))
        self.assertEqual(('terminate_connection', 'vol-1', connector),
                         self.node2.calls[-1])
        self.assertEqual([], self.node1.calls)

    def test_attach_and_detach_are_casts_to_the_instance_host(self):
        self.api.attach_volume(self.ctxt, 'att-1', 'node1')
        self.assertTrue(self.node1.event.wait(10))
        self.assertEqual([('attach_volume', 'att-1')], self.node1.calls)
        self.node1.event.clear()
        self.api.detach_volume(self.ctxt, 'att-1', 'node1')
        self.assertTrue(self.node1.event.wait(10))
        name, att, thread = self.node1.calls[-1]
        self.assertEqual(('detach_volume', 'att-1'), (name, att))
        self.assertNotEqual(threading.current_thread().name, thread)
        self.assertEqual([], self.node2.calls)

    def test_waited_detach_is_a_call(self):
        self.api.detach_volume(self.ctxt, 'att-2', 'node2', wait=True)
        self.assertEqual(('detach_volume', 'att-2',
                          threading.current_thread().name),
                         self.node2.calls[-1])

    def test_messages_carry_version_1_1(self):
        old = RecordingManager()
        old.target = messaging.Target(version='1.0')
        rpc.register_local_endpoint('old', old)
        self.api.create_volume(self.ctxt, 'vol-9', 'old@file#file')
        self.assertTrue(old.event.wait(10))
        self.assertRaises(messaging.UnsupportedVersion,
                          self.api.initialize_connection, self.ctxt,
                          'vol-9', 'old@file#file', {'host': 'h'}, 'rw')
        # A cast is refused where it is dispatched, as by a server over
        # RabbitMQ: logged, never run.
        logger = self.useFixture(
            fixtures.FakeLogger(name='cinder_ma.rpc_local'))
        self.api.attach_volume(self.ctxt, 'att-9', 'old')
        self.assertTrue(rpc.wait_for_casts(10))
        self.assertIn('UnsupportedVersion: Endpoint does not support RPC '
                      'version 1.1. Attempted method: attach_volume',
                      logger.output)
        self.assertEqual(['create_volume'], [c[0] for c in old.calls])

    def test_call_to_a_manager_that_is_down_is_refused_promptly(self):
        row = service_db.service_create(self.admin_context, {
            'host': 'node2@file', 'binary': 'cinder-ma-volume',
            'topic': rpcapi.ManagerAPI.TOPIC})
        service_db.service_update(self.admin_context, row.id, {
            'heartbeat_at': timeutils.utcnow() - datetime.timedelta(
                hours=1)})
        exc = self.assertRaises(
            exception.ManagerUnavailable, self.api.initialize_connection,
            self.ctxt, 'vol-1', 'node2@file#file', {'host': 'h'}, 'rw')
        self.assertIn('node2@file', str(exc))
        self.assertEqual([], self.node2.calls)

    def _volume_service(self, age):
        row = service_db.service_create(self.admin_context, {
            'host': 'node2@file', 'binary': 'cinder-ma-volume',
            'topic': rpcapi.ManagerAPI.TOPIC})
        service_db.service_update(self.admin_context, row.id, {
            'heartbeat_at': timeutils.utcnow() - age})
        return row

    def test_check_up_reads_a_heartbeat_once_while_it_is_recent(self):
        self._volume_service(datetime.timedelta(seconds=10))
        counter = self.useFixture(cm_fixtures.TransactionCounter())
        for _ in range(3):
            rpcapi.check_up(self.ctxt, 'node2@file', 'cinder-ma-volume')
        self.assertEqual(1, counter.count)

    def test_check_up_reads_again_once_the_heartbeat_seen_is_old(self):
        row = self._volume_service(datetime.timedelta(seconds=10))
        rpcapi.check_up(self.ctxt, 'node2@file', 'cinder-ma-volume')
        down_time = datetime.timedelta(
            seconds=self.conf.manager.service_down_time)
        # The manager stops: its row keeps the heartbeat seen above, made
        # 10 s ago. It is up for service_down_time after that heartbeat,
        # then down.
        now = timeutils.utcnow()
        later = self.useFixture(fixtures.MockPatch(
            'oslo_utils.timeutils.utcnow',
            return_value=now + down_time - datetime.timedelta(seconds=11)))
        rpcapi.check_up(self.ctxt, 'node2@file', 'cinder-ma-volume')
        later.mock.return_value = now + down_time - datetime.timedelta(
            seconds=9)
        exc = self.assertRaises(exception.ManagerUnavailable,
                                rpcapi.check_up, self.ctxt, 'node2@file',
                                'cinder-ma-volume')
        self.assertIn('node2@file', str(exc))
        # It reports again: up at once.
        service_db.service_update(self.admin_context, row.id, {
            'heartbeat_at': later.mock.return_value})
        rpcapi.check_up(self.ctxt, 'node2@file', 'cinder-ma-volume')

    def test_unknown_node(self):
        self.assertRaises(exception.ManagerUnavailable,
                          self.api.create_volume, self.ctxt, 'vol-3',
                          'node3@file#file')

    def test_client_created_on_first_use(self):
        rpc.cleanup()
        api = rpcapi.ManagerAPI()   # no RPC needed to build it
        rpc.init(self.conf)
        self.assertTrue(api.client.can_send_version('1.1'))
        self.assertEqual('1.9', api.client.version_cap)


class OldManager:
    """A manager of RPC API 1.4: it cannot resize disks, and its
    connections take no attachment id."""

    target = messaging.Target(version='1.4')

    def __init__(self):
        self.calls = []

    def list_connections(self, ctxt):
        self.calls.append('list_connections')
        return {}

    def initialize_connection(self, ctxt, volume_id, connector,
                              attach_mode):
        self.calls.append(('initialize_connection', volume_id, attach_mode))
        return {'driver_volume_type': 'file', 'data': {}}

    def terminate_connection(self, ctxt, volume_id, connector):
        self.calls.append(('terminate_connection', volume_id))


class ResizeAttachmentTestCase(base.DBTestCase):
    """1.6: resize_attachment, a call to the attachment's host, refused
    without sending when that host or the pin is older."""

    def setUp(self):
        super().setUp()
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))
        self.addCleanup(rpcapi.reset_version_cap)
        rpcapi.reset_version_cap()
        self.node = RecordingManager()
        self.old = OldManager()
        rpc.register_local_endpoint('compute1', self.node)
        rpc.register_local_endpoint('old', self.old)
        self.ctxt = context.RequestContext(user_id='u', project_id='p')

    def _manager_row(self, host, version, up=True):
        caps = {'hypervisor': {'driver': 'fake'}}
        if version:
            caps[rpcapi.VERSION_KEY] = version
        heartbeat = timeutils.utcnow()
        if not up:
            heartbeat -= datetime.timedelta(hours=1)
        service_db.service_create(self.admin_context, {
            'host': host, 'binary': 'cinder-ma-manager',
            'topic': rpcapi.ManagerAPI.TOPIC, 'heartbeat_at': heartbeat,
            'capabilities': jsonutils.dumps(caps)})

    def test_call_to_the_host_of_the_attachment(self):
        self._manager_row('compute1', '1.6')
        rpcapi.ManagerAPI().resize_attachment(self.ctxt, 'a-1', 'compute1',
                                              3)
        self.assertEqual([('resize_attachment', 'a-1', 3)],
                         self.node.calls)

    def test_host_reporting_an_older_version_is_not_sent_anything(self):
        rpc.register_local_endpoint('older', self.old)
        # 'older' reports no version: 1.2.
        for host, version in (('old', '1.4'), ('older', None)):
            self._manager_row(host, version)
            exc = self.assertRaises(
                exception.ServiceTooOld,
                rpcapi.ManagerAPI().resize_attachment, self.ctxt, 'a-1',
                host, 3)
            self.assertIn('its manager serves RPC API %s and this needs '
                          '1.6' % (version or '1.2'), str(exc))
            self.assertIn('resize the disk of attachment a-1 on %s' % host,
                          str(exc))
        self.assertEqual([], self.old.calls)

    def test_unregistered_old_manager_refuses_the_version(self):
        # No services row to read: the message goes, and the old manager
        # refuses its version (as oslo.messaging's dispatcher does).
        self.assertRaises(messaging.UnsupportedVersion,
                          rpcapi.ManagerAPI().resize_attachment, self.ctxt,
                          'a-1', 'old', 3)

    def test_pinned_below_1_6(self):
        self._manager_row('compute1', '1.6')
        for pin in ('1.5', '1.4'):
            self.flags(group='upgrade_levels', manager=pin)
            rpc.cleanup()
            rpc.init(self.conf)
            rpc.register_local_endpoint('compute1', self.node)
            api = rpcapi.ManagerAPI()
            self.assertFalse(api.can_send_version('1.6'))
            exc = self.assertRaises(exception.ServiceTooOld,
                                    api.resize_attachment, self.ctxt, 'a-1',
                                    'compute1', 3)
            self.assertIn('pins %s' % pin, str(exc))
        self.assertEqual([], self.node.calls)

    def test_auto_pin_below_1_6(self):
        self.flags(group='upgrade_levels', manager='auto')
        self._manager_row('compute1', '1.6')
        self._manager_row('old', '1.5')
        api = rpcapi.ManagerAPI()
        self.assertEqual('1.5', api.client.version_cap)
        self.assertRaises(exception.ServiceTooOld, api.resize_attachment,
                          self.ctxt, 'a-1', 'compute1', 3)
        self.assertEqual([], self.node.calls)

    def test_host_down_is_not_called(self):
        self._manager_row('compute1', '1.6', up=False)
        exc = self.assertRaises(exception.ManagerUnavailable,
                                rpcapi.ManagerAPI().resize_attachment,
                                self.ctxt, 'a-1', 'compute1', 3)
        self.assertIn('it is down', str(exc))
        self.assertEqual([], self.node.calls)

    def test_reported_version(self):
        self.assertIsNone(rpcapi.reported_version(self.admin_context,
                                                  'compute1'))
        self._manager_row('compute1', '1.6')
        self._manager_row('old', None)
        self.assertEqual('1.6', rpcapi.reported_version(self.admin_context,
                                                        'compute1'))
        self.assertEqual('1.2', rpcapi.reported_version(self.admin_context,
                                                        'old'))


class AttachmentConnectionsTestCase(base.DBTestCase):
    """1.5: connections name their attachment, unless pinned below."""

    def setUp(self):
        super().setUp()
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))
        self.addCleanup(rpcapi.reset_version_cap)
        rpcapi.reset_version_cap()
        self.node = RecordingManager()
        self.old = OldManager()
        rpc.register_local_endpoint('node1', self.node)
        rpc.register_local_endpoint('old', self.old)
        self.ctxt = context.RequestContext(user_id='u', project_id='p')

    def test_attachment_id_is_sent(self):
        api = rpcapi.ManagerAPI()
        api.initialize_connection(self.ctxt, 'vol-1', 'node1@nbd#nbd',
                                  {'host': 'h'}, 'ro', attachment_id='a-1')
        api.terminate_connection(self.ctxt, 'vol-1', 'node1@nbd#nbd',
                                 {'host': 'h'}, attachment_id='a-1')
        api.promote_attachment(self.ctxt, 'a-1', 'node1', ['a-0'])
        self.assertEqual(
            [('initialize_connection', 'vol-1', {'host': 'h'}, 'ro',
              ('attachment_id', 'a-1')),
             ('terminate_connection', 'vol-1', {'host': 'h'},
              ('attachment_id', 'a-1')),
             ('promote_attachment', 'a-1', ['a-0'])], self.node.calls)

    def test_a_1_4_manager_is_served_as_before_when_pinned(self):
        self.flags(group='upgrade_levels', manager='1.4')
        api = rpcapi.ManagerAPI()
        self.assertFalse(api.can_send_version('1.5'))
        # Connections of the host, as before 1.5.
        info = api.initialize_connection(self.ctxt, 'vol-1', 'old@f#f',
                                         {'host': 'h'}, 'rw',
                                         attachment_id='a-1')
        self.assertEqual('file', info['driver_volume_type'])
        self.assertNotIn(rpcapi.SCOPE_KEY, info)
        api.terminate_connection(self.ctxt, 'vol-1', 'old@f#f',
                                 {'host': 'h'})
        self.assertEqual([('initialize_connection', 'vol-1', 'rw'),
                          ('terminate_connection', 'vol-1')],
                         self.old.calls)
        # What needs 1.5 is refused with a message, never sent.
        exc = self.assertRaises(exception.ServiceTooOld,
                                api.terminate_connection, self.ctxt,
                                'vol-1', 'old@f#f', {'host': 'h'},
                                attachment_id='a-1')
        self.assertIn('pins 1.4', str(exc))
        self.assertRaises(exception.ServiceTooOld, api.promote_attachment,
                          self.ctxt, 'a-1', 'old')
        self.assertEqual(2, len(self.old.calls))

    def test_unpinned_1_5_message_to_a_1_4_manager_is_refused(self):
        self.assertRaises(messaging.UnsupportedVersion,
                          rpcapi.ManagerAPI().initialize_connection,
                          self.ctxt, 'vol-1', 'old@f#f', {'host': 'h'},
                          'rw', attachment_id='a-1')

    def test_require_reported(self):
        for host, version in (('node1', '1.5'), ('old', '1.4'),
                              ('older', None)):
            caps = {rpcapi.VERSION_KEY: version} if version else {}
            service_db.service_create(self.admin_context, {
                'host': host, 'binary': 'cinder-ma-manager',
                'topic': rpcapi.ManagerAPI.TOPIC,
                'capabilities': jsonutils.dumps(caps)})
        rpcapi.require_reported(self.admin_context, 'node1', '1.5', 'x')
        # A node without a registered manager is left to the call.
        rpcapi.require_reported(self.admin_context, 'nobody', '1.5', 'x')
        for host, reported in (('old', '1.4'), ('older', '1.2')):
            exc = self.assertRaises(exception.ServiceTooOld,
                                    rpcapi.require_reported,
                                    self.admin_context, host, '1.5',
                                    'fence it')
            self.assertEqual('Cannot fence it on %s: its manager serves '
                             'RPC API %s and this needs 1.5; upgrade it.'
                             % (host, reported), str(exc))

    def test_scope(self):
        self.assertTrue(rpcapi.is_attachment_scoped(
            {rpcapi.SCOPE_KEY: rpcapi.ATTACHMENT_SCOPE, 'data': {}}))
        self.assertFalse(rpcapi.is_attachment_scoped({'data': {}}))
        self.assertFalse(rpcapi.is_attachment_scoped(None))


class VersionPinTestCase(base.DBTestCase):
    """[upgrade_levels] manager: pinned, auto, unset."""

    def setUp(self):
        super().setUp()
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))
        self.node = RecordingManager()
        self.node.list_connections = lambda ctxt: {'host': 'node1'}
        rpc.register_local_endpoint('node1', self.node)
        self.addCleanup(rpcapi.reset_version_cap)
        rpcapi.reset_version_cap()

    def _manager_row(self, host, version=None):
        from oslo_utils import timeutils

        caps = {'hypervisor': None}
        if version:
            caps[rpcapi.VERSION_KEY] = version
        service_db.service_create(self.admin_context, {
            'host': host, 'binary': 'cinder-ma-manager',
            'topic': rpcapi.ManagerAPI.TOPIC,
            'heartbeat_at': timeutils.utcnow(),
            'capabilities': jsonutils.dumps(caps)})

    def test_unset_sends_the_newest(self):
        self.assertEqual(rpcapi.ManagerAPI.RPC_API_VERSION,
                         rpcapi.version_cap(self.conf))
        self.assertEqual({'host': 'node1'}, rpcapi.ManagerAPI()
                         .list_connections(self.admin_context, 'node1'))

    def test_pinned_below_refuses_clearly(self):
        self.flags(group='upgrade_levels', manager='1.2')
        api = rpcapi.ManagerAPI()
        self.assertFalse(api.can_send_version('1.4'))
        self.assertFalse(api.can_send_version('1.3'))
        self.assertTrue(api.can_send_version('1.2'))
        exc = self.assertRaises(exception.ServiceTooOld,
                                api.list_connections, self.admin_context,
                                'node1')
        self.assertIn('pins 1.2', str(exc))
        self.assertEqual(409, exc.code)

    def test_auto_takes_the_lowest_reported(self):
        self.flags(group='upgrade_levels', manager='auto')
        self._manager_row('node1', '1.3')
        self._manager_row('node2')  # an older manager reports nothing
        self.assertEqual('1.2', rpcapi.version_cap(self.conf))
        # Read once per process.
        self._manager_row('node3', '1.1')
        self.assertEqual('1.2', rpcapi.version_cap(self.conf))
        rpcapi.reset_version_cap()
        self.assertEqual('1.1', rpcapi.version_cap(self.conf))

    def test_auto_without_managers_is_the_newest(self):
        self.flags(group='upgrade_levels', manager='auto')
        self.assertEqual(rpcapi.ManagerAPI.RPC_API_VERSION,
                         rpcapi.version_cap(self.conf))

    def test_bad_pin_is_refused_by_the_option(self):
        self.assertRaises(ValueError, self.flags, group='upgrade_levels',
                          manager='newest')
