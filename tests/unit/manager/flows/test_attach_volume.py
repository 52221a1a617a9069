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

"""Contract, success and revert tests of the attach flow.

Real SQLite, real volume files, the in-process RPC transport: attachments
are reserved by the API rules (cinder_ma.volume.attachments), whose cast
runs the flow on the compute node's manager, which calls the backend
node's manager for the connection. The storage driver, host connector and
hypervisor driver are the real file driver, file connector and fake
hypervisor driver with recording added (tests/unit/manager/fixtures.py),
because these tests must see, and fail on demand, every call the flow
makes; the drivers themselves are tested on their own.
"""

import fixtures
import oslo_messaging as messaging
from taskflow import task

from cinder_ma import exception
from cinder_ma.manager.flows import attach_volume
from cinder_ma.manager.tasks import attachment as attachment_tasks
from cinder_ma.manager.tasks import connection as connection_tasks
from cinder_ma.manager.tasks import hypervisor as hypervisor_tasks
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures

#: (task class, requires, optional, provides) of every task, in order.
ATTACH_CONTRACT = [
    (attachment_tasks.AttachmentToErrorAttachingOnRevert,
     {'context', 'attachment_id'}, set(), set()),
    (hypervisor_tasks.CheckHypervisor, {'host'}, {'shareable'}, set()),
    (connection_tasks.GetConnectorProperties, {'host'}, set(),
     {'connector'}),
    (connection_tasks.AcquireConnectionLock, {'connection_lock'}, set(),
     set()),
    (connection_tasks.InitializeConnection,
     {'manager_api', 'context', 'volume_id', 'volume_host', 'connector',
      'attach_mode', 'attachment_id', 'host'}, set(), {'connection_info'}),
    (connection_tasks.ConnectVolume,
     {'context', 'volume_id', 'attachment_id', 'host',
      'shared_service_uuid', 'connection_info'}, set(), {'device_info'}),
    (attachment_tasks.RecordAttaching,
     {'context', 'attachment_id', 'host', 'connector', 'connection_info',
      'device_info'}, set(), set()),
    (connection_tasks.ReleaseConnectionLock, {'connection_lock'}, set(),
     set()),
    (hypervisor_tasks.AttachOnHypervisor,
     {'instance_uuid', 'connection_info', 'device_info', 'attachment_id',
      'attach_mode', 'shareable'}, {'mountpoint'}, {'device'}),
    (attachment_tasks.CompleteAttachment,
     {'context', 'attachment_id', 'device'}, set(), set()),
    (attachment_tasks.NotifyAttachment,
     {'context', 'volume_id', 'attachment_id', 'instance_uuid',
      'attach_mode', 'host'}, set(), set()),
]


class FailAfter(task.Task):
    """Appended to a flow: fails after every real task succeeded."""

    def execute(self):
        raise exception.DriverError(reason='injected after the last task')


def contract_of(flow):
    return [(type(atom), set(atom.requires), set(atom.optional),
             set(atom.provides)) for atom in flow]


class AttachFlowContractTestCase(base.TestCase):

    def test_contract(self):
        flow = attach_volume.get_flow(None, None)
        self.assertEqual('attach_volume', flow.name)
        self.assertEqual(ATTACH_CONTRACT, contract_of(flow))
        self.assertEqual(
            {'context', 'attachment_id', 'volume_id', 'volume_host',
             'instance_uuid', 'attach_mode', 'shareable', 'host',
             'shared_service_uuid', 'manager_api', 'connection_lock'},
            set(flow.requires))
        self.assertEqual({'connector', 'connection_info', 'device_info',
                          'device'}, set(flow.provides))

    def test_lock_guards_the_connection_steps(self):
        names = [type(a).__name__ for a in
                 attach_volume.get_flow(None, None)]
        guarded = names[names.index('AcquireConnectionLock') + 1:
                        names.index('ReleaseConnectionLock')]
        self.assertEqual(['InitializeConnection', 'ConnectVolume',
                          'RecordAttaching'], guarded)


