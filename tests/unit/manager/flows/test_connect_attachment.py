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

"""Contract, success and revert tests of the connect flows, which the
API runs for consumers that connect their host themselves (attachments
API update or create with a connector, os-initialize_connection).

As for the manager's flows: real SQLite, real volume files, the backend
node's manager over the in-process RPC transport, and the recording file
driver of tests/unit/manager/fixtures.py, because these tests must see,
and fail on demand, every call to the backend.
"""

import fixtures
import oslo_messaging as messaging

from cinder_ma import coordination
from cinder_ma import exception
from cinder_ma.manager.flows import connect_attachment
from cinder_ma.manager import manager as manager_module
from cinder_ma.manager.tasks import attachment as attachment_tasks
from cinder_ma.manager.tasks import connection as connection_tasks
from cinder_ma.volume import actions
from cinder_ma.volume import attachments
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_attach_volume

CONNECTOR = {'host': 'consumer1', 'initiator': 'iqn.2026-11.test:c1'}

CONNECT_CONTRACT = [
    (connection_tasks.LockAndInitializeConnection,
     {'connection_lock', 'manager_api', 'context', 'volume_id',
      'volume_host', 'connector', 'attach_mode', 'attachment_id', 'host',
      'read'}, set(), {'connection_info'}),
    (attachment_tasks.RecordConnected,
     {'context', 'attachment_id', 'host', 'connector', 'connection_info'},
     {'mountpoint', 'claim', 'record'}, {'attachment'}),
]


class ConnectFlowContractTestCase(base.TestCase):

    def test_contract(self):
        flow = connect_attachment.get_flow()
        self.assertEqual('connect_attachment', flow.name)
        self.assertEqual(CONNECT_CONTRACT,
                         test_attach_volume.contract_of(flow))
        self.assertEqual(
            {'context', 'attachment_id', 'volume_id', 'volume_host',
             'attach_mode', 'connector', 'host', 'manager_api',
             'connection_lock', 'read'}, set(flow.requires))

    def test_sentinels(self):
        tasks = attachment_tasks
        for kind, sentinel in (
                ('update', tasks.AttachmentToErrorAttachingOnRevert),
                ('create', tasks.ReleaseReservationOnRevert),
                ('legacy', tasks.AttachmentToReservedOnRevert)):
            flow = connect_attachment.get_flow(kind)
            # Carried by the first task, whose revert runs it last.
            self.assertIsInstance(list(flow)[0].sentinel, sentinel)
            # The rest is the same flow.
            self.assertEqual(CONNECT_CONTRACT,
                             test_attach_volume.contract_of(flow))

    def test_lock_guards_the_connection(self):
        # Held to the end of the run (released by whoever runs the flow).
        names = [type(a).__name__
                 for a in connect_attachment.get_flow()]
        guarded = names[names.index('LockAndInitializeConnection'):]
        self.assertEqual(['LockAndInitializeConnection', 'RecordConnected'],
                         guarded)


