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

"""Contract, success, revert and race tests of the disconnect flows,
which the API runs for consumers that connected their host themselves
(attachments API delete, os-detach, os-force_detach,
os-terminate_connection).

Set up as the connect flows' tests (test_connect_attachment.py).
"""

import threading

import fixtures

from cinder_ma.api.views import attachments as views
from cinder_ma import exception
from cinder_ma.manager.flows import disconnect_attachment
from cinder_ma.manager import locks
from cinder_ma.manager import rpcapi
from cinder_ma.manager.tasks import attachment as attachment_tasks
from cinder_ma.manager.tasks import connection as connection_tasks
from cinder_ma.volume import actions
from cinder_ma.volume import attachments
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_attach_volume

CONNECTOR = {'host': 'consumer1', 'initiator': 'iqn.2026-11.test:c1'}

DISCONNECT_CONTRACT = [
    (connection_tasks.LockAndTerminateOrDestroy,
     {'connection_lock', 'manager_api', 'context', 'volume_id',
      'volume_host', 'attachment_id', 'host', 'connector'},
     {'connection_info', 'record', 'claim', 'volume_record'},
     {'destroyed'}),
    (attachment_tasks.DestroyAttachment,
     {'context', 'attachment_id'}, {'destroyed', 'claim', 'record'}, set()),
]

TERMINATE_CONTRACT = [
    (connection_tasks.LockAndTerminateConnection,
     {'connection_lock', 'manager_api', 'context', 'volume_id',
      'volume_host', 'attachment_id', 'host', 'connector'},
     {'connection_info'}, set()),
    (attachment_tasks.ForgetConnection,
     {'context', 'attachment_id'}, set(), set())]


class DisconnectFlowContractTestCase(base.TestCase):

    def test_contracts(self):
        flow = disconnect_attachment.get_flow()
        self.assertEqual('disconnect_attachment', flow.name)
        self.assertEqual(DISCONNECT_CONTRACT,
                         test_attach_volume.contract_of(flow))
        flow = disconnect_attachment.get_terminate_flow()
        self.assertEqual('terminate_attachment_connection', flow.name)
        self.assertEqual(TERMINATE_CONTRACT,
                         test_attach_volume.contract_of(flow))

    def test_sentinels(self):
        # Carried by the first task, whose revert runs it last.
        for flow, reconciled in (
                (disconnect_attachment.get_flow(), False),
                (disconnect_attachment.get_flow(reconciled=True), True),
                (disconnect_attachment.get_terminate_flow(), False)):
            sentinel = list(flow)[0].sentinel
            self.assertIsInstance(
                sentinel, attachment_tasks.AttachmentToErrorDetachingOnRevert)
            self.assertEqual(reconciled, sentinel.reconciled)

    def test_lock_guards_the_count_and_the_teardown(self):
        # Held to the end of the run (released by whoever runs the flow).
        for flow, first, last in (
                (disconnect_attachment.get_flow(),
                 'LockAndTerminateOrDestroy', 'DestroyAttachment'),
                (disconnect_attachment.get_terminate_flow(),
                 'LockAndTerminateConnection', 'ForgetConnection')):
            names = [type(a).__name__ for a in flow] + [
                'ReleaseConnectionLock']
            guarded = names[names.index(first):
                            names.index('ReleaseConnectionLock')]
            self.assertEqual([first, last], guarded)


class _Base(mgr_fixtures.AttachmentTestCase):

    def connected(self, volume, instance='i1', host='consumer1'):
        att = attachments.create_attachment(
            self.service_context, volume.id, instance,
            connector=dict(CONNECTOR, host=host))
        return attachments.complete_attachment(self.service_context,
                                               att.id)

    def delete(self, attachment):
        attachments.delete_attachment(self.service_context, attachment.id)


