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

"""Contract and revert tests of the flows of fencing: revoking a fenced
attachment's connection (fence_attachment) and connecting a fenced
attachment again (reconnect_attachment), run by the API
(cinder_ma/volume/fencing.py) with the backend's manager over the
in-process transport and a recording driver making connections per
attachment.
"""

from cinder_ma import exception
from cinder_ma.manager.flows import fence_attachment
from cinder_ma.manager.flows import reconnect_attachment
from cinder_ma.manager.tasks import connection as connection_tasks
from cinder_ma.manager.tasks import fencing as fencing_tasks
from cinder_ma.volume import attachments
from cinder_ma.volume import fencing
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_attach_volume

CONNECTOR = {'host': 'consumer1', 'initiator': 'iqn.2026-11.test:c1'}

FENCE_CONTRACT = [
    (fencing_tasks.FailureReasonOnRevert, {'context', 'attachment_id'},
     set(), set()),
    (connection_tasks.AcquireConnectionLock, {'connection_lock'}, set(),
     set()),
    (fencing_tasks.RevokeConnections,
     {'manager_api', 'context', 'volume_id', 'volume_host', 'revoke'},
     set(), set()),
]

RECONNECT_CONTRACT = [
    (fencing_tasks.FailureReasonOnRevert, {'context', 'attachment_id'},
     set(), set()),
    (connection_tasks.AcquireConnectionLock, {'connection_lock'}, set(),
     set()),
    (connection_tasks.InitializeConnection,
     {'manager_api', 'context', 'volume_id', 'volume_host', 'connector',
      'attach_mode', 'attachment_id', 'host'}, set(), {'connection_info'}),
    (fencing_tasks.RecordReconnected,
     {'context', 'attachment_id', 'generation', 'connector', 'host',
      'connection_info', 'previous'}, {'mountpoint'}, {'attachment'}),
]


class ContractTestCase(base.TestCase):

    def test_fence_contract(self):
        flow = fence_attachment.get_flow()
        self.assertEqual('fence_attachment', flow.name)
        self.assertEqual(FENCE_CONTRACT,
                         test_attach_volume.contract_of(flow))

    def test_reconnect_contract(self):
        flow = reconnect_attachment.get_flow()
        self.assertEqual('reconnect_attachment', flow.name)
        self.assertEqual(RECONNECT_CONTRACT,
                         test_attach_volume.contract_of(flow))

    def test_locks_guard_the_backend(self):
        # Held to the end of the run (released by whoever runs the flow).
        for flow, guarded in (
                (fence_attachment, ['RevokeConnections']),
                (reconnect_attachment, ['InitializeConnection',
                                        'RecordReconnected'])):
            names = [type(a).__name__ for a in flow.get_flow()]
            self.assertEqual(guarded, names[
                names.index('AcquireConnectionLock') + 1:])


class _Base(mgr_fixtures.AttachmentTestCase):

    DRIVER = mgr_fixtures.PerAttachmentFileDriver

    def connected(self, volume, instance='i1'):
        att = attachments.create_attachment(
            self.service_context, volume.id, instance, connector=CONNECTOR)
        return attachments.complete_attachment(self.service_context,
                                               att.id)


class FenceFlowTestCase(_Base):

    def setUp(self):
        super().setUp()
        self.injector = self.useFixture(mgr_fixtures.FlowInjector(
            fence_attachment, test_attach_volume.FailAfter))

    def test_failure_at_every_step_then_fence_again(self):
        for index in list(range(len(FENCE_CONTRACT))) + [None]:
            volume = self.volume(multiattach=True)
            att = self.connected(volume)
            self.injector.fail_at(index)
            failed = self.injector.failed
            self.assertRaises(exception.DriverError,
                              fencing.fence_attachment, self.admin_context,
                              att.id)
            # The decision stands, with why its work failed.
            after = self.get(att.id)
            self.assertIsNotNone(after.fenced_at, failed)
            self.assertIn('Fencing failed', after.error_reason, failed)
            # Fencing again finishes it.
            fencing.fence_attachment(self.admin_context, att.id)
            self.assertNotIn((volume.id, att.id), self.driver.connections,
                             failed)
            self.assertEqual('attached', self.get(att.id).attach_status)


class ReconnectFlowTestCase(_Base):

    def setUp(self):
        super().setUp()
        self.injector = self.useFixture(mgr_fixtures.FlowInjector(
            reconnect_attachment, test_attach_volume.FailAfter))

    def test_reconnect(self):
        volume = self.volume(multiattach=True)
        att = self.connected(volume)
        fencing.fence_attachment(self.admin_context, att.id)
        again = attachments.update_attachment(
            self.service_context, att.id, dict(CONNECTOR, host='consumer2'))
        self.assertEqual(('attaching', 2, None, 'consumer2'),
                         (again.attach_status, again.generation,
                          again.fenced_at, again.attached_host))
        self.assertEqual({(volume.id, att.id)}, self.driver.connections)

    def test_failure_at_every_step(self):
        for index in list(range(len(RECONNECT_CONTRACT))) + [None]:
            volume = self.volume(multiattach=True)
            att = self.connected(volume)
            fenced = fencing.fence_attachment(self.admin_context, att.id)
            self.injector.fail_at(index)
            failed = self.injector.failed
            self.assertRaises(exception.DriverError,
                              attachments.update_attachment,
                              self.service_context, att.id, CONNECTOR)
            after = self.get(att.id)
            # Fenced as before, no new connection left at the target.
            self.assertEqual(
                ('attached', 1, fenced.fenced_at, fenced.connection_info),
                (after.attach_status, after.generation, after.fenced_at,
                 after.connection_info), failed)
            self.assertNotIn((volume.id, att.id), self.driver.connections,
                             failed)
            self.assertIn('Reconnecting failed', after.error_reason)
            self.assertEqual('in-use', self.status(volume))

    def test_attachments_made_through_a_manager_are_not_reconnected(self):
        volume = self.volume(multiattach=True)
        att = self.attach(volume, 'i1')
        fencing.fence_attachment(self.admin_context, att.id)
        exc = self.assertRaises(exception.Conflict,
                                attachments.update_attachment,
                                self.service_context, att.id, CONNECTOR)
        self.assertIn('through the manager', str(exc))
