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

"""Contract, success and revert tests of the detach flow, and of the
connection rules it shares with the attach flow: connections used by
other attachments stay, shared targets, and the connection lock.

Real SQLite, real volume files, the in-process RPC transport, the API
rules starting each flow; the storage driver, host connector and
hypervisor driver are the real ones with recording added
(tests/unit/manager/fixtures.py), because these tests must see, and fail
on demand, every call the flows make; the drivers themselves are tested
on their own.
"""

import threading

import fixtures
from taskflow import task

from cinder_ma import coordination
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager.flows import detach_volume
from cinder_ma.manager import locks
from cinder_ma.manager.tasks import attachment as attachment_tasks
from cinder_ma.manager.tasks import connection as connection_tasks
from cinder_ma.manager.tasks import hypervisor as hypervisor_tasks
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures

DETACH_CONTRACT = [
    (attachment_tasks.AttachmentToErrorDetachingOnRevert,
     {'context', 'attachment_id'}, set(), set()),
    (hypervisor_tasks.CheckHypervisor, {'host'}, {'shareable'}, set()),
    (hypervisor_tasks.DetachFromHypervisor,
     {'instance_uuid', 'connection_info', 'attachment_id'}, set(), set()),
    (connection_tasks.AcquireConnectionLock, {'connection_lock'}, set(),
     set()),
    (connection_tasks.DisconnectVolume,
     {'context', 'volume_id', 'attachment_id', 'host',
      'shared_service_uuid', 'connection_info'}, set(), set()),
    (connection_tasks.TerminateConnection,
     {'manager_api', 'context', 'volume_id', 'volume_host',
      'attachment_id', 'host', 'connector'}, {'connection_info'}, set()),
    (attachment_tasks.DestroyAttachment, {'context', 'attachment_id'},
     {'destroyed', 'claim', 'record'}, set()),
    (connection_tasks.ReleaseConnectionLock, {'connection_lock'}, set(),
     set()),
    (attachment_tasks.NotifyAttachment,
     {'context', 'volume_id', 'attachment_id', 'instance_uuid',
      'attach_mode', 'host'}, set(), set()),
]
#: Failures from this task on come after the attachment was deleted.
DESTROYED_AFTER = 7


class FailAfter(task.Task):
    """Appended to a flow: fails after every real task succeeded."""

    def execute(self):
        raise exception.DriverError(reason='injected after the last task')


class DetachFlowContractTestCase(base.TestCase):

    def test_contract(self):
        flow = detach_volume.get_flow(None, None)
        self.assertEqual('detach_volume', flow.name)
        self.assertEqual(DETACH_CONTRACT, [
            (type(atom), set(atom.requires), set(atom.optional),
             set(atom.provides)) for atom in flow])
        self.assertEqual(
            {'context', 'attachment_id', 'volume_id', 'volume_host',
             'instance_uuid', 'attach_mode', 'host', 'shared_service_uuid',
             'connector', 'connection_info', 'manager_api',
             'connection_lock'}, set(flow.requires))
        self.assertEqual(set(), set(flow.provides))

    def test_attachment_deleted_under_the_lock(self):
        names = [type(a).__name__ for a in detach_volume.get_flow(
            None, None)]
        guarded = names[names.index('AcquireConnectionLock') + 1:
                        names.index('ReleaseConnectionLock')]
        self.assertEqual(['DisconnectVolume', 'TerminateConnection',
                          'DestroyAttachment'], guarded)


