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

"""Tests of the volume tasks: each revert undoes exactly its execute."""

import os

import fixtures
from taskflow.types import failure as tf_failure

from cinder_ma.db import volumes as volume_db
from cinder_ma.db import work as work_db
from cinder_ma import exception
from cinder_ma.manager.tasks import volume as volume_tasks
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_create_volume


def _failure():
    try:
        raise exception.DriverError(reason='x')
    except Exception:
        return tf_failure.Failure()


class VolumeTasksTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.driver = test_create_volume.make_driver(self.conf)
        self.volumes = mgr_fixtures.VolumeFactory(self.context)
        self.volume = self.volumes.create()
        self.ref = self.volumes.ref(self.volume)
        self.path = os.path.join(self.driver.volumes_dir, self.ref.name)

    def _status(self):
        return volume_db.volume_get(self.context, self.volume.id).status

    def test_create_and_revert(self):
        t = volume_tasks.CreateVolumeOnBackend(self.driver)
        self.assertEqual({'volume'}, set(t.requires))
        t.execute(self.ref)
        self.assertTrue(os.path.exists(self.path))
        t.revert(self.ref, result=None)
        self.assertFalse(os.path.exists(self.path))
        t.revert(self.ref, result=None)

    def test_create_revert_on_failure_keeps_what_is_there(self):
        open(self.path, 'w').close()
        volume_tasks.CreateVolumeOnBackend(self.driver).revert(
            self.ref, result=_failure())
        self.assertTrue(os.path.exists(self.path))

    def test_create_revert_never_raises(self):
        self.useFixture(fixtures.MockPatchObject(
            self.driver, 'delete_volume',
            side_effect=exception.DriverError(reason='busy')))
        volume_tasks.CreateVolumeOnBackend(self.driver).revert(
            self.ref, result=None)

    def test_delete(self):
        self.driver.create_volume(self.ref)
        t = volume_tasks.DeleteVolumeOnBackend(self.driver)
        t.execute(self.ref)
        t.execute(self.ref)
        self.assertFalse(os.path.exists(self.path))
        t.revert(self.ref, result=None)
        t.revert(self.ref, result=_failure())

    def test_mark_available_and_revert(self):
        t = volume_tasks.MarkVolumeAvailable()
        self.assertEqual({'context', 'volume_id'}, set(t.requires))
        t.execute(self.context, self.volume.id)
        self.assertEqual('available', self._status())
        self.assertRaises(exception.Conflict, t.execute, self.context,
                          self.volume.id)
        t.revert(self.context, self.volume.id, result=None)
        self.assertEqual('creating', self._status())
        t.revert(self.context, self.volume.id, result=None)
        self.assertEqual('creating', self._status())

    def test_mark_available_gives_up_its_claim(self):
        self.assertTrue(work_db.claim(self.context, 'volume', self.volume.id,
                                      'w:mine', ('creating',), 60))
        volume_tasks.MarkVolumeAvailable().execute(
            self.context, self.volume.id, claim='w:mine')
        self.assertEqual('available', self._status())
        self.assertEqual((None, None), work_db.claim_of(
            self.context, 'volume', self.volume.id))

    def test_mark_available_leaves_another_claim(self):
        self.assertTrue(work_db.claim(self.context, 'volume', self.volume.id,
                                      'w:other', ('creating',), 60))
        volume_tasks.MarkVolumeAvailable().execute(
            self.context, self.volume.id, claim='w:mine')
        self.assertEqual('available', self._status())
        self.assertEqual('w:other', work_db.claim_of(
            self.context, 'volume', self.volume.id)[0])

    def test_mark_available_revert_on_failure(self):
        volume_db.volume_update(self.context, self.volume.id,
                                {'status': 'available'})
        volume_tasks.MarkVolumeAvailable().revert(
            self.context, self.volume.id, result=_failure())
        self.assertEqual('available', self._status())

    def test_destroy_record(self):
        t = volume_tasks.DestroyVolumeRecord()
        t.execute(self.context, self.volume.id)
        self.assertRaises(exception.VolumeNotFound, volume_db.volume_get,
                          self.context, self.volume.id)
        t.revert(self.context, self.volume.id, result=None)
        self.assertRaises(exception.VolumeNotFound, t.execute,
                          self.context, self.volume.id)