class ConnectFlowTestCase(mgr_fixtures.AttachmentTestCase):
    """The flows as the API runs them (cinder_ma.volume.attachments)."""

    def setUp(self):
        super().setUp()
        self.injector = self.useFixture(mgr_fixtures.FlowInjector(
            connect_attachment, test_attach_volume.FailAfter))

    def reserve(self, volume, instance='i1'):
        return attachments.create_attachment(self.service_context,
                                             volume.id, instance)

    def update(self, attachment, connector=CONNECTOR):
        return attachments.update_attachment(self.service_context,
                                             attachment.id, connector)

    def assertNothingLeft(self, volume):
        self.assertEqual(set(), self.driver.connections)
        self.assertEqual(
            len(self.driver.called('initialize_connection')),
            len(self.driver.called('terminate_connection')))

    def test_update(self):
        volume = self.volume()
        att = self.update(self.reserve(volume))
        self.assertEqual('attaching', att.attach_status)
        self.assertEqual('consumer1', att.attached_host)
        info = att.connection_info
        self.assertEqual('file', info['driver_volume_type'])
        self.assertEqual('rw', info['data']['access_mode'])
        self.assertEqual(att.id, info['attachment_id'])
        self.assertEqual([(volume.id, 'consumer1', 'rw')],
                         self.driver.called('initialize_connection'))
        self.assertEqual({(volume.id, 'consumer1')}, self.driver.connections)
        self.assertEqual('attaching', self.status(volume))

    def test_refused_with_the_claim_before_the_backend(self):
        # Another attachment of the instance connected on that host since
        # the API checked: the manager refuses it in the transaction that
        # would claim it; nothing is claimed, the backend is not called.
        volume = self.volume(multiattach=True)
        first = self.reserve(volume)
        second = self.reserve(volume)
        self.update(first)
        # (Called directly: its RPC server would unwrap the error.)
        error = self.assertRaises(messaging.ExpectedException,
                                  self.backend_manager.connect_attachment,
                                  self.service_context, second.id,
                                  CONNECTOR, 'update')
        self.assertIsInstance(error.exc_info[1], exception.Conflict)
        refused = self.get(second.id)
        self.assertEqual(('reserved', None),
                         (refused.attach_status, refused.claimed_by))
        self.assertEqual(1, len(self.driver.called('initialize_connection')))

    def test_update_failure_at_every_step(self):
        steps = len(CONNECT_CONTRACT)
        for index in list(range(steps)) + [None]:
            volume = self.volume()
            att = self.reserve(volume)
            self.injector.fail_at(index)
            self.assertRaises(exception.DriverError, self.update, att)
            self.assertEqual('error_attaching', self.get(att.id).attach_status,
                             'failure in %s' % self.injector.failed)
            self.assertNothingLeft(volume)
            self.assertEqual('available', self.status(volume))
        # The backend was called in the flows failing after its step
        # (in a later step, or after the last).
        calling = [step[0] for step in CONNECT_CONTRACT].index(
            connection_tasks.LockAndInitializeConnection)
        self.assertEqual(steps - calling, len(self.driver.called(
            'initialize_connection')))

    def test_create_with_connector_failure_at_every_step(self):
        for index in list(range(len(CONNECT_CONTRACT))) + [None]:
            volume = self.volume()
            self.injector.fail_at(index)
            self.assertRaises(exception.DriverError,
                              attachments.create_attachment,
                              self.service_context, volume.id, 'i1',
                              connector=CONNECTOR)
            # Nothing half-made: no attachment, no connection.
            self.assertEqual([], attachments.attachment_db.attachment_get_all(
                self.admin_context, filters={'volume_id': volume.id}),
                'failure in %s' % self.injector.failed)
            self.assertNothingLeft(volume)
            self.assertEqual('available', self.status(volume))

    def test_legacy_failure_at_every_step(self):
        for index in list(range(len(CONNECT_CONTRACT))) + [None]:
            volume = self.volume()
            actions.reserve(self.service_context, volume.id)
            self.injector.fail_at(index)
            self.assertRaises(exception.DriverError,
                              actions.initialize_connection,
                              self.service_context, volume.id, CONNECTOR)
            att, = attachments.attachment_db.attachment_get_all(
                self.admin_context, filters={'volume_id': volume.id})
            # As in Cinder, the volume stays reserved for a retry.
            self.assertEqual('reserved', att.attach_status,
                             'failure in %s' % self.injector.failed)
            self.assertIsNone(att.connection_info)
            self.assertNothingLeft(volume)

    def test_failure_keeps_the_connection_of_another_attachment(self):
        volume = self.volume(multiattach=True)
        first = self.update(self.reserve(volume, 'i0'))
        for index in list(range(len(CONNECT_CONTRACT))) + [None]:
            att = self.reserve(volume, 'i-%s' % index)
            self.injector.fail_at(index)
            self.assertRaises(exception.DriverError, self.update, att)
            self.assertEqual({(volume.id, 'consumer1')},
                             self.driver.connections)
        self.assertEqual([], self.driver.called('terminate_connection'))
        self.assertEqual('attaching', self.get(first.id).attach_status)

    def test_initialize_timeout_is_terminated(self):
        volume = self.volume()
        # The backend's manager calls its own backend in-process; this
        # stands for a call whose answer was lost on the way.
        real = manager_module.Manager.connect_volume

        def reply_lost(mgr, *args, **kwargs):
            real(mgr, *args, **kwargs)
            raise messaging.MessagingTimeout('no reply')

        self.useFixture(fixtures.MockPatchObject(
            manager_module.Manager, 'connect_volume', reply_lost))
        att = self.reserve(volume)
        self.assertRaises(messaging.RemoteError, self.update, att)
        self.assertEqual('error_attaching', self.get(att.id).attach_status)
        # The backend connected it but the reply was lost: terminated.
        self.assertEqual([(volume.id, 'consumer1')],
                         self.driver.called('terminate_connection'))
        self.assertNothingLeft(volume)

    def test_refused_initialize_is_not_terminated(self):
        volume = self.volume()
        self.driver.fail('initialize_connection')
        att = self.reserve(volume)
        self.assertRaises(exception.DriverError, self.update, att)
        self.assertEqual([], self.driver.called('terminate_connection'))
        self.assertEqual('error_attaching', self.get(att.id).attach_status)

    def test_lock_released_after_failure(self):
        volume = self.volume(multiattach=True)
        self.driver.fail('initialize_connection')
        self.assertRaises(exception.DriverError, self.update,
                          self.reserve(volume, 'i1'))
        self.driver.failures.clear()
        # Would block forever if the failed flow kept the volume's lock.
        self.assertEqual('attaching', self.update(
            self.reserve(volume, 'i2')).attach_status)

    def test_lock_is_the_coordination_lock_of_the_volume(self):
        volume = self.volume()
        taken = []
        real = coordination.COORDINATOR.acquire

        def acquire(name):
            taken.append(name)
            return real(name)

        self.useFixture(fixtures.MockPatchObject(
            coordination.COORDINATOR, 'acquire', side_effect=acquire))
        att = self.update(self.reserve(volume))
        attachments.delete_attachment(self.service_context, att.id)
        expected = 'cinder_ma-connect-volume-%s' % volume.id
        self.assertEqual([expected, expected], taken)


