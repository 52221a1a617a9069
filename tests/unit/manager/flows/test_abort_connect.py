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

"""Tests of the flow reverting an interrupted connect
(cinder_ma/manager/flows/abort_connect.py), run as the backend's manager
runs it, with a recording file driver."""

from cinder_ma.db import attachments as attachment_db
from cinder_ma import exception
from cinder_ma.manager import flows
from cinder_ma.manager.flows import abort_connect
from cinder_ma.manager import locks
from cinder_ma.manager.tasks import attachment as attachment_tasks
from cinder_ma.manager.tasks import connection as connection_tasks
from tests.unit.manager import fixtures as mgr_fixtures

CONNECTOR = {'host': 'consumer1', 'initiator': 'iqn.2026-11.test:c1'}


class AbortConnectShapeTestCase(mgr_fixtures.AttachmentTestCase):

    def test_shapes(self):
        def kinds(kind):
            return [type(t) for t in flows.tasks_of(
                abort_connect.get_flow(kind))]

        self.assertEqual([attachment_tasks.AttachmentToErrorAttachingOnRevert,
                          connection_tasks.AcquireConnectionLock,
                          connection_tasks.EndUnrecordedConnection,
                          attachment_tasks.ReleaseReservation],
                         kinds('create'))
        self.assertEqual(kinds('update')[:3], kinds('create')[:3])
        self.assertEqual(3, len(kinds('legacy')))
        self.assertRaises(ValueError, abort_connect.get_flow, 'other')


class AbortConnectTestCase(mgr_fixtures.AttachmentTestCase):

    def run_abort(self, volume, attachment, kind):
        store = abort_connect.store_of(self.context, volume, attachment,
                                       CONNECTOR)
        lock = locks.inter_process_lock_of(volume)
        store.update(manager_api=self.backend_manager.manager_api,
                     connection_lock=lock)
        try:
            flows.run(abort_connect.get_flow, store, kind)
        finally:
            lock.release()

    def reserve(self, volume, instance='i1'):
        return attachment_db.attachment_reserve(self.context, volume.id,
                                                instance)

    def test_create_releases_and_ends_the_connection(self):
        volume = self.volume()
        attachment = self.reserve(volume)
        self.driver.initialize_connection(self.volumes.ref(volume),
                                          CONNECTOR, 'rw')
        self.run_abort(volume, attachment, 'create')
        self.assertIsNone(self.get(attachment.id))
        self.assertEqual(set(), self.driver.connections)

    def test_a_connection_another_attachment_uses_stays(self):
        volume = self.volume(multiattach=True)
        other = self.reserve(volume, 'i0')
        self.driver.initialize_connection(self.volumes.ref(volume),
                                          CONNECTOR, 'rw')
        attachment_db.attachment_update(
            self.admin_context, other.id,
            {'attach_status': 'attaching', 'connector': CONNECTOR,
             'attached_host': 'consumer1',
             'connection_info': {'driver_volume_type': 'file'}},
            expected_status='reserved')
        attachment = self.reserve(volume, 'i1')
        self.run_abort(volume, attachment, 'legacy')
        self.assertEqual('reserved', self.get(attachment.id).attach_status)
        self.assertEqual([], self.driver.called('terminate_connection'))

    def test_failure_leaves_error_attaching(self):
        volume = self.volume()
        attachment = self.reserve(volume)
        self.driver.fail('terminate_connection')
        self.assertRaises(exception.DriverError, self.run_abort, volume,
                          attachment, 'update')
        self.assertEqual('error_attaching',
                         self.get(attachment.id).attach_status)