class DetachFlowTestCase(mgr_fixtures.AttachmentTestCase):

    def setUp(self):
        super().setUp()
        self.injector = self.useFixture(
            mgr_fixtures.FlowInjector(detach_volume, FailAfter))

    def assertNothingLeft(self, volume):
        self.assertEqual(set(), self.driver.connections)
        self.assertEqual(set(), self.connector.connected)
        self.assertEqual([], self.hypervisor.list_attachments())
        self.assertEqual('available', self.status(volume))

    def test_detach(self):
        volume = self.volume()
        att = self.attach(volume, 'i1')
        self.assertIsNone(self.detach(att.id))
        self.assertNothingLeft(volume)
        self.assertEqual([(volume.id, 'compute1')],
                         self.driver.called('terminate_connection'))
        self.assertEqual([(self.path(volume), False)],
                         self.connector.called('disconnect_volume'))
        self.assertEqual([('i1', att.id)],
                         self.hypervisor.called('detach_volume'))

    def test_notification(self):
        volume = self.volume(multiattach=True)
        att = self.attach(volume, 'i1', mode='ro')
        self.detach(att.id)
        expected = {'volume_id': volume.id, 'attachment_id': att.id,
                    'instance_uuid': 'i1', 'host': 'compute1', 'mode': 'ro',
                    'multiattach': True, 'project_id': 'fake-project'}
        self.assertEqual(['volume.attach.start', 'volume.attach.end',
                          'volume.detach.start', 'volume.detach.end'],
                         [event for event, _ in self.notifications()])
        self.assertEqual(('volume.detach.end', expected),
                         self.notifications()[-1])

    def _check_failed(self, att, index, volume_status):
        if index is not None and index < DESTROYED_AFTER:
            failed = self.get(att.id)
            self.assertEqual('error_detaching', failed.attach_status,
                             'failure in %s' % self.injector.failed)
            self.assertEqual(volume_status, self.status(att))
            return True
        # Failing after the attachment was deleted: everything was done.
        self.assertIsNone(self.get(att.id))
        return False

    def status(self, volume_or_attachment):
        volume_id = getattr(volume_or_attachment, 'volume_id',
                            volume_or_attachment.id)
        return volume_db.volume_get(self.admin_context, volume_id).status

    def test_failure_at_every_step(self):
        for index in list(range(len(DETACH_CONTRACT))) + [None]:
            volume = self.volume()
            att = self.attach(volume, 'i-%s' % index)
            self.injector.fail_at(index)
            self.detach(att.id)
            if self._check_failed(att, index, 'error_detaching'):
                # Detaching again finishes what the failed flow left.
                self.assertIsNone(self.detach(att.id))
            # (A retried detach terminates again: idempotent.)
            self.assertNothingLeft(volume)

    def test_failure_at_every_step_with_another_attachment(self):
        volume = self.volume(multiattach=True)
        other = self.attach(volume, 'i0')
        for index in list(range(len(DETACH_CONTRACT))) + [None]:
            att = self.attach(volume, 'i-%s' % index)
            self.injector.fail_at(index)
            self.detach(att.id)
            if self._check_failed(att, index, 'in-use'):
                self.assertIsNone(self.detach(att.id))
            self.assertEqual('in-use', self.status(volume))
            self.assertEqual({(volume.id, 'compute1')},
                             self.driver.connections)
            self.assertEqual({self.path(volume)}, self.connector.connected)
            record, = self.hypervisor.list_attachments()
            self.assertEqual(other.id, record['attachment_id'])
        self.assertEqual([], self.driver.called('terminate_connection'))
        self.assertEqual([], self.connector.called('disconnect_volume'))

    def test_driver_failures(self):
        for target, method in ((self.hypervisor, 'detach_volume'),
                               (self.connector, 'disconnect_volume'),
                               (self.driver, 'terminate_connection')):
            volume = self.volume()
            att = self.attach(volume, 'i1')
            target.fail(method)
            failed = self.detach(att.id)
            self.assertEqual('error_detaching', failed.attach_status, method)
            self.assertEqual('error_detaching', self.status(volume))
            target.failures.clear()
            self.assertIsNone(self.detach(att.id))
            self.assertNothingLeft(volume)

    def test_no_hypervisor(self):
        volume = self.volume()
        att = self.attach(volume, 'i1')
        self.compute_manager.hypervisor = None
        self.assertEqual('error_detaching',
                         self.detach(att.id).attach_status)
        self.assertEqual({self.path(volume)}, self.connector.connected)

    def test_detach_without_recorded_connection(self):
        volume = self.volume()
        att = self.attach(volume, 'i1')
        mgr_fixtures.attachment_db.attachment_update(
            self.admin_context, att.id,
            {'connector': None, 'connection_info': None})
        self.assertIsNone(self.detach(att.id))
        self.assertEqual([], self.connector.called('disconnect_volume'))
        self.assertEqual([], self.driver.called('terminate_connection'))
        self.assertEqual('available', self.status(volume))


class ConnectionSharingTestCase(mgr_fixtures.AttachmentTestCase):
    """A multiattach volume attached twice on one host: the host's
    connection serves both attachments."""

    def test_last_detach_tears_down(self):
        volume = self.volume(multiattach=True)
        first = self.attach(volume, 'i1')
        second = self.attach(volume, 'i2', mode='ro')
        self.assertIsNone(self.detach(first.id))
        self.assertEqual([], self.driver.called('terminate_connection'))
        self.assertEqual([], self.connector.called('disconnect_volume'))
        self.assertEqual({(volume.id, 'compute1')}, self.driver.connections)
        self.assertEqual('in-use', self.status(volume))
        self.assertIsNone(self.detach(second.id))
        self.assertEqual([(volume.id, 'compute1')],
                         self.driver.called('terminate_connection'))
        self.assertEqual(set(), self.driver.connections)
        self.assertEqual(set(), self.connector.connected)
        self.assertEqual('available', self.status(volume))