class RefusedRequestsTestCase(mgr_fixtures.AttachmentTestCase):
    """Issue 8.3: a refused attachment request changes nothing on a
    backend: no driver call at all."""

    def test_refused_requests_call_no_driver(self):
        volume = self.volume()
        att = attachments.create_attachment(self.service_context, volume.id,
                                            'i1', connector=CONNECTOR)
        before = list(self.driver.calls)
        # Connected already: on its host, or on another.
        for host in ('consumer1', 'consumer2'):
            exc = self.assertRaises(
                exception.Conflict, attachments.update_attachment,
                self.service_context, att.id, dict(CONNECTOR, host=host))
            self.assertIn('only a reserved attachment', str(exc))
        # A second attachment of the same instance (live migration) may be
        # reserved, but not connected on the host that has it already.
        second = attachments.create_attachment(self.service_context,
                                               volume.id, 'i1')
        exc = self.assertRaises(
            exception.Conflict, attachments.update_attachment,
            self.service_context, second.id, CONNECTOR)
        self.assertIn('already has volume', str(exc))
        exc = self.assertRaises(
            exception.Conflict, attachments.create_attachment,
            self.service_context, volume.id, 'i1', connector=CONNECTOR)
        self.assertIn('already has volume', str(exc))
        exc = self.assertRaises(
            exception.Conflict, actions.initialize_connection,
            self.service_context, volume.id, CONNECTOR)
        self.assertIn('already has volume', str(exc))
        # Another instance of a volume that is not shareable.
        self.assertRaises(exception.InvalidVolume,
                          attachments.create_attachment,
                          self.service_context, volume.id, 'i2',
                          connector=dict(CONNECTOR, host='consumer2'))
        # A member deleting a connected attachment; completing a
        # reservation.
        self.assertRaises(exception.Conflict, attachments.delete_attachment,
                          self.context, att.id)
        self.assertRaises(exception.Conflict,
                          attachments.complete_attachment,
                          self.service_context, second.id)
        self.assertEqual(before, self.driver.calls)
        self.assertEqual({(volume.id, 'consumer1')}, self.driver.connections)
        self.assertEqual('attaching', self.get(att.id).attach_status)
