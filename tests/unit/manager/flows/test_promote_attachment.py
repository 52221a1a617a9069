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

"""Contract and revert tests of the promotion flows
(cinder_ma/manager/flows/promote_attachment.py): the API's, for an
attachment its consumer connected, and the one the manager of an
attachment's host runs for one it attached. A failure at any step
leaves the decision (the standby is the writer, the old writer fenced),
never two writers with access at the target, and promoting again
finishes the promotion.
"""

import datetime

import fixtures
from oslo_serialization import jsonutils
from oslo_utils import timeutils
import sqlalchemy as sa

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import fencing as fencing_db
from cinder_ma.db import models
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma.db import work as work_db
from cinder_ma import exception
from cinder_ma.manager.flows import promote_attachment
from cinder_ma.manager import manager
from cinder_ma.manager import reconcile
from cinder_ma.manager.tasks import connection as connection_tasks
from cinder_ma.manager.tasks import fencing as fencing_tasks
from cinder_ma.manager.tasks import hypervisor as hypervisor_tasks
from cinder_ma.volume import attachments
from cinder_ma.volume import fencing
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_attach_volume

_SENTINEL = (fencing_tasks.FailureReasonOnRevert,
             {'context', 'attachment_id'}, set(), set())
_REVOKE = (fencing_tasks.RevokeConnections,
           {'manager_api', 'context', 'volume_id', 'volume_host', 'revoke'},
           set(), set())
_INITIALIZE = (connection_tasks.InitializeConnection,
               {'manager_api', 'context', 'volume_id', 'volume_host',
                'connector', 'attach_mode', 'attachment_id', 'host'}, set(),
               {'connection_info'})
_RECORD = (fencing_tasks.RecordPromoted,
           {'context', 'attachment_id', 'generation', 'connection_info',
            'previous_connection_info'}, {'device_info'}, set())
_LOCK = (connection_tasks.AcquireConnectionLock, {'connection_lock'}, set(),
         set())
_UNLOCK = (connection_tasks.ReleaseConnectionLock, {'connection_lock'},
           set(), set())

# The lock is held to the end of the run (released by whoever runs it).
PROMOTE_CONTRACT = [_SENTINEL, _LOCK, _REVOKE, _INITIALIZE, _RECORD]

HOST_PROMOTE_CONTRACT = [
    _SENTINEL,
    (hypervisor_tasks.CheckHypervisor, {'host'}, {'shareable'}, set()),
    (connection_tasks.GetConnectorProperties, {'host'}, set(),
     {'connector'}),
    _LOCK, _REVOKE, _INITIALIZE,
    (connection_tasks.ConnectVolume,
     {'context', 'volume_id', 'attachment_id', 'host',
      'shared_service_uuid', 'connection_info'}, set(), {'device_info'}),
    _RECORD, _UNLOCK,
    (hypervisor_tasks.ReconnectOnHypervisor,
     {'instance_uuid', 'connection_info', 'device_info', 'attachment_id',
      'attach_mode', 'shareable'}, set(), set()),
    (fencing_tasks.DisconnectPrevious,
     {'previous_connection_info', 'device_info', 'attachment_id'}, set(),
     set()),
]

CONNECTOR = {'host': 'consumer1', 'initiator': 'iqn.2026-11.test:c1'}


class ContractTestCase(base.TestCase):

    def test_contracts(self):
        flow = promote_attachment.get_flow()
        self.assertEqual('promote_attachment', flow.name)
        self.assertEqual(PROMOTE_CONTRACT,
                         test_attach_volume.contract_of(flow))
        flow = promote_attachment.get_host_flow(None, None)
        self.assertEqual('promote_attachment_on_host', flow.name)
        self.assertEqual(HOST_PROMOTE_CONTRACT,
                         test_attach_volume.contract_of(flow))

    def test_the_writer_is_revoked_before_the_new_connection(self):
        for flow in (promote_attachment.get_flow(),
                     promote_attachment.get_host_flow(None, None)):
            names = [type(a).__name__ for a in flow]
            if 'ReleaseConnectionLock' not in names:
                names.append('ReleaseConnectionLock')
            guarded = names[names.index('AcquireConnectionLock') + 1:
                            names.index('ReleaseConnectionLock')]
            self.assertLess(guarded.index('RevokeConnections'),
                            guarded.index('InitializeConnection'))
            self.assertIn('RecordPromoted', guarded)