class SharedTargetsTestCase(mgr_fixtures.AttachmentTestCase):
    """A backend with Capabilities(shared_targets=True)."""

    DRIVER = mgr_fixtures.SharedTargetsFileDriver

    def test_volumes_of_one_target(self):
        v1, v2 = self.volume(), self.volume()
        a1 = self.attach(v1, 'i1')
        a2 = self.attach(v2, 'i2')
        self.assertEqual('attached', a2.attach_status)
        self.assertIsNone(self.detach(a1.id))
        # v1's own connection goes; v2's stays, and the connector was
        # told that the host's session to the target is still in use.
        self.assertEqual([(v1.id, 'compute1')],
                         self.driver.called('terminate_connection'))
        self.assertEqual([(self.path(v1), True)],
                         self.connector.called('disconnect_volume'))
        self.assertEqual({(v2.id, 'compute1')}, self.driver.connections)
        self.assertEqual({self.path(v2)}, self.connector.connected)
        self.assertIsNone(self.detach(a2.id))
        self.assertEqual((self.path(v2), False),
                         self.connector.called('disconnect_volume')[-1])
        self.assertEqual(set(), self.driver.connections)
        self.assertEqual(set(), self.connector.connected)

    def test_multiattach_volume_on_one_target(self):
        volume = self.volume(multiattach=True)
        a1 = self.attach(volume, 'i1')
        a2 = self.attach(volume, 'i2')
        self.assertIsNone(self.detach(a1.id))
        self.assertEqual([], self.driver.called('terminate_connection'))
        self.assertEqual([], self.connector.called('disconnect_volume'))
        self.assertIsNone(self.detach(a2.id))
        self.assertEqual([(self.path(volume), False)],
                         self.connector.called('disconnect_volume'))
        self.assertEqual(set(), self.driver.connections)

    def test_failed_attach_keeps_the_target_of_others(self):
        v1, v2 = self.volume(), self.volume()
        self.attach(v1, 'i1')
        self.hypervisor.fail('attach_volume')
        self.assertEqual('error_attaching',
                         self.attach(v2, 'i2').attach_status)
        self.assertEqual([(self.path(v2), True)],
                         self.connector.called('disconnect_volume'))
        self.assertEqual({(v1.id, 'compute1')}, self.driver.connections)

    def test_lock_is_the_backends_coordination_lock(self):
        volume = self.volume()
        taken = []
        real = coordination.COORDINATOR.acquire

        def acquire(name):
            taken.append(name)
            return real(name)

        self.useFixture(fixtures.MockPatchObject(
            coordination.COORDINATOR, 'acquire', side_effect=acquire))
        self.detach(self.attach(volume, 'i1').id)
        expected = 'cinder_ma-connect-%s' % self.backend_service.uuid
        self.assertEqual([expected, expected], taken)

    def _race(self):
        """Attach v2 while v1 is detached, both on the shared target; the
        attach's backend call waits (at most 3 s) for a teardown to
        start, so that the two overlap unless serialized.
        """
        v1, v2 = self.volume(), self.volume()
        a1 = self.attach(v1, 'i1')
        sections = mgr_fixtures.Sections()
        self.driver.sections = self.connector.sections = sections
        in_initialize = threading.Event()
        teardown = threading.Event()

        def initialize(volume_id, host, mode):
            if volume_id == v2.id:
                in_initialize.set()
                teardown.wait(3)

        self.driver.hooks['initialize_connection'] = initialize
        self.connector.hooks['disconnect_volume'] = (
            lambda *args: teardown.set())
        self.driver.hooks['terminate_connection'] = (
            lambda *args: teardown.set())
        a2 = self.start_attach(v2, 'i2')
        self.assertTrue(in_initialize.wait(self.TIMEOUT))
        self.start_detach(a1.id)
        self.settle()
        return v1, v2, a1, a2, sections

    def test_concurrent_attach_and_detach_serialize(self):
        v1, v2, a1, a2, sections = self._race()
        self.assertEqual([], sections.overlaps)
        labels = [label for _event, label in sections.log]
        self.assertEqual(
            ['initialize %s' % v2.id] * 2 +
            ['connect %s' % self.path(v2)] * 2 +
            ['disconnect %s' % self.path(v1)] * 2 +
            ['terminate %s' % v1.id] * 2, labels)
        # v2 was attaching when v1's teardown counted: the target's
        # session was kept for it.
        self.assertEqual([(self.path(v1), True)],
                         self.connector.called('disconnect_volume'))
        self.assertIsNone(self.get(a1.id))
        self.assertEqual('attached', self.get(a2.id).attach_status)
        self.assertEqual({(v2.id, 'compute1')}, self.driver.connections)
        self.assertEqual({self.path(v2)}, self.connector.connected)

    def test_without_the_lock_they_overlap(self):
        # The control: what the lock prevents.
        self.useFixture(fixtures.MockPatchObject(
            locks.ConnectionLock, 'acquire', lambda lock: None))
        v1, v2, a1, a2, sections = self._race()
        self.assertNotEqual([], sections.overlaps)
        # v2 was still 'reserved' when v1's teardown counted: the host
        # would have logged out of the target v2 was connecting through.
        self.assertEqual([(self.path(v1), False)],
                         self.connector.called('disconnect_volume'))
