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

"""Tests of the hypervisor tasks (the fake hypervisor driver)."""

from taskflow.types import failure as tf_failure

from cinder_ma import exception
from cinder_ma.hypervisor.drivers import fake
from cinder_ma.manager.tasks import hypervisor as hypervisor_tasks
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures

INFO = {'driver_volume_type': 'file', 'data': {'path': '/v/volume-1'}}


class HypervisorTasksTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.driver = fake.FakeDriver(self.conf)

    def test_check(self):
        hypervisor_tasks.CheckHypervisor(self.driver).execute('h', True)
        exc = self.assertRaises(
            exception.DriverError,
            hypervisor_tasks.CheckHypervisor(None).execute, 'h')
        self.assertIn('runs no hypervisor driver', str(exc))
        plain = mgr_fixtures.NoMultiattachHypervisor(self.conf)
        hypervisor_tasks.CheckHypervisor(plain).execute('h')
        exc = self.assertRaises(
            exception.DriverError,
            hypervisor_tasks.CheckHypervisor(plain).execute, 'h', True)
        self.assertIn('does not support multiattach', str(exc))

    def test_attach_and_revert(self):
        task = hypervisor_tasks.AttachOnHypervisor(self.driver)
        device = task.execute('i1', INFO, {'path': '/dev/sdx'}, 'a1', 'ro',
                              True, mountpoint='/dev/vdc')
        self.assertEqual('/dev/vdc', device)
        record, = self.driver.list_attachments()
        self.assertEqual(('ro', True, '/dev/sdx'), (
            record['mode'], record['shareable'],
            record['connection_info']['data']['device_path']))
        self.assertNotIn('device_path', INFO['data'])
        task.revert('i1', INFO, {'path': '/dev/sdx'}, 'a1', result=device)
        self.assertEqual([], self.driver.list_attachments())

    def test_attach_without_device(self):
        task = hypervisor_tasks.AttachOnHypervisor(self.driver)
        self.assertIsNone(task.execute('i1', INFO, {'path': '/x'}, 'a1',
                                       'rw', False))

    def test_failed_attach_is_not_detached(self):
        driver = mgr_fixtures.RecordingHypervisor(self.conf)
        try:
            raise exception.DriverError(reason='x')
        except exception.DriverError:
            failure = tf_failure.Failure()
        hypervisor_tasks.AttachOnHypervisor(driver).revert(
            'i1', INFO, None, 'a1', result=failure)
        self.assertEqual([], driver.calls)

    def test_revert_never_raises(self):
        driver = mgr_fixtures.RecordingHypervisor(self.conf)
        driver.fail('detach_volume')
        hypervisor_tasks.AttachOnHypervisor(driver).revert(
            'i1', INFO, None, 'a1', result='/dev/vdb')
        self.assertEqual([('i1', 'a1')], driver.called('detach_volume'))

    def test_detach(self):
        self.driver.attach_volume('i1', INFO, 'a1')
        task = hypervisor_tasks.DetachFromHypervisor(self.driver)
        task.execute('i1', INFO, 'a1')
        task.execute('i1', INFO, 'a1')
        self.assertEqual([], self.driver.list_attachments())
        task.revert('i1', 'a1', result=None)