class DisconnectFlowTestCase(_Base):

    def setUp(self):
        super().setUp()
        self.injector = self.useFixture(mgr_fixtures.FlowInjector(
            disconnect_attachment, test_attach_volume.FailAfter))

    def test_delete(self):
        volume = self.volume()
        att = self.connected(volume)
        self.delete(att)
        self.assertIsNone(self.get(att.id))
        self.assertEqual([(volume.id, 'consumer1')],
                         self.driver.called('terminate_connection'))
        self.assertEqual(set(), self.driver.connections)
        self.assertEqual('available', self.status(volume))

    def test_failure_at_every_step_then_delete_again(self):
        for index in list(range(len(DISCONNECT_CONTRACT))) + [None]:
            volume = self.volume()
            att = self.connected(volume)
            self.injector.fail_at(index)
            failed = self.injector.failed
            self.assertRaises(exception.DriverError, self.delete, att)
            if self.get(att.id) is not None:
                self.assertEqual('error_detaching',
                                 self.get(att.id).attach_status,
                                 'failure in %s' % failed)
                self.assertEqual('error_detaching', self.status(volume))
                # Deleting again finishes it.
                self.delete(att)
            # Else it failed past the point of no return (the record is
            # gone with its connection).
            self.assertIsNone(self.get(att.id), 'failure in %s' % failed)
            self.assertEqual(set(), self.driver.connections,
                             'failure in %s' % failed)
            self.assertEqual('available', self.status(volume))

    def test_two_attachments_share_the_connection(self):
        volume = self.volume(multiattach=True)
        first, second = self.connected(volume, 'i1'), self.connected(
            volume, 'i2')
        self.delete(first)
        self.assertEqual([], self.driver.called('terminate_connection'))
        self.assertEqual({(volume.id, 'consumer1')}, self.driver.connections)
        self.delete(second)
        self.assertEqual([(volume.id, 'consumer1')],
                         self.driver.called('terminate_connection'))
        self.assertEqual(set(), self.driver.connections)

    def test_force_detach_goes_through_the_flow(self):
        volume = self.volume()
        att = self.connected(volume)
        attachments.force_detach(self.admin_context, volume.id, att.id)
        self.assertIsNone(self.get(att.id))
        self.assertEqual(set(), self.driver.connections)


class LegacyFlowTestCase(_Base):
    """os-reserve, os-initialize_connection, os-attach; os-begin_detaching,
    os-terminate_connection, os-detach: the pre-3.27 flow."""

    def setUp(self):
        super().setUp()
        self.injector = self.useFixture(mgr_fixtures.FlowInjector(
            disconnect_attachment, test_attach_volume.FailAfter,
            factory='get_terminate_flow'))

    def legacy_attach(self, volume, instance='i1'):
        actions.reserve(self.service_context, volume.id)
        info = actions.initialize_connection(self.service_context,
                                             volume.id, CONNECTOR)
        actions.attach(self.service_context, volume.id,
                       instance_uuid=instance, mountpoint='/dev/vdb')
        return info

    def test_cycle(self):
        volume = self.volume()
        info = self.legacy_attach(volume)
        self.assertEqual({'driver_volume_type', 'data'}, set(info))
        self.assertEqual('rw', info['data']['access_mode'])
        self.assertEqual('in-use', self.status(volume))
        att, = attachments.attachment_db.attachment_get_all(
            self.admin_context, filters={'volume_id': volume.id})
        self.assertEqual(('attached', 'consumer1', 'i1'),
                         (att.attach_status, att.attached_host,
                          att.instance_uuid))
        actions.begin_detaching(self.service_context, volume.id)
        actions.terminate_connection(self.service_context, volume.id,
                                     CONNECTOR)
        self.assertEqual(set(), self.driver.connections)
        self.assertEqual('detaching', self.get(att.id).attach_status)
        actions.detach(self.service_context, volume.id)
        self.assertIsNone(self.get(att.id))
        # Terminated once: os-detach found no connection left.
        self.assertEqual([(volume.id, 'consumer1')],
                         self.driver.called('terminate_connection'))
        self.assertEqual('available', self.status(volume))

    def test_initialize_without_reserve(self):
        volume = self.volume()
        actions.initialize_connection(self.service_context, volume.id,
                                      CONNECTOR)
        self.assertEqual('attaching', self.status(volume))
        self.assertEqual({(volume.id, 'consumer1')}, self.driver.connections)

    def test_terminate_kept_for_another_attachment(self):
        volume = self.volume(multiattach=True)
        self.legacy_attach(volume, 'i1')
        other = self.connected(volume, 'i2')
        legacy, = [a for a in attachments.attachment_db.attachment_get_all(
            self.admin_context, filters={'volume_id': volume.id})
            if a.id != other.id]
        actions.begin_detaching(self.service_context, volume.id,
                                attachment_id=legacy.id)
        actions.terminate_connection(self.service_context, volume.id,
                                     CONNECTOR)
        self.assertEqual([], self.driver.called('terminate_connection'))
        self.assertEqual({(volume.id, 'consumer1')}, self.driver.connections)
        self.delete(other)
        self.assertEqual(set(), self.driver.connections)

    def test_terminate_failure_at_every_step(self):
        for index in list(range(len(TERMINATE_CONTRACT))) + [None]:
            volume = self.volume()
            self.legacy_attach(volume)
            actions.begin_detaching(self.service_context, volume.id)
            self.injector.fail_at(index)
            failed = self.injector.failed
            self.assertRaises(exception.DriverError,
                              actions.terminate_connection,
                              self.service_context, volume.id, CONNECTOR)
            att, = attachments.attachment_db.attachment_get_all(
                self.admin_context, filters={'volume_id': volume.id})
            self.assertEqual('error_detaching', att.attach_status,
                             'failure in %s' % failed)
            # Detaching again finishes it, and the connection ends.
            actions.detach(self.service_context, volume.id, att.id)
            self.assertIsNone(self.get(att.id))
            self.assertEqual(set(), self.driver.connections,
                             'failure in %s' % failed)