class AttachFlowTestCase(mgr_fixtures.AttachmentTestCase):

    def setUp(self):
        super().setUp()
        self.injector = self.useFixture(
            mgr_fixtures.FlowInjector(attach_volume, FailAfter))

    def assertNothingLeft(self, volume, status='available'):
        self.assertEqual(set(), self.driver.connections)
        self.assertEqual(set(), self.connector.connected)
        self.assertEqual([], self.hypervisor.list_attachments())
        self.assertEqual(status, self.status(volume))

    def test_attach(self):
        volume = self.volume()
        reserved = self.start_attach(volume, 'i1')
        self.assertEqual('reserved', reserved.attach_status)
        self.settle()
        att = self.get(reserved.id)
        self.assertEqual('attached', att.attach_status)
        self.assertEqual('in-use', self.status(volume))
        self.assertEqual('compute1', att.attached_host)
        self.assertEqual('/dev/vdb', att.mountpoint)
        self.assertIsNotNone(att.attach_time)
        info = att.connection_info
        self.assertEqual('file', info['driver_volume_type'])
        self.assertEqual('rw', info['data']['access_mode'])
        self.assertEqual(self.path(volume), info['data']['path'])
        self.assertEqual(self.path(volume), info['data']['device_path'])
        self.assertEqual(att.id, info['attachment_id'])
        connector = att.connector
        self.assertEqual('compute1', connector['host'])
        self.assertFalse(connector['multipath'])
        self.assertEqual([(volume.id, 'compute1', 'rw')],
                         self.driver.called('initialize_connection'))
        self.assertEqual({(volume.id, 'compute1')}, self.driver.connections)
        self.assertEqual({self.path(volume)}, self.connector.connected)
        record, = self.hypervisor.list_attachments()
        self.assertEqual(('i1', att.id, 'rw', False),
                         (record['instance_uuid'], record['attachment_id'],
                          record['mode'], record['shareable']))
        self.assertEqual(self.path(volume),
                         record['connection_info']['data']['device_path'])

    def test_read_only(self):
        volume = self.volume(multiattach=True)
        att = self.attach(volume, 'i1', mode='ro')
        self.assertEqual('attached', att.attach_status)
        self.assertEqual('ro', att.attach_mode)
        info = att.connection_info
        self.assertEqual('ro', info['data']['access_mode'])
        self.assertEqual([(volume.id, 'compute1', 'ro')],
                         self.driver.called('initialize_connection'))
        (_inst, _att, mode, shareable, hv_info), = self.hypervisor.called(
            'attach_volume')
        self.assertEqual(('ro', True), (mode, shareable))
        self.assertEqual('ro', hv_info['data']['access_mode'])

    def test_two_instances_share_the_host_connection(self):
        volume = self.volume(multiattach=True)
        first = self.attach(volume, 'i1')
        second = self.attach(volume, 'i2', mode='ro')
        self.assertEqual(['attached', 'attached'],
                         [first.attach_status, second.attach_status])
        self.assertEqual({(volume.id, 'compute1')}, self.driver.connections)
        self.assertEqual(2, len(self.hypervisor.list_attachments()))

    def test_notification(self):
        volume = self.volume()
        att = self.attach(volume, 'i1', mode='rw')
        expected = {'volume_id': volume.id, 'attachment_id': att.id,
                    'instance_uuid': 'i1', 'host': 'compute1', 'mode': 'rw',
                    'multiattach': False, 'project_id': 'fake-project'}
        self.assertEqual([('volume.attach.start', expected),
                          ('volume.attach.end', expected)],
                         self.notifications())

    def test_failure_at_every_step(self):
        steps = len(ATTACH_CONTRACT)
        for index in list(range(steps)) + [None]:
            volume = self.volume()
            self.injector.fail_at(index)
            att = self.attach(volume, 'i-%s' % index)
            failed = self.injector.failed
            self.assertEqual('error_attaching', att.attach_status,
                             'failure in %s' % failed)
            self.assertNothingLeft(volume)
            self.assertEqual(
                len(self.driver.called('initialize_connection')),
                len(self.driver.called('terminate_connection')))
            self.assertEqual(len(self.connector.called('connect_volume')),
                             len(self.connector.called('disconnect_volume')))
        # The backend was called in the flows failing after its step.
        self.assertEqual(steps - 4, len(self.driver.called(
            'initialize_connection')))

    def test_failure_at_every_step_keeps_other_attachment(self):
        volume = self.volume(multiattach=True)
        first = self.attach(volume, 'i0')
        for index in list(range(len(ATTACH_CONTRACT))) + [None]:
            self.injector.fail_at(index)
            att = self.attach(volume, 'i-%s' % index)
            self.assertEqual('error_attaching', att.attach_status,
                             'failure in %s' % self.injector.failed)
            self.assertEqual('in-use', self.status(volume))
            # The connection of the attached instance stays.
            self.assertEqual({(volume.id, 'compute1')},
                             self.driver.connections)
            self.assertEqual({self.path(volume)}, self.connector.connected)
            record, = self.hypervisor.list_attachments()
            self.assertEqual(first.id, record['attachment_id'])
        self.assertEqual([], self.driver.called('terminate_connection'))
        self.assertEqual([], self.connector.called('disconnect_volume'))
        self.assertEqual('attached', self.get(first.id).attach_status)

    def test_driver_failures(self):
        for target, method in ((self.driver, 'initialize_connection'),
                               (self.connector, 'connect_volume'),
                               (self.hypervisor, 'attach_volume')):
            volume = self.volume()
            target.fail(method)
            att = self.attach(volume, 'i1')
            target.failures.clear()
            self.assertEqual('error_attaching', att.attach_status, method)
            self.assertNothingLeft(volume)

    def test_initialize_timeout_is_terminated(self):
        volume = self.volume()
        api = self.compute_manager.manager_api
        real = api.initialize_connection

        def reply_lost(*args, **kwargs):
            real(*args, **kwargs)
            raise messaging.MessagingTimeout('no reply')

        self.useFixture(fixtures.MockPatchObject(
            api, 'initialize_connection', side_effect=reply_lost))
        att = self.attach(volume, 'i1')
        # The backend connected it but the reply was lost (a broker
        # restart): terminated, and the attach is not failed for it but
        # left reserved, for the reconcile loop to run again.
        self.assertEqual(('reserved', None),
                         (att.attach_status, att.error_reason))
        self.assertEqual([(volume.id, 'compute1')],
                         self.driver.called('terminate_connection'))
        self.assertNothingLeft(volume, status='reserved')

    def test_refused_initialize_is_not_terminated(self):
        volume = self.volume()
        self.driver.fail('initialize_connection')
        self.assertEqual('error_attaching',
                         self.attach(volume, 'i1').attach_status)
        self.assertEqual([], self.driver.called('terminate_connection'))
        self.assertNothingLeft(volume)

    def test_failed_revert_still_ends_in_error(self):
        volume = self.volume()
        self.hypervisor.fail('attach_volume')
        self.driver.fail('terminate_connection')
        att = self.attach(volume, 'i1')
        self.assertEqual('error_attaching', att.attach_status)
        self.assertEqual('available', self.status(volume))
        self.assertEqual(set(), self.connector.connected)
        # The connection the backend could not terminate is known.
        self.assertEqual({(volume.id, 'compute1')}, self.driver.connections)

    def test_lock_released_after_failure(self):
        volume = self.volume()
        self.connector.fail('connect_volume')
        self.assertEqual('error_attaching',
                         self.attach(volume, 'i1').attach_status)
        self.connector.failures.clear()
        # Would block forever if the failed flow kept the volume's lock.
        self.assertEqual('attached', self.attach(volume, 'i2').attach_status)

    def test_only_into_the_callers_instances(self):
        """Issue 8.6, through the real managers: the compute host's
        hypervisor driver tells the owner."""
        volume = self.volume()
        self.hypervisor.add_instance('theirs', 'other-project')
        exc = self.assertRaises(exception.InvalidInput, self.start_attach,
                                volume, 'theirs')
        self.assertIn('runs no instance theirs', str(exc))
        self.assertEqual([], self.driver.calls)
        self.assertEqual([], self.hypervisor.calls)
        self.assertEqual('available', self.status(volume))
        # The same instance is the administrator's to attach into.
        self.assertEqual('attached', self.attach(
            volume, 'theirs', context=self.admin_context).attach_status)

    def test_no_hypervisor(self):
        self.compute_manager.hypervisor = None
        volume = self.volume()
        # An administrator: the host's services row still says it runs a
        # hypervisor driver (the API trusts it, and asks it no owner).
        att = self.attach(volume, 'i1', context=self.admin_context)
        self.assertEqual('error_attaching', att.attach_status)
        self.assertEqual([], self.driver.calls)
        self.assertNothingLeft(volume)

    def test_multiattach_refused_by_host_without_support(self):
        self.compute_manager.hypervisor = mgr_fixtures.NoMultiattachHypervisor(
            self.conf)
        self.compute_manager.hypervisor.default_owner = 'fake-project'
        volume = self.volume(multiattach=True)
        # The services row still says it can (the API trusts it): the
        # manager refuses before any driver call.
        att = self.attach(volume, 'i1')
        self.assertEqual('error_attaching', att.attach_status)
        self.assertEqual([], self.driver.calls)
        self.assertEqual([], self.connector.calls)
        self.assertEqual([], self.compute_manager.hypervisor.calls)
        self.assertEqual('available', self.status(volume))
        # A volume that is not shareable is fine on that host.
        plain = self.volume()
        self.assertEqual('attached', self.attach(plain, 'i1').attach_status)
