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

"""Contract and revert tests of the create volume flow (real SQLite, real
files).
"""

import errno
import os

import fixtures
from taskflow import task

from cinder_ma.conf import backend as backend_conf
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager import flows
from cinder_ma.manager.flows import create_volume
from cinder_ma.manager.tasks import lifecycle
from cinder_ma.volume.drivers import file as file_driver
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures


class FailAfter(task.Task):
    """Appended to a flow: fails after every real task succeeded."""

    def execute(self):
        raise exception.DriverError(reason='injected after the last task')


def make_driver(conf):
    config = backend_conf.BackendConfig(
        conf, 'file', file_driver.FileDriver.get_driver_options())
    driver = file_driver.FileDriver(configuration=config,
                                    host='testhost@file')
    driver.do_setup()
    return driver


class CreateVolumeFlowTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.driver = make_driver(self.conf)
        self.volumes = mgr_fixtures.VolumeFactory(self.context)
        self.volume = self.volumes.create(size=1)
        self.ref = self.volumes.ref(self.volume)
        self.path = os.path.join(self.driver.volumes_dir, self.ref.name)
        self.store = {'context': self.context, 'volume_id': self.volume.id,
                      'volume': self.ref}

    def _status(self):
        vol = volume_db.volume_get(self.context, self.volume.id)
        return vol.status, vol.error_reason

    def test_contract(self):
        flow = create_volume.get_flow(self.driver)
        self.assertEqual('create_volume', flow.name)
        self.assertEqual({'context', 'volume_id', 'volume'}, flow.requires)
        self.assertEqual(set(), flow.provides)
        first = next(iter(flow))
        self.assertIsInstance(first, lifecycle.VolumeToErrorOnRevert)

    def test_flows_do_not_share_tasks(self):
        first = list(create_volume.get_flow(self.driver))
        second = list(create_volume.get_flow(self.driver))
        self.assertEqual([type(t) for t in first], [type(t) for t in second])
        for one, other in zip(first, second):
            self.assertIsNot(one, other)
        self.assertIs(self.driver, first[1].driver)

    def test_success(self):
        flows.run(create_volume.get_flow, self.store, self.driver)
        self.assertEqual(('available', None), self._status())
        self.assertEqual(1024 ** 3, os.stat(self.path).st_size)

    def test_compiled_once_run_again(self):
        # The engine compiled for one volume runs the next ones.
        built = []

        def factory(driver):
            built.append(driver)
            return create_volume.get_flow(driver)

        flows.run(factory, self.store, self.driver)
        self.useFixture(fixtures.MockPatch(
            'os.ftruncate', side_effect=OSError(errno.ENOSPC,
                                                'No space left on device')))
        second = self.volumes.create(size=1)
        self.assertRaises(exception.DriverError, flows.run, factory,
                          dict(self.store, volume_id=second.id,
                               volume=self.volumes.ref(second)),
                          self.driver)
        self.assertFalse(os.path.exists(os.path.join(
            self.driver.volumes_dir, 'volume-%s' % second.id)))
        failed = volume_db.volume_get(self.context, second.id)
        self.assertEqual('error', failed.status)
        self.assertIn('No space left on device', failed.error_reason)
        self.useFixture(fixtures.MockPatch('os.ftruncate'))
        third = self.volumes.create(size=1)
        flows.run(factory, dict(self.store, volume_id=third.id,
                                volume=self.volumes.ref(third)),
                  self.driver)
        self.assertEqual('available', volume_db.volume_get(
            self.context, third.id).status)
        # Built for the first run, again for the run after the failure
        # (a reverted engine is not run again), not for the ones after.
        self.assertEqual([self.driver, self.driver], built)
        fourth = self.volumes.create(size=1)
        flows.run(factory, dict(self.store, volume_id=fourth.id,
                                volume=self.volumes.ref(fourth)),
                  self.driver)
        self.assertEqual(2, len(built))

    def _assert_reverted(self, reason):
        self.assertFalse(os.path.exists(self.path))
        self.assertEqual([], os.listdir(self.driver.volumes_dir))
        status, error_reason = self._status()
        self.assertEqual('error', status)
        self.assertIn(reason, error_reason)

    def test_failure_at_every_step(self):
        size = len(create_volume.get_flow(self.driver))
        for index in range(size):
            volume = self.volumes.create(size=1)
            store = dict(self.store, volume_id=volume.id,
                         volume=self.volumes.ref(volume))
            flow = create_volume.get_flow(self.driver)
            atom = list(flow)[index]
            reason = 'injected in %s' % atom.name
            self.useFixture(fixtures.MockPatchObject(
                atom, 'execute',
                side_effect=exception.DriverError(reason=reason)))
            self.assertRaises(exception.DriverError, flows.run_once, flow,
                              store)
            self.volume = volume
            self.path = os.path.join(self.driver.volumes_dir,
                                     'volume-%s' % volume.id)
            self._assert_reverted(reason)

    def test_failure_after_the_last_step_reverts_everything(self):
        flow = create_volume.get_flow(self.driver)
        flow.add(FailAfter())
        self.assertRaises(exception.DriverError, flows.run_once, flow,
                          self.store)
        self._assert_reverted('injected after the last task')

    def test_driver_failure_leaves_nothing(self):
        self.useFixture(fixtures.MockPatch(
            'os.ftruncate', side_effect=OSError(errno.ENOSPC,
                                                'No space left on device')))
        self.assertRaises(exception.DriverError, flows.run_once,
                          create_volume.get_flow(self.driver), self.store)
        self._assert_reverted('No space left on device')

    def test_existing_file_is_not_deleted_by_revert(self):
        with open(self.path, 'wb') as f:
            f.write(b'someone else')
        self.assertRaises(exception.DriverError, flows.run_once,
                          create_volume.get_flow(self.driver), self.store)
        self.assertTrue(os.path.exists(self.path))
        status, reason = self._status()
        self.assertEqual('error', status)
        self.assertIn('already exists', reason)

    def test_volume_no_longer_creating(self):
        volume_db.volume_update(self.context, self.volume.id,
                                {'status': 'deleting'})
        self.assertRaises(exception.Conflict, flows.run_once,
                          create_volume.get_flow(self.driver), self.store)
        self.assertFalse(os.path.exists(self.path))
        self.assertEqual('deleting', self._status()[0])

    def test_secrets_masked_in_logs_and_reason(self):
        logger = self.useFixture(fixtures.FakeLogger(
            name='cinder_ma.manager.flows', level='DEBUG'))
        flow = create_volume.get_flow(self.driver)
        atom = list(flow)[1]
        self.useFixture(fixtures.MockPatchObject(
            atom, 'execute', side_effect=exception.DriverError(
                reason="login failed, password='hunter2'")))
        self.assertRaises(exception.DriverError, flows.run_once, flow,
                          self.store)
        self.assertIn('login failed', logger.output)
        self.assertNotIn('hunter2', logger.output)
        self.assertNotIn('hunter2', self._status()[1])