class _Base(mgr_fixtures.AttachmentTestCase):

    DRIVER = mgr_fixtures.PerAttachmentFileDriver

    def setUp(self):
        super().setUp()
        self.one_writer = type_db.volume_type_create(
            self.admin_context, {'name': 'one-writer'},
            extra_specs={'multiattach': '<is> True',
                         'multiattach:writers': 'one'})

    def one_writer_volume(self):
        volume = self.volume(multiattach=True)
        volume_db.volume_update(self.admin_context, volume.id,
                                {'volume_type_id': self.one_writer.id})
        return volume

    def connected(self, volume, mode, instance):
        att = attachments.create_attachment(
            self.service_context, volume.id, instance, mode=mode,
            connector=dict(CONNECTOR, host='consumer-%s' % instance))
        return attachments.complete_attachment(self.service_context,
                                               att.id)

    def assertOneWriterAtTheTarget(self, volume, what):
        writers = [key for key, mode in self.driver.modes.items()
                   if key[0] == volume.id and mode == 'rw']
        self.assertLessEqual(len(writers), 1, what)

    def assertPromoted(self, volume, writer, standby):
        self.assertEqual({(volume.id, standby.id): 'rw'},
                         {k: m for k, m in self.driver.modes.items()
                          if k[0] == volume.id})
        promoted = self.get(standby.id)
        self.assertEqual(('rw', 2, 'rw'),
                         (promoted.attach_mode, promoted.generation,
                          promoted.connection_info['data']['access_mode']))
        old = self.get(writer.id)
        self.assertEqual('ro', old.attach_mode)
        self.assertIsNotNone(old.fenced_at)


class PromoteFlowTestCase(_Base):

    def setUp(self):
        super().setUp()
        self.injector = self.useFixture(mgr_fixtures.FlowInjector(
            promote_attachment, test_attach_volume.FailAfter))

    def test_failure_at_every_step_then_promote_again(self):
        for index in list(range(len(PROMOTE_CONTRACT))) + [None]:
            volume = self.one_writer_volume()
            writer = self.connected(volume, 'rw', 'w%s' % index)
            standby = self.connected(volume, 'ro', 's%s' % index)
            self.injector.fail_at(index)
            failed = self.injector.failed
            self.assertRaises(exception.DriverError,
                              fencing.promote_attachment,
                              self.admin_context, standby.id)
            self.assertOneWriterAtTheTarget(volume, failed)
            after = self.get(standby.id)
            self.assertEqual(('rw', 2), (after.attach_mode,
                                         after.generation), failed)
            self.assertIn('Promotion failed', after.error_reason, failed)
            # Its recorded connection is the previous one: unfinished.
            self.assertEqual(
                'ro', after.connection_info['data']['access_mode'], failed)
            fencing.promote_attachment(self.admin_context, standby.id)
            self.assertPromoted(volume, writer, standby)


class HostPromoteFlowTestCase(_Base):

    def setUp(self):
        super().setUp()
        self.injector = self.useFixture(mgr_fixtures.FlowInjector(
            promote_attachment, test_attach_volume.FailAfter,
            factory='get_host_flow'))

    def test_failure_at_every_step_then_promote_again(self):
        for index in list(range(len(HOST_PROMOTE_CONTRACT))) + [None]:
            volume = self.one_writer_volume()
            writer = self.attach(volume, 'w%s' % index, mode='rw')
            instance = 's%s' % index
            standby = self.attach(volume, instance, mode='ro')
            self.injector.fail_at(index)
            failed = self.injector.failed
            self.assertRaises(exception.DriverError,
                              fencing.promote_attachment,
                              self.admin_context, standby.id)
            self.assertOneWriterAtTheTarget(volume, failed)
            after = self.get(standby.id)
            self.assertEqual('rw', after.attach_mode, failed)
            self.assertIn('Promotion failed', after.error_reason, failed)
            # The instance kept its disk whatever failed.
            self.assertEqual(1, len(self.hypervisor.list_attachments(
                instance)), failed)
            fencing.promote_attachment(self.admin_context, standby.id)
            self.assertPromoted(volume, writer, standby)
            (record,) = self.hypervisor.list_attachments(instance)
            self.assertEqual('rw', record['mode'], failed)
        self.assertEqual([], self.hypervisor.called('detach_volume'))