class ConnectionRaceTestCase(_Base):
    """Issue 9.4: of concurrent deletes of the last attachments on one
    host, exactly one ends the connection; a delete racing a connect
    never cuts the new connection."""

    USERS = 8

    def test_concurrent_deletes_terminate_exactly_once(self):
        volume = self.volume(multiattach=True)
        atts = [self.connected(volume, 'i%d' % i)
                for i in range(self.USERS)]
        barrier = threading.Barrier(self.USERS)
        errors = []

        def delete(att):
            barrier.wait()
            try:
                self.delete(att)
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=delete, args=(a,)) for a in atts]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual([], errors)
        self.assertEqual([(volume.id, 'consumer1')],
                         self.driver.called('terminate_connection'))
        self.assertEqual(set(), self.driver.connections)
        self.assertEqual('available', self.status(volume))

    def _delete_while_connecting(self):
        """Delete the last attachment on the host while another is being
        connected there: once its connection is initialized, the connect
        waits (at most 0.5 s) for the delete's terminate before it
        records the attachment as connected, so that the two overlap
        unless serialized."""
        volume = self.volume(multiattach=True)
        last = self.connected(volume, 'i1')
        new = attachments.create_attachment(self.service_context,
                                            volume.id, 'i2')
        initialized = threading.Event()
        terminated = threading.Event()
        record_ = attachment_tasks.RecordConnected.execute

        # The task's signature names what it requires: keep it (an
        # engine compiled earlier in this process passes all of it).
        def record_late(task, context, attachment_id, host, connector,
                        connection_info, mountpoint=None, claim=None,
                        record=None):
            initialized.set()
            terminated.wait(0.5)
            return record_(task, context, attachment_id, host, connector,
                           connection_info, mountpoint, claim, record)

        self.useFixture(fixtures.MockPatchObject(
            attachment_tasks.RecordConnected, 'execute', record_late))
        self.driver.hooks['terminate_connection'] = (
            lambda *args: terminated.set())
        connect = threading.Thread(
            target=attachments.update_attachment,
            args=(self.service_context, new.id, CONNECTOR))
        connect.start()
        self.assertTrue(initialized.wait(self.TIMEOUT))
        self.delete(last)
        connect.join()
        return volume, new

    def test_delete_never_cuts_a_connection_being_made(self):
        volume, new = self._delete_while_connecting()
        self.assertEqual('attaching', self.get(new.id).attach_status)
        # Whatever the order, the new attachment has its connection.
        self.assertEqual({(volume.id, 'consumer1')}, self.driver.connections)

    def test_without_the_lock_the_connection_is_cut(self):
        # The control: what the lock prevents.
        self.useFixture(fixtures.MockPatchObject(
            locks.ConnectionLock, 'acquire', lambda lock: None))
        volume, new = self._delete_while_connecting()
        self.assertEqual('attaching', self.get(new.id).attach_status)
        self.assertEqual(set(), self.driver.connections)


class PerAttachmentConnectionsTestCase(_Base):
    """A backend with per-attachment connections: each attachment's ends
    with it, whoever else uses the host."""

    DRIVER = mgr_fixtures.PerAttachmentFileDriver

    def test_each_attachment_ends_its_own_connection(self):
        volume = self.volume(multiattach=True)
        first, second = self.connected(volume, 'i1'), self.connected(
            volume, 'i2')
        self.assertEqual({(volume.id, first.id), (volume.id, second.id)},
                         self.driver.connections)
        self.assertTrue(rpcapi.is_attachment_scoped(
            self.get(first.id).connection_info))
        self.delete(first)
        self.assertEqual([(volume.id, 'consumer1', first.id)],
                         self.driver.called('terminate_connection'))
        self.assertEqual({(volume.id, second.id)}, self.driver.connections)
        self.delete(second)
        self.assertEqual(set(), self.driver.connections)

    def test_scope_is_not_shown(self):
        volume = self.volume(multiattach=True)
        att = self.connected(volume)
        flat = views.flat_connection_info(self.get(att.id))
        self.assertNotIn(rpcapi.SCOPE_KEY, flat)
        self.assertEqual(att.id, flat['attachment_id'])
