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

"""Contract and revert tests of the delete volume flow (real SQLite, real
files).
"""

import os

import fixtures
from taskflow import task

from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager import flows
from cinder_ma.manager.flows import delete_volume
from cinder_ma.manager.tasks import lifecycle
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_create_volume


class FailAfter(task.Task):

    def execute(self):
        raise exception.DriverError(reason='injected after the last task')


class DeleteVolumeFlowTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.driver = test_create_volume.make_driver(self.conf)
        self.volumes = mgr_fixtures.VolumeFactory(self.context)

    def _volume(self):
        volume = self.volumes.create(status='deleting', size=1)
        ref = self.volumes.ref(volume)
        self.driver.create_volume(ref)
        path = os.path.join(self.driver.volumes_dir, ref.name)
        store = {'context': self.context, 'volume_id': volume.id,
                 'volume': ref}
        return volume, path, store

    def test_contract(self):
        flow = delete_volume.get_flow(self.driver)
        self.assertEqual('delete_volume', flow.name)
        self.assertEqual({'context', 'volume_id', 'volume'}, flow.requires)
        self.assertEqual(set(), flow.provides)
        self.assertIsInstance(next(iter(flow)),
                              lifecycle.VolumeToErrorDeletingOnRevert)

    def test_flows_do_not_share_tasks(self):
        first = list(delete_volume.get_flow(self.driver))
        second = list(delete_volume.get_flow(self.driver))
        self.assertEqual([type(t) for t in first], [type(t) for t in second])
        for one, other in zip(first, second):
            self.assertIsNot(one, other)
        self.assertIs(self.driver, first[1].driver)

    def test_success(self):
        volume, path, store = self._volume()
        flows.run_once(delete_volume.get_flow(self.driver), store)
        self.assertFalse(os.path.exists(path))
        self.assertRaises(exception.VolumeNotFound, volume_db.volume_get,
                          self.context, volume.id)

    def test_success_when_storage_already_gone(self):
        volume, path, store = self._volume()
        os.unlink(path)
        flows.run_once(delete_volume.get_flow(self.driver), store)
        self.assertRaises(exception.VolumeNotFound, volume_db.volume_get,
                          self.context, volume.id)

    def test_failure_at_every_step(self):
        size = len(delete_volume.get_flow(self.driver))
        for index in range(size):
            volume, path, store = self._volume()
            flow = delete_volume.get_flow(self.driver)
            atom = list(flow)[index]
            reason = 'injected in %s' % atom.name
            self.useFixture(fixtures.MockPatchObject(
                atom, 'execute',
                side_effect=exception.DriverError(reason=reason)))
            self.assertRaises(exception.DriverError, flows.run_once, flow,
                              store)
            vol = volume_db.volume_get(self.context, volume.id)
            self.assertEqual('error_deleting', vol.status)
            self.assertIn(reason, vol.error_reason)
            # Storage is deleted only by the step that deletes it (after
            # the sentinel and the snapshots of a cascade).
            deleted_before = index > 2
            self.assertEqual(not deleted_before, os.path.exists(path))
            # Deleting again finishes the job.
            volume_db.volume_update(self.context, volume.id,
                                    {'status': 'deleting'})
            flows.run_once(delete_volume.get_flow(self.driver), store)
            self.assertFalse(os.path.exists(path))
            self.assertRaises(exception.VolumeNotFound, volume_db.volume_get,
                              self.context, volume.id)

    def test_failure_after_the_last_step(self):
        volume, path, store = self._volume()
        flow = delete_volume.get_flow(self.driver)
        flow.add(FailAfter())
        self.assertRaises(exception.DriverError, flows.run_once, flow,
                          store)
        # Nothing can be brought back: the volume stays deleted.
        self.assertFalse(os.path.exists(path))
        self.assertRaises(exception.VolumeNotFound, volume_db.volume_get,
                          self.context, volume.id)
