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

"""Tests of the reconcile loop: work left in a transient status by a
dead process (an expired claim) or a lost cast (never claimed, old) is
finished or rolled back by the manager that can do it; work a live
process holds is never touched.

Real SQLite, real files, the recording drivers of
tests/unit/manager/fixtures.py (to see every driver call); a dead
process is simulated by what it leaves in the database: a claim whose
lease expired, or an old unclaimed row.
"""

import datetime
import os
import threading
import time

import fixtures
import kombu.exceptions
from oslo_serialization import jsonutils
from oslo_utils import timeutils
import sqlalchemy as sa

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import models
from cinder_ma.db import services as service_db
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import volumes as volume_db
from cinder_ma.db import work as work_db
from cinder_ma import exception
from cinder_ma.manager import manager
from cinder_ma.manager import reconcile
from cinder_ma.manager import rpcapi
from cinder_ma.volume import attachments as attachments_api
from tests import fixtures as cm_fixtures
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_create_snapshot as snapshot_helpers

DEAD = 'deadworker:token'


class ReconcileTestCase(mgr_fixtures.AttachmentTestCase):

    def setUp(self):
        super().setUp()
        self.conf.set_override('work_lease_time', 30, 'manager')

    def age(self, model, row_id, claimed_by=None):
        """Make a row look left behind: changed long ago, its claim (if
        any) expired."""
        past = timeutils.utcnow() - datetime.timedelta(hours=1)
        with db_api.main_context_manager.writer.using(self.admin_context):
            self.admin_context.session.execute(
                sa.update(model).where(model.id == row_id).values(
                    created_at=past, updated_at=past, claimed_by=claimed_by,
                    claimed_until=past if claimed_by else None))

    def hold(self, model, row_id, owner='liveworker:token'):
        """A claim a live process holds."""
        future = timeutils.utcnow() + datetime.timedelta(hours=1)
        past = timeutils.utcnow() - datetime.timedelta(hours=1)
        with db_api.main_context_manager.writer.using(self.admin_context):
            self.admin_context.session.execute(
                sa.update(model).where(model.id == row_id).values(
                    created_at=past, updated_at=past, claimed_by=owner,
                    claimed_until=future))

    def run_backend(self):
        return reconcile.reconcile(self.backend_manager, self.admin_context)

    def run_compute(self):
        return reconcile.reconcile(self.compute_manager, self.admin_context)

    def vol(self, volume):
        try:
            return volume_db.volume_get(self.admin_context, volume.id)
        except exception.VolumeNotFound:
            return None

    # Volumes

    def test_lost_create_is_finished(self):
        volume = self.volumes.create(status='creating', size=2)
        self.age(models.Volume, volume.id)
        self.assertEqual(1, self.run_backend())
        self.assertEqual('available', self.vol(volume).status)
        self.assertEqual(2 * 1024 ** 3, os.stat(self.path(volume)).st_size)
        self.assertIsNone(self.vol(volume).claimed_by)

    def test_interrupted_create_is_redone(self):
        volume = self.volumes.create(status='creating')
        # The dead run had made the file already.
        self.driver.create_volume(self.volumes.ref(volume))
        self.age(models.Volume, volume.id, claimed_by=DEAD)
        self.assertEqual(1, self.run_backend())
        self.assertEqual('available', self.vol(volume).status)

    def test_fresh_or_held_work_is_left_alone(self):
        fresh = self.volumes.create(status='creating')
        held = self.volumes.create(status='creating')
        self.hold(models.Volume, held.id)
        self.assertEqual(0, self.run_backend())
        self.assertEqual('creating', self.vol(fresh).status)
        self.assertEqual('creating', self.vol(held).status)
        self.assertFalse(os.path.exists(self.path(held)))

    def test_other_backends_work_is_left_alone(self):
        volume = self.volumes.create(status='creating',
                                     host='otherhost@file#file')
        self.age(models.Volume, volume.id)
        self.assertEqual(0, self.run_backend())
        self.assertEqual(0, self.run_compute())
        self.assertEqual('creating', self.vol(volume).status)

    def test_interrupted_delete_is_finished(self):
        volume = self.volume()
        volume_db.volume_update(self.admin_context, volume.id,
                                {'status': 'deleting'})
        self.age(models.Volume, volume.id, claimed_by=DEAD)
        self.run_backend()
        self.assertIsNone(self.vol(volume))
        self.assertFalse(os.path.exists(self.path(volume)))

    def test_interrupted_extend_is_finished(self):
        volume = self.volume()
        volume_db.volume_update(self.admin_context, volume.id,
                                {'status': 'extending', 'target_size': 3})
        self.age(models.Volume, volume.id, claimed_by=DEAD)
        self.run_backend()
        vol = self.vol(volume)
        self.assertEqual(('available', 3, None),
                         (vol.status, vol.size, vol.target_size))
        self.assertEqual(3 * 1024 ** 3, os.stat(self.path(volume)).st_size)

    def test_extend_without_size_is_rolled_back(self):
        volume = self.volume()
        volume_db.volume_update(self.admin_context, volume.id,
                                {'status': 'extending'})
        self.age(models.Volume, volume.id)
        self.run_backend()
        vol = self.vol(volume)
        self.assertEqual(('available', 1), (vol.status, vol.size))
        self.assertIn('interrupted', vol.error_reason)

    # Attachments through a manager

    # Snapshots

    def _snapshot(self, status):
        volume = self.volume()
        snapshot = snapshot_helpers.make_snapshot(self.admin_context,
                                                  volume, status=status)
        return volume, snapshot

    def _snapshot_path(self, snapshot):
        return os.path.join(self.driver.volumes_dir,
                            'snapshot-' + snapshot.id)

    def test_interrupted_snapshot_is_taken_again(self):
        _volume, snapshot = self._snapshot('creating')
        # The dead run had begun the copy.
        open(self._snapshot_path(snapshot), 'w').close()
        self.age(models.Snapshot, snapshot.id, claimed_by=DEAD)
        self.assertEqual(1, self.run_backend())
        got = snapshot_db.snapshot_get(self.admin_context, snapshot.id)
        self.assertEqual(('available', None), (got.status, got.claimed_by))
        self.assertEqual(1024 ** 3,
                         os.path.getsize(self._snapshot_path(snapshot)))

    def test_interrupted_snapshot_delete_is_finished(self):
        _volume, snapshot = self._snapshot('deleting')
        self.age(models.Snapshot, snapshot.id, claimed_by=DEAD)
        self.assertEqual(1, self.run_backend())
        self.assertRaises(exception.SnapshotNotFound,
                          snapshot_db.snapshot_get, self.admin_context,
                          snapshot.id)

    def test_snapshots_of_a_volume_deleted_with_them_wait_for_it(self):
        volume, snapshot = self._snapshot('deleting')
        volume_db.volume_update(self.admin_context, volume.id,
                                {'status': 'deleting'})
        self.age(models.Snapshot, snapshot.id, claimed_by=DEAD)
        self.age(models.Volume, volume.id, claimed_by=DEAD)
        # The volume's delete flow deletes its snapshots.
        self.assertEqual(1, self.run_backend())
        self.assertIsNone(self.vol(volume))
        self.assertRaises(exception.SnapshotNotFound,
                          snapshot_db.snapshot_get, self.admin_context,
                          snapshot.id)

    def test_interrupted_revert_is_finished(self):
        volume, snapshot = self._snapshot('available')
        self.driver.create_snapshot(snapshot_helpers.snapshot_ref(
            snapshot, self.volumes.ref(volume)))
        snapshot_db.revert_begin(self.admin_context, volume.id, snapshot.id)
        self.age(models.Volume, volume.id, claimed_by=DEAD)
        self.assertEqual(1, self.run_backend())
        self.assertEqual('available', self.vol(volume).status)
        self.assertEqual('available', snapshot_db.snapshot_get(
            self.admin_context, snapshot.id).status)

    def test_snapshot_work_never_cast_is_finished(self):
        # The API recorded it (no claim) and died before the cast: an
        # unclaimed row that has not changed for a lease.
        _volume, taken = self._snapshot('creating')
        other, deleted = self._snapshot('available')
        self.driver.create_snapshot(snapshot_helpers.snapshot_ref(
            deleted, self.volumes.ref(other)))
        snapshot_db.snapshot_change(self.admin_context, deleted.id,
                                    {'status': 'deleting'})
        volume, revert_to = self._snapshot('available')
        self.driver.create_snapshot(snapshot_helpers.snapshot_ref(
            revert_to, self.volumes.ref(volume)))
        snapshot_db.revert_begin(self.admin_context, volume.id,
                                 revert_to.id)
        for model, row_id in ((models.Snapshot, taken.id),
                              (models.Snapshot, deleted.id),
                              (models.Volume, volume.id)):
            self.age(model, row_id)
        self.assertEqual(3, self.run_backend())
        self.assertEqual('available', snapshot_db.snapshot_get(
            self.admin_context, taken.id).status)
        self.assertTrue(os.path.exists(self._snapshot_path(taken)))
        self.assertRaises(exception.SnapshotNotFound,
                          snapshot_db.snapshot_get, self.admin_context,
                          deleted.id)
        self.assertFalse(os.path.exists(self._snapshot_path(deleted)))
        self.assertEqual('available', self.vol(volume).status)
        self.assertEqual('available', snapshot_db.snapshot_get(
            self.admin_context, revert_to.id).status)

    def test_snapshot_work_just_recorded_is_left_alone(self):
        # Unclaimed, but changed less than a lease ago: its cast may be
        # on its way.
        _volume, taken = self._snapshot('creating')
        volume, revert_to = self._snapshot('available')
        snapshot_db.revert_begin(self.admin_context, volume.id,
                                 revert_to.id)
        self.assertEqual(0, self.run_backend())
        self.assertEqual('creating', snapshot_db.snapshot_get(
            self.admin_context, taken.id).status)
        self.assertEqual('reverting', self.vol(volume).status)

    def test_lost_attach_is_finished(self):
        volume = self.volume()
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1', manager_host=self.COMPUTE)
        self.age(models.VolumeAttachment, attachment.id)
        self.assertEqual(0, self.run_backend())
        self.assertEqual(1, self.run_compute())
        self.assertEqual('attached', self.get(attachment.id).attach_status)
        self.assertEqual('in-use', self.status(volume))
        self.assertEqual([attachment.id], [
            a['attachment_id'] for a in self.hypervisor.list_attachments()])

    def test_interrupted_attaching_is_rolled_back_then_attached(self):
        volume = self.volume()
        attachment = self.attach(volume, 'inst1')
        attachment_db.attachment_update(
            self.admin_context, attachment.id,
            {'attach_status': 'attaching'}, expected_status='attached')
        self.age(models.VolumeAttachment, attachment.id, claimed_by=DEAD)
        self.run_compute()
        attachment = self.get(attachment.id)
        self.assertEqual('attached', attachment.attach_status)
        self.assertIsNone(attachment.claimed_by)
        self.assertEqual(1, len(self.hypervisor.list_attachments()))
        # Torn down once (rollback), set up again (attach).
        self.assertEqual(1, len(self.driver.called('terminate_connection')))
        self.assertEqual(2, len(self.driver.called('initialize_connection')))

    def test_interrupted_detach_is_finished(self):
        volume = self.volume()
        attachment = self.attach(volume, 'inst1')
        attachment_db.attachment_update(
            self.admin_context, attachment.id,
            {'attach_status': 'detaching'}, expected_status='attached')
        self.age(models.VolumeAttachment, attachment.id, claimed_by=DEAD)
        self.run_compute()
        self.assertIsNone(self.get(attachment.id))
        self.assertEqual('available', self.status(volume))
        self.assertEqual([], self.hypervisor.list_attachments())
        self.assertEqual(1, len(self.driver.called('terminate_connection')))

    def test_held_attachment_is_left_alone(self):
        volume = self.volume()
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1', manager_host=self.COMPUTE)
        self.hold(models.VolumeAttachment, attachment.id)
        self.assertEqual(0, self.run_compute())
        self.assertEqual('reserved', self.get(attachment.id).attach_status)
        # Nor does a (repeated) cast take it, once the hand-over wait is
        # over.
        self.useFixture(fixtures.MockPatchObject(
            manager, 'CLAIM_HANDOVER_WAIT', 0.2))
        self.assertRaises(exception.Conflict,
                          self.compute_manager._claimed(
                              self.admin_context, 'attachment',
                              attachment.id, ('reserved',)).__enter__)

    def test_cast_waits_for_the_previous_flow_to_hand_over(self):
        # The flow before (an attach) moved the row on and is about to
        # give its claim up; the cast of the next flow (a detach, asked
        # by a client that saw the new status) waits for it instead of
        # being refused and left to the reconcile loop.
        volume = self.volume()
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1', manager_host=self.COMPUTE)
        owner = 'liveworker:token'
        self.hold(models.VolumeAttachment, attachment.id, owner=owner)
        timer = threading.Timer(0.3, work_db.release, (
            self.admin_context, 'attachment', attachment.id, owner))
        timer.start()
        self.addCleanup(timer.cancel)
        started = time.monotonic()
        with self.compute_manager._claimed(
                self.admin_context, 'attachment', attachment.id,
                ('reserved',)) as claim:
            self.assertGreaterEqual(time.monotonic() - started, 0.25)
            self.assertEqual(claim, work_db.claim_of(
                self.admin_context, 'attachment', attachment.id)[0])

    def _handed_over(self, lease):
        volume = self.volume(multiattach=True)
        owner = 'api-worker:token'
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1',
            claim=work_db.claim_values(owner, lease, {'op': 'connect'}))
        return owner, attachment_db.attachment_and_volume_get(
            self.admin_context, attachment.id)

    def test_claim_handed_over_with_its_records_is_adopted_once(self):
        owner, records = self._handed_over(60)
        rows = []
        counter = self.useFixture(cm_fixtures.TransactionCounter())
        with self.compute_manager._claimed(
                self.admin_context, 'attachment', records[0].id,
                ('reserved',), handover=owner, rows=rows,
                records=records) as claim:
            # Neither read nor written: the records are the flow's.
            self.assertEqual((owner, list(records), 0),
                             (claim, rows, counter.count))
            # A repeated message is refused while the flow runs.
            self.assertRaises(exception.Conflict,
                              self.compute_manager._claimed(
                                  self.admin_context, 'attachment',
                                  records[0].id, ('reserved',),
                                  handover=owner, rows=[],
                                  records=records).__enter__)

    def test_claim_about_to_expire_is_taken_over(self):
        # Held for less than ADOPT_MARGIN report intervals: claimed and
        # read again, as without records.
        owner, records = self._handed_over(5)
        with self.compute_manager._claimed(
                self.admin_context, 'attachment', records[0].id,
                ('reserved',), handover=owner, rows=[],
                records=records) as claim:
            self.assertNotEqual(owner, claim)
            self.assertEqual(claim, work_db.claim_of(
                self.admin_context, 'attachment', records[0].id)[0])

    def test_no_wait_for_a_row_in_another_status(self):
        volume = self.volume()
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1', manager_host=self.COMPUTE)
        self.hold(models.VolumeAttachment, attachment.id)
        started = time.monotonic()
        self.assertRaises(exception.Conflict,
                          self.compute_manager._claimed(
                              self.admin_context, 'attachment',
                              attachment.id, ('attached',)).__enter__)
        # Refused at once: no flow will hand this one a row that is not
        # in the status it works on.
        self.assertLess(time.monotonic() - started,
                        manager.CLAIM_HANDOVER_WAIT)

    def backend_heartbeat(self, up):
        """The backend's manager seen up (a fresh heartbeat) or down (none
        for an hour, as after a database outage until it reports)."""
        when = timeutils.utcnow()
        if not up:
            when -= datetime.timedelta(hours=1)
            # An hour passes in an instant here: what this process saw of
            # the heartbeats before is as old.
            rpcapi.forget_heartbeats()
        service_db.service_update(self.admin_context, self.backend_service.id,
                                  {'heartbeat_at': when})

    def test_attach_waits_while_the_backends_manager_is_down(self):
        # An attach answered 200 whose flow finds the backend's manager
        # down (its heartbeat not written yet after a database outage)
        # is not failed: it stays reserved, and the reconcile loop
        # attaches it once the manager is up.
        volume = self.volume()
        self.backend_heartbeat(up=False)
        attachment = self.attach(volume, 'inst1')
        self.assertEqual(('reserved', None), (attachment.attach_status,
                                              attachment.error_reason))
        self.assertIsNone(attachment.claimed_by)
        self.assertEqual([], self.driver.called('initialize_connection'))
        self.age(models.VolumeAttachment, attachment.id)
        # Not while it is down: the flow would only fail again.
        self.assertEqual(0, self.run_compute())
        self.backend_heartbeat(up=True)
        self.assertEqual(1, self.run_compute())
        self.assertEqual('attached', self.get(attachment.id).attach_status)
        self.assertEqual([attachment.id], [
            a['attachment_id'] for a in self.hypervisor.list_attachments()])

    def test_rollback_waits_while_the_backends_manager_is_down(self):
        # The reconcile loop ran before the backend's manager reported
        # again after a database outage: the rollback of an interrupted
        # attach could not terminate its connection. It was recorded
        # error_attaching, an attach answered 200 that never happened.
        volume = self.volume()
        attachment = self.attach(volume, 'inst1')
        attachment_db.attachment_update(
            self.admin_context, attachment.id,
            {'attach_status': 'attaching'}, expected_status='attached')
        self.age(models.VolumeAttachment, attachment.id, claimed_by=DEAD)
        self.backend_heartbeat(up=False)
        self.assertEqual(0, self.run_compute())
        self.assertEqual('attaching', self.get(attachment.id).attach_status)
        # Had the loop run it (the manager seen up, then down), the
        # interrupted work stays for a later pass all the same.
        self.assertRaises(exception.ManagerUnavailable,
                          self.compute_manager._rollback_attach,
                          self.admin_context, attachment.id)
        attachment = self.get(attachment.id)
        self.assertEqual(('attaching', None), (attachment.attach_status,
                                               attachment.error_reason))
        self.backend_heartbeat(up=True)
        self.age(models.VolumeAttachment, attachment.id, claimed_by=DEAD)
        self.assertEqual(1, self.run_compute())
        self.assertEqual('attached', self.get(attachment.id).attach_status)
        self.assertEqual(1, len(self.hypervisor.list_attachments()))
        self.assertEqual(1, len(self.driver.called('terminate_connection')))

    def test_detach_waits_while_the_backends_manager_is_down(self):
        volume = self.volume()
        attachment = self.attach(volume, 'inst1')
        self.backend_heartbeat(up=False)
        self.assertEqual('detaching',
                         self.detach(attachment.id).attach_status)
        self.age(models.VolumeAttachment, attachment.id)
        self.assertEqual(0, self.run_compute())
        self.backend_heartbeat(up=True)
        self.assertEqual(1, self.run_compute())
        self.assertIsNone(self.get(attachment.id))
        self.assertEqual(1, len(self.driver.called('terminate_connection')))
        self.assertEqual('available', self.status(volume))

    def test_detach_waits_for_the_broker(self):
        # The broker was killed while a detach flow called the backend:
        # the call failed with the broker client's connection error. It
        # was recorded error_detaching, a detach answered 200 that never
        # happened (the disk gone, the connection kept).
        volume = self.volume()
        attachment = self.attach(volume, 'inst1')
        api = self.compute_manager.manager_api
        real = api.terminate_connection
        self.useFixture(fixtures.MockPatchObject(
            api, 'terminate_connection',
            side_effect=kombu.exceptions.OperationalError(
                '[Errno 111] Connection refused')))
        self.assertEqual('detaching',
                         self.detach(attachment.id).attach_status)
        self.assertEqual([], self.hypervisor.list_attachments())
        api.terminate_connection = real
        self.age(models.VolumeAttachment, attachment.id)
        self.assertEqual(1, self.run_compute())
        self.assertIsNone(self.get(attachment.id))
        self.assertEqual(1, len(self.driver.called('terminate_connection')))
        self.assertEqual(set(), self.driver.connections)

    def test_failed_attach_reason_is_recorded(self):
        volume = self.volume()
        self.hypervisor.fail('attach_volume')
        attachment = self.attach(volume, 'inst1')
        self.assertEqual('error_attaching', attachment.attach_status)
        self.assertTrue(attachment.error_reason)

    # Attachments of external consumers

    def test_interrupted_external_delete_is_finished(self):
        volume = self.volume()
        connector = {'host': 'ext-host', 'initiator': None}
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1')
        attachment_db.attachment_update(
            self.admin_context, attachment.id,
            {'attach_status': 'detaching', 'connector': connector,
             'attached_host': 'ext-host'}, expected_status='reserved')
        self.age(models.VolumeAttachment, attachment.id)
        self.assertEqual(0, self.run_compute())
        self.assertEqual(1, self.run_backend())
        self.assertIsNone(self.get(attachment.id))
        self.assertEqual(1, len(self.driver.called('terminate_connection')))

    def test_external_delete_counts_and_terminates_under_the_lock(self):
        events = []

        class RecordingLock:
            def acquire(self):
                events.append('acquire')

            def release(self):
                events.append('release')

        self.useFixture(fixtures.MockPatch(
            'cinder_ma.manager.locks.inter_process_lock_of',
            lambda volume: RecordingLock()))
        terminate = self.driver.terminate_connection

        def recording_terminate(*args, **kwargs):
            events.append('terminate')
            return terminate(*args, **kwargs)

        self.useFixture(fixtures.MockPatchObject(
            self.driver, 'terminate_connection', recording_terminate))
        volume = self.volume()
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1')
        attachment_db.attachment_update(
            self.admin_context, attachment.id,
            {'attach_status': 'detaching',
             'connector': {'host': 'ext-host'},
             'attached_host': 'ext-host'}, expected_status='reserved')
        self.age(models.VolumeAttachment, attachment.id)
        self.assertEqual(1, self.run_backend())
        # The disconnect flow's, released after the run.
        self.assertEqual(['acquire', 'terminate', 'release'], events)
        self.assertIsNone(self.get(attachment.id))

    def test_external_resting_states_are_not_work(self):
        volume = self.volume()
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1')
        self.age(models.VolumeAttachment, attachment.id)
        self.assertEqual(0, self.run_backend())
        self.assertEqual(0, self.run_compute())
        self.assertEqual('reserved', self.get(attachment.id).attach_status)


    # Consumers' flows, run by the backend's manager under a claim whose
    # pending_work says which (issue 22): the process died mid-flow.

    def pending(self, attachment_id, pending, status=None, **values):
        """Leave ``pending`` on an attachment under an expired claim of a
        dead process, as a flow killed half-way leaves it."""
        if status:
            values['attach_status'] = status
        values['pending_work'] = jsonutils.dumps(pending)
        with db_api.main_context_manager.writer.using(self.admin_context):
            self.admin_context.session.execute(
                sa.update(models.VolumeAttachment).where(
                    models.VolumeAttachment.id == attachment_id).values(
                        **values))
        self.age(models.VolumeAttachment, attachment_id,
                 claimed_by='deadworker:token')

    def test_interrupted_one_step_create_is_released(self):
        volume = self.volume()
        connector = {'host': 'ext-host', 'initiator': None}
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1')
        # It died after the backend connected the host.
        self.driver.initialize_connection(self.volumes.ref(volume),
                                          connector, 'rw')
        self.pending(attachment.id, {'op': 'connect', 'kind': 'create',
                                     'connector': connector})
        self.assertEqual(0, self.run_compute())
        self.assertEqual(1, self.run_backend())
        self.assertIsNone(self.get(attachment.id))
        self.assertEqual(set(), self.driver.connections)
        self.assertEqual('available', self.status(volume))

    def test_update_whose_api_died_before_its_call_is_reverted(self):
        # The API's one transaction claimed the attachment with the
        # connect pending; its process died before the call.
        volume = self.volume()
        connector = {'host': 'ext-host', 'initiator': None}
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1')

        class Died(BaseException):
            pass

        with fixtures.MockPatchObject(attachments_api, 'connect',
                                      side_effect=Died):
            self.assertRaises(Died, attachments_api.update_attachment,
                              self.context, attachment.id, connector)
        att = self.get(attachment.id)
        self.assertEqual(
            ('reserved', {'op': 'connect', 'kind': 'update',
                          'connector': connector}),
            (att.attach_status, att.pending_work))
        self.assertTrue(att.claimed_by.startswith('api-'))
        # Its claim expires; the reconcile loop reverts the connect that
        # never ran: the reservation stays, for its consumer.
        self.age(models.VolumeAttachment, attachment.id,
                 claimed_by=att.claimed_by)
        self.assertEqual(1, self.run_backend())
        att = self.get(attachment.id)
        self.assertEqual(('reserved', None, None),
                         (att.attach_status, att.pending_work,
                          att.claimed_by))
        # It connects again.
        self.assertEqual('attaching', attachments_api.update_attachment(
            self.context, attachment.id, connector).attach_status)

    def test_interrupted_update_keeps_the_reservation(self):
        volume = self.volume()
        connector = {'host': 'ext-host', 'initiator': None}
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1')
        self.pending(attachment.id, {'op': 'connect', 'kind': 'update',
                                     'connector': connector})
        self.assertEqual(1, self.run_backend())
        att = self.get(attachment.id)
        self.assertEqual('reserved', att.attach_status)
        self.assertIsNone(att.pending_work)
        self.assertIsNone(att.claimed_by)
        # Terminated in case it was made (idempotent).
        self.assertEqual(1, len(self.driver.called('terminate_connection')))
        # Nothing is pending any more: a resting state again.
        self.assertEqual(0, self.run_backend())

    def test_finished_connect_is_left_as_it_is(self):
        volume = self.volume()
        connector = {'host': 'ext-host', 'initiator': None}
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1')
        # The flow recorded its connection, then died before it released
        # its claim.
        self.pending(attachment.id, {'op': 'connect', 'kind': 'create',
                                     'connector': connector},
                     status='attaching', attached_host='ext-host',
                     connector=jsonutils.dumps(connector),
                     connection_info='{"driver_volume_type": "file"}')
        self.assertEqual(1, self.run_backend())
        att = self.get(attachment.id)
        self.assertEqual('attaching', att.attach_status)
        self.assertIsNone(att.pending_work)
        self.assertEqual([], self.driver.called('terminate_connection'))

    def test_interrupted_terminate_is_finished(self):
        volume = self.volume()
        connector = {'host': 'ext-host', 'initiator': None}
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1')
        self.driver.initialize_connection(self.volumes.ref(volume),
                                          connector, 'rw')
        self.pending(attachment.id, {'op': 'terminate'}, status='attached',
                     attached_host='ext-host',
                     connector=jsonutils.dumps(connector),
                     connection_info='{"driver_volume_type": "file"}')
        self.assertEqual(1, self.run_backend())
        att = self.get(attachment.id)
        self.assertEqual('attached', att.attach_status)
        self.assertIsNone(att.connector)
        self.assertEqual(set(), self.driver.connections)

    def test_live_consumer_flow_is_left_alone(self):
        volume = self.volume()
        attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'inst1')
        self.pending(attachment.id, {'op': 'connect', 'kind': 'update',
                                     'connector': {'host': 'h'}})
        self.hold(models.VolumeAttachment, attachment.id)
        self.assertEqual(0, self.run_backend())
        self.assertIsNotNone(self.get(attachment.id).pending_work)