class HostPromoteClaimTestCase(_Base):
    """The host's promotion runs under a claim on the attachment that
    records it in ``pending_work``, so that the reconcile loop runs it
    again when the process dies (simulated by what it leaves: the
    decision recorded, the flow not run, an expired claim)."""

    def setUp(self):
        super().setUp()
        self.conf.set_override('work_lease_time', 30, 'manager')

    def writer_and_standby(self):
        volume = self.one_writer_volume()
        writer = self.attach(volume, 'w', mode='rw')
        standby = self.attach(volume, 's', mode='ro')
        return volume, writer, standby

    def decide(self, writer, standby):
        """What fencing.promote_attachment records before it calls the
        manager of the standby's host."""
        fencing_db.attachment_promote(self.admin_context, standby.id,
                                      standby.generation, [writer.id])

    def claim(self, attachment_id):
        attachment = attachment_db.attachment_get(self.admin_context,
                                                  attachment_id)
        return (work_db.claim_of(self.admin_context, 'attachment',
                                 attachment_id)[0], attachment.pending_work)

    def test_claim_held_while_the_flow_runs_then_released(self):
        volume, writer, standby = self.writer_and_standby()
        seen = []
        run = manager.Manager._run_attachment_flow

        def recording(mgr, factory, store, lock):
            seen.append(self.claim(store['attachment_id']))
            return run(mgr, factory, store, lock)

        self.useFixture(fixtures.MockPatchObject(
            manager.Manager, '_run_attachment_flow', recording))
        fencing.promote_attachment(self.admin_context, standby.id)
        ((owner, pending),) = seen
        self.assertEqual(self.compute_manager.worker_id,
                         work_db.worker_of(owner))
        self.assertEqual({'op': 'promote', 'revoke_ids': [writer.id]},
                         pending)
        self.assertEqual((None, None), self.claim(standby.id))
        self.assertEqual(set(), self.compute_manager._running_claims())
        self.assertPromoted(volume, writer, standby)

    def test_claim_released_when_the_flow_fails(self):
        volume, writer, standby = self.writer_and_standby()
        injector = self.useFixture(mgr_fixtures.FlowInjector(
            promote_attachment, test_attach_volume.FailAfter,
            factory='get_host_flow'))
        injector.fail_at(len(HOST_PROMOTE_CONTRACT) - 1)
        self.assertRaises(exception.DriverError, fencing.promote_attachment,
                          self.admin_context, standby.id)
        self.assertEqual((None, None), self.claim(standby.id))

    def test_reconcile_runs_an_interrupted_promotion_again(self):
        volume, writer, standby = self.writer_and_standby()
        self.decide(writer, standby)
        # The manager died in its flow: the decision stands, the old
        # writer's connection is still there, its claim expired.
        self.assertIn((volume.id, writer.id), self.driver.modes)
        past = timeutils.utcnow() - datetime.timedelta(hours=1)
        with db_api.main_context_manager.writer.using(self.admin_context):
            self.admin_context.session.execute(
                sa.update(models.VolumeAttachment).where(
                    models.VolumeAttachment.id == standby.id).values(
                    pending_work=jsonutils.dumps(
                        {'op': 'promote', 'revoke_ids': [writer.id]}),
                    claimed_by='deadworker:token', claimed_until=past))
        # Not the backend's manager's work: the host's.
        self.assertEqual(0, reconcile.reconcile(self.backend_manager,
                                                self.admin_context))
        self.assertEqual(1, reconcile.reconcile(self.compute_manager,
                                                self.admin_context))
        self.assertPromoted(volume, writer, standby)
        (record,) = self.hypervisor.list_attachments('s')
        self.assertEqual('rw', record['mode'])
        self.assertEqual((None, None), self.claim(standby.id))
        # Nothing left to do.
        self.assertEqual(0, reconcile.reconcile(self.compute_manager,
                                                self.admin_context))

    def test_a_promotion_raced_by_another_claim_is_refused(self):
        volume, writer, standby = self.writer_and_standby()
        future = timeutils.utcnow() + datetime.timedelta(hours=1)
        with db_api.main_context_manager.writer.using(self.admin_context):
            self.admin_context.session.execute(
                sa.update(models.VolumeAttachment).where(
                    models.VolumeAttachment.id == standby.id).values(
                    claimed_by='liveworker:token', claimed_until=future))
        self.useFixture(fixtures.MockPatchObject(
            manager, 'CLAIM_HANDOVER_WAIT', 0.2))
        # As any claimed flow's endpoint: 409, nothing done at the
        # target (the decision stands: promoting again finishes it).
        self.assertRaises(exception.Conflict, fencing.promote_attachment,
                          self.admin_context, standby.id)
        self.assertEqual('rw', self.get(standby.id).attach_mode)
        self.assertIn((volume.id, writer.id), self.driver.modes)
        self.assertEqual(('liveworker:token', None), self.claim(standby.id))
        # Nor does the reconcile loop take a live claim's work.
        self.assertEqual(0, reconcile.reconcile(self.compute_manager,
                                                self.admin_context))
