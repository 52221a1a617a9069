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

"""The snapshot delete flow: its storage and record go, its quota comes
back; a failure leaves 'error_deleting', and deleting again finishes."""

import os

import fixtures

from cinder_ma.db import quotas as quota_db
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma import exception
from cinder_ma.manager import flows
from cinder_ma.manager.flows import delete_snapshot
from cinder_ma.manager.tasks import lifecycle
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_create_snapshot as helpers
from tests.unit.manager.flows import test_create_volume


class DeleteSnapshotFlowTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.driver = test_create_volume.make_driver(self.conf)
        self.volumes = mgr_fixtures.VolumeFactory(self.context)

    def _snapshot(self):
        volume = self.volumes.create(status='available', size=1)
        ref = self.volumes.ref(volume)
        self.driver.create_volume(ref)
        snapshot = helpers.make_snapshot(self.context, volume,
                                         status='deleting')
        sref = helpers.snapshot_ref(snapshot, ref)
        self.driver.create_snapshot(sref)
        path = os.path.join(self.driver.volumes_dir, sref.name)
        return snapshot, path, {'context': self.context,
                                'snapshot_id': snapshot.id,
                                'snapshot': sref}

    def test_contract(self):
        flow = delete_snapshot.get_flow(self.driver)
        self.assertEqual({'context', 'snapshot_id', 'snapshot'},
                         flow.requires)
        self.assertIsInstance(next(iter(flow)),
                              lifecycle.SnapshotToErrorDeletingOnRevert)

    def test_success_gives_the_quota_back(self):
        snapshot, path, store = self._snapshot()
        project = snapshot.project_id
        quota_db.ensure_usages(self.context, project, ['snapshots'])
        before = quota_db.usage_get_all(self.context, project)['snapshots']
        flows.run(delete_snapshot.get_flow, store, self.driver)
        self.assertFalse(os.path.exists(path))
        self.assertRaises(exception.SnapshotNotFound,
                          snapshot_db.snapshot_get, self.context,
                          snapshot.id)
        self.assertEqual(before - 1, quota_db.usage_get_all(
            self.context, project)['snapshots'])

    def test_failure_at_every_step(self):
        size = len(delete_snapshot.get_flow(self.driver))
        for index in range(size):
            snapshot, path, store = self._snapshot()
            flow = delete_snapshot.get_flow(self.driver)
            atom = list(flow)[index]
            self.useFixture(fixtures.MockPatchObject(
                atom, 'execute',
                side_effect=exception.DriverError(reason='injected')))
            self.assertRaises(exception.DriverError, flows.run_once, flow,
                              store)
            got = snapshot_db.snapshot_get(self.context, snapshot.id)
            self.assertEqual('error_deleting', got.status)
            self.assertEqual(index < 2, os.path.exists(path))
            snapshot_db.snapshot_change(self.context, snapshot.id,
                                        {'status': 'deleting'})
            flows.run_once(delete_snapshot.get_flow(self.driver), store)
            self.assertFalse(os.path.exists(path))