class WorkDBTestCase(mgr_fixtures.AttachmentTestCase):
    """cinder_ma.db.work on its own."""

    def test_claim_renew_release(self):
        volume = self.volumes.create(status='creating')
        worker = work_db.new_worker_id()
        owner = work_db.owner_token(worker)
        self.assertTrue(work_db.claim(self.admin_context, 'volume',
                                      volume.id, owner, ('creating',), 5))
        other = work_db.owner_token(work_db.new_worker_id())
        self.assertFalse(work_db.claim(self.admin_context, 'volume',
                                       volume.id, other, ('creating',), 5))
        self.assertFalse(work_db.claim(self.admin_context, 'volume',
                                       volume.id, owner, ('deleting',), 5))
        before = work_db.claim_of(self.admin_context, 'volume', volume.id)
        self.assertEqual(1, work_db.renew(self.admin_context, [owner], 60))
        after = work_db.claim_of(self.admin_context, 'volume', volume.id)
        self.assertEqual(owner, after[0])
        self.assertGreater(after[1], before[1])
        # Only the claims of running flows are renewed.
        self.assertEqual(0, work_db.renew(self.admin_context, [other], 60))
        self.assertEqual(0, work_db.renew(self.admin_context, [], 60))
        work_db.release(self.admin_context, 'volume', volume.id, other)
        self.assertEqual(owner, work_db.claim_of(
            self.admin_context, 'volume', volume.id)[0])
        work_db.release(self.admin_context, 'volume', volume.id, owner)
        self.assertEqual((None, None), work_db.claim_of(
            self.admin_context, 'volume', volume.id))
        self.assertEqual(worker, work_db.worker_of(owner))
