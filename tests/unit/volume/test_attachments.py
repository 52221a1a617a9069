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

"""Tests of the attachment rules (cinder_ma.volume.attachments, actions).

The managers are out of scope here: their RPC client is replaced by a
recorder that hands back a connection_info as a backend would (the manager
side and the functional tests exercise the real thing).
"""

import datetime
import logging

import fixtures
from oslo_utils import timeutils
import sqlalchemy as sa

from cinder_ma import context as cm_context
from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import models
from cinder_ma.db import services as service_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager import reconcile
from cinder_ma.manager import rpcapi
from cinder_ma.volume import actions
from cinder_ma.volume import api as volume_api
from cinder_ma.volume import attachments
from cinder_ma.volume import types as vtypes
from tests import base
from tests import fixtures as cm_fixtures
from tests.unit.api import base as api_base
from tests.unit.manager import fixtures as mgr_fixtures


def RecordingRPC():
    """The API tests' recorder (backend node1@file): the flows of
    consumers' attachments run in a real manager of that node, what they
    ask of the backend is recorded and answered."""
    return api_base.RecordingRPC('node1@file')


class AttachmentBase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        vtypes.ensure_default_type(self.admin_context)
        self.shared_type = vtypes.create_type(
            self.admin_context, 'shared',
            extra_specs={'multiattach': '<is> True'})
        self.rpc = RecordingRPC()
        self.useFixture(fixtures.MockPatchObject(
            volume_api, '_rpc', lambda: self.rpc))
        self.useFixture(fixtures.MockPatchObject(
            attachments, '_rpc', lambda: self.rpc))
        self.make_backend('node1@file')
        # This cloud lets its projects use multiattach types.
        self.set_policy_rules({'volume:multiattach':
                               'rule:context_is_admin or '
                               'rule:project_member_api'})
        self.service = cm_context.RequestContext(
            user_id='nova', project_id='fake-project',
            roles=['member', 'reader'], service_roles=['service'])

    def _volume(self, shared=False):
        vol = volume_api.create_volume(
            self.context, 1, volume_type='shared' if shared else None)
        return volume_db.volume_update(self.context, vol.id,
                                       {'status': 'available'})

    def _attach(self, volume, instance, host='compute1', mode='rw'):
        att = attachments.create_attachment(
            self.service, volume.id, instance, mode=mode,
            connector={'host': host, 'initiator': 'iqn.x'})
        return attachments.complete_attachment(self.service, att.id)


class AttachmentRulesTestCase(AttachmentBase):

    def test_cinder_flow(self):
        vol = self._volume()
        att = attachments.create_attachment(self.context, vol.id, 'i1')
        self.assertEqual('reserved', att.attach_status)
        att = attachments.update_attachment(self.context, att.id,
                                            {'host': 'compute1'})
        self.assertEqual('attaching', att.attach_status)
        info = att.connection_info
        # Inside, the backend's nested form (the API's view flattens it).
        self.assertEqual('rw', info['data']['access_mode'])
        self.assertEqual(att.id, info['attachment_id'])
        attachments.complete_attachment(self.context, att.id)
        self.assertEqual('in-use',
                         volume_api.get_volume(self.context, vol.id).status)

    def test_create_reads_and_reserves_in_one_transaction(self):
        vol = self._volume(shared=True)
        attachments.create_attachment(self.context, vol.id, 'i1')
        begins = self.useFixture(
            cm_fixtures.TransactionCounter(this_thread=True))
        # The volume, its backend's capabilities, its type's extra specs
        # and the reservation in one writer transaction.
        att = attachments.create_attachment(self.context, vol.id, 'i2')
        self.assertEqual('reserved', att.attach_status)
        self.assertEqual(1, begins.count)

    def test_complete_is_one_transaction(self):
        vol = self._volume(shared=True)
        att = attachments.create_attachment(
            self.context, vol.id, 'i1', connector={'host': 'compute1'})
        begins = self.useFixture(
            cm_fixtures.TransactionCounter(this_thread=True))
        # Read, authorized and completed in one writer transaction.
        att = attachments.complete_attachment(self.context, att.id)
        self.assertEqual('attached', att.attach_status)
        self.assertEqual(1, begins.count)

    def test_complete_refused_by_policy_changes_nothing(self):
        vol = self._volume(shared=True)
        att = attachments.create_attachment(
            self.context, vol.id, 'i1', connector={'host': 'compute1'})
        self.set_policy_rules({'volume:attachment_complete': '!'})
        self.assertRaises(exception.PolicyNotAuthorized,
                          attachments.complete_attachment, self.context,
                          att.id)
        self.assertEqual('attaching', attachments.get_attachment(
            self.context, att.id).attach_status)

    def test_ro_mode_in_connection_info(self):
        vol = self._volume(shared=True)
        att = attachments.create_attachment(
            self.context, vol.id, 'i1', mode='ro',
            connector={'host': 'compute1'})
        info = att.connection_info
        self.assertEqual('ro', info['data']['access_mode'])
        self.assertEqual(('initialize_connection', vol.id, vol.host,
                          {'host': 'compute1'}, 'ro'), self.rpc.calls[-1])

    def test_create_with_connector_failure_releases_reservation(self):
        vol = self._volume()
        self._attach(vol, 'i1', host='compute1')
        # A second reservation for i1 is fine, but connecting it on the
        # host where i1 already has the volume is refused ...
        self.assertRaises(exception.Conflict, attachments.create_attachment,
                          self.context, vol.id, 'i1',
                          connector={'host': 'compute1'})
        # ... and leaves no reservation behind.
        live = attachment_db.attachment_get_all(
            self.context, filters={'volume_id': vol.id})
        self.assertEqual(1, len(live))
        self.assertEqual('in-use',
                         volume_api.get_volume(self.context, vol.id).status)

    def test_bad_mode(self):
        vol = self._volume()
        self.assertRaises(exception.InvalidInput,
                          attachments.create_attachment, self.context,
                          vol.id, 'i1', mode='wr')

    def test_second_instance_refused_on_plain_volume(self):
        vol = self._volume()
        self._attach(vol, 'i1')
        exc = self.assertRaises(exception.InvalidVolume,
                                attachments.create_attachment, self.context,
                                vol.id, 'i2')
        self.assertEqual(400, exc.code)
        self.assertIn('not multiattach', str(exc))

    def test_double_attach_same_host_refused(self):
        vol = self._volume()
        self._attach(vol, 'i1', host='compute1')
        second = attachments.create_attachment(self.context, vol.id, 'i1')
        exc = self.assertRaises(exception.Conflict,
                                attachments.update_attachment, self.context,
                                second.id, {'host': 'compute1'})
        self.assertEqual(409, exc.code)
        # Live migration: the same instance on another host is fine.
        attachments.update_attachment(self.context, second.id,
                                      {'host': 'compute2'})

    def test_connected_attachment_delete_needs_service(self):
        vol = self._volume()
        att = self._attach(vol, 'i1')
        exc = self.assertRaises(exception.Conflict,
                                attachments.delete_attachment, self.context,
                                att.id)
        self.assertIn('only the service', str(exc))
        self.assertRaises(exception.Conflict, attachments.delete_attachment,
                          self.admin_context, att.id)
        attachments.delete_attachment(self.service, att.id)
        self.assertEqual('available',
                         volume_api.get_volume(self.context, vol.id).status)
        self.assertEqual('terminate_connection', self.rpc.calls[-1][0])

    def test_reserved_attachment_user_can_delete(self):
        vol = self._volume()
        att = attachments.create_attachment(self.context, vol.id, 'i1')
        attachments.delete_attachment(self.context, att.id)
        self.assertEqual('available',
                         volume_api.get_volume(self.context, vol.id).status)
        self.assertNotIn('terminate_connection',
                         [c[0] for c in self.rpc.calls])

    def test_shared_connection_kept_until_last(self):
        vol = self._volume(shared=True)
        a1 = self._attach(vol, 'i1', host='compute1')
        a2 = self._attach(vol, 'i2', host='compute1')
        attachments.delete_attachment(self.service, a1.id)
        self.assertNotIn('terminate_connection',
                         [c[0] for c in self.rpc.calls])
        self.assertEqual('in-use',
                         volume_api.get_volume(self.context, vol.id).status)
        attachments.delete_attachment(self.service, a2.id)
        self.assertEqual('terminate_connection', self.rpc.calls[-1][0])

    def test_force_detach(self):
        vol = self._volume()
        self._attach(vol, 'i1')
        self.assertRaises(exception.PolicyNotAuthorized,
                          attachments.force_detach, self.context, vol.id)
        attachments.force_detach(self.admin_context, vol.id)
        self.assertEqual('available',
                         volume_api.get_volume(self.context, vol.id).status)

    def test_other_project_cannot_attach_or_see(self):
        vol = self._volume()
        att = attachments.create_attachment(self.context, vol.id, 'i1')
        other = cm_context.RequestContext(user_id='u', project_id='p2',
                                          roles=['member', 'reader'])
        self.assertRaises(exception.VolumeNotFound,
                          attachments.create_attachment, other, vol.id, 'i9')
        self.assertRaises(exception.VolumeAttachmentNotFound,
                          attachments.get_attachment, other, att.id)
        self.assertEqual([], attachments.list_attachments(other))

    def test_max_attachments_spec(self):
        vtypes.update_extra_specs(self.admin_context, self.shared_type.id,
                                  {'multiattach:max_attachments': '2'})
        vol = self._volume(shared=True)
        attachments.create_attachment(self.context, vol.id, 'i1')
        attachments.create_attachment(self.context, vol.id, 'i2')
        exc = self.assertRaises(exception.InvalidVolume,
                                attachments.create_attachment, self.context,
                                vol.id, 'i3')
        self.assertIn('already has 2 attachments: at most 2 are allowed '
                      '(multiattach:max_attachments of its volume type)',
                      str(exc))

    def test_configured_cap(self):
        self.flags(max_attachments_per_volume=2)
        # The type's spec does not raise it.
        vtypes.update_extra_specs(self.admin_context, self.shared_type.id,
                                  {'multiattach:max_attachments': '5'})
        vol = self._volume(shared=True)
        attachments.create_attachment(self.context, vol.id, 'i1')
        attachments.create_attachment(self.context, vol.id, 'i2')
        exc = self.assertRaises(exception.InvalidVolume,
                                attachments.create_attachment, self.context,
                                vol.id, 'i3')
        self.assertIn('at most 2 are allowed ([DEFAULT] '
                      'max_attachments_per_volume)', str(exc))

    def test_configured_cap_of_a_volume_that_is_not_shareable(self):
        """Its one instance's attachments (live migration) count."""
        self.flags(max_attachments_per_volume=2)
        vol = self._volume()
        attachments.create_attachment(self.context, vol.id, 'i1')
        attachments.create_attachment(self.context, vol.id, 'i1')
        exc = self.assertRaises(exception.InvalidVolume,
                                attachments.create_attachment, self.context,
                                vol.id, 'i1')
        self.assertIn('at most 2 are allowed', str(exc))

    def test_attachment_cap(self):
        vol = self._volume(shared=True)
        self.assertEqual((64, attachments.CAP_OPTION),
                         attachments.attachment_cap(vol, {}))
        for value in ('0', '-1', 'x', '64', '100'):
            self.assertEqual((64, attachments.CAP_OPTION),
                             attachments.attachment_cap(vol, {
                                 'multiattach:max_attachments': value}))
        self.assertEqual((3, attachments.CAP_SPEC),
                         attachments.attachment_cap(vol, {
                             'multiattach:max_attachments': '3'}))

    def test_bootable_shared_needs_policy(self):
        # Members may by default (as in Cinder); the rule is enforced.
        self.set_policy_rules({'volume:multiattach_bootable_volume':
                               'rule:admin_api'})
        vol = self._volume(shared=True)
        volume_db.volume_update(self.context, vol.id, {'bootable': True})
        attachments.create_attachment(self.context, vol.id, 'i1')
        self.assertRaises(exception.PolicyNotAuthorized,
                          attachments.create_attachment, self.context,
                          vol.id, 'i2')
        attachments.create_attachment(self.admin_context, vol.id, 'i2')

    def test_members_attach_bootable_shared_by_default(self):
        vol = self._volume(shared=True)
        volume_db.volume_update(self.context, vol.id, {'bootable': True})
        attachments.create_attachment(self.context, vol.id, 'i1')
        attachments.create_attachment(self.context, vol.id, 'i2')

    def test_bootable_shared_reserve_and_attach_need_policy(self):
        self.set_policy_rules({'volume:multiattach_bootable_volume':
                               'rule:admin_api'})
        vol = self._volume(shared=True)
        volume_db.volume_update(self.context, vol.id, {'bootable': True})
        actions.attach(self.context, vol.id, instance_uuid='i1')
        # Neither a legacy reservation nor the os-attach that uses it
        # gets around the bootable rule.
        self.assertRaises(exception.PolicyNotAuthorized, actions.reserve,
                          self.context, vol.id)
        self.assertRaises(exception.PolicyNotAuthorized, actions.attach,
                          self.context, vol.id, instance_uuid='i2')

    def test_attach_to_host_refused_without_multiattach_hypervisor(self):
        vol = self._volume(shared=True)
        service = service_db.service_create(self.admin_context, {
            'host': 'compute1', 'binary': 'cinder-ma-manager',
            'topic': 'cinder-ma-manager'})
        service_db.service_update(self.admin_context, service.id, {
            'heartbeat_at': db_api.utcnow(),
            'capabilities': {'hypervisor': {
                'driver': 'plain', 'supports_multiattach': False,
                'reports_instance_owner': True}}})
        exc = self.assertRaises(exception.InvalidVolume,
                                attachments.create_attachment, self.context,
                                vol.id, 'i1', instance_host='compute1')
        self.assertIn('plain', str(exc))
        self.assertIn('does not support multiattach', str(exc))
        self.assertEqual([], attachment_db.attachment_get_all(self.context))
        self.assertEqual([], [c for c in self.rpc.calls
                              if c[0] not in ('create_volume',
                                              'get_instance_owner')])


class LegacyActionsTestCase(AttachmentBase):

    def test_reserve_attach_detach(self):
        vol = self._volume()
        actions.reserve(self.context, vol.id)
        self.assertEqual('reserved',
                         volume_api.get_volume(self.context, vol.id).status)
        actions.unreserve(self.context, vol.id)
        self.assertEqual('available',
                         volume_api.get_volume(self.context, vol.id).status)
        actions.reserve(self.context, vol.id)
        att = actions.attach(self.context, vol.id, instance_uuid='i1',
                             mountpoint='/dev/vdb', mode='ro')
        self.assertEqual(('attached', 'ro', '/dev/vdb'),
                         (att.attach_status, att.attach_mode,
                          att.mountpoint))
        actions.begin_detaching(self.context, vol.id)
        self.assertEqual('detaching',
                         volume_api.get_volume(self.context, vol.id).status)
        actions.roll_detaching(self.context, vol.id)
        self.assertEqual('in-use',
                         volume_api.get_volume(self.context, vol.id).status)
        actions.detach(self.context, vol.id)
        self.assertEqual('available',
                         volume_api.get_volume(self.context, vol.id).status)

    def test_detach_needs_id_with_several(self):
        vol = self._volume(shared=True)
        a1 = actions.attach(self.context, vol.id, instance_uuid='i1')
        actions.attach(self.context, vol.id, instance_uuid='i2')
        exc = self.assertRaises(exception.InvalidVolume, actions.detach,
                                self.context, vol.id)
        self.assertEqual(400, exc.code)
        self.assertIn('attachment_id', str(exc))
        actions.detach(self.context, vol.id, a1.id)
        self.assertEqual('in-use',
                         volume_api.get_volume(self.context, vol.id).status)


class AttachmentNotificationsTestCase(AttachmentBase):
    """attach.start/end and detach.start/end of the attachments API."""

    def setUp(self):
        super().setUp()
        from tests.unit.manager import fixtures as mgr_fixtures
        self.sent = self.useFixture(
            mgr_fixtures.Notifications(self.conf)).sent
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))

    def test_cinder_flow_notifications(self):
        vol = self._volume(shared=True)
        att = self._attach(vol, 'i1', host='compute1', mode='ro')
        attachments.delete_attachment(self.service, att.id)
        events = [event for event, _payload in self.sent()]
        self.assertEqual(['volume.attach.start', 'volume.attach.end',
                          'volume.detach.start', 'volume.detach.end'],
                         events)
        payload = self.sent()[1][1]
        self.assertEqual({'volume_id': vol.id, 'attachment_id': att.id,
                          'instance_uuid': 'i1', 'host': 'compute1',
                          'mode': 'ro'},
                         {k: payload[k] for k in (
                             'volume_id', 'attachment_id', 'instance_uuid',
                             'host', 'mode')})


class ExitThroughHostTestCase(mgr_fixtures.AttachmentTestCase):
    """Force-detach, force-delete and a service's delete of an attachment
    made through a manager run the detach flow on its host; when that
    manager is down they record it for its return, or refuse."""

    def host_down(self, host=None):
        service = service_db.service_get_by_host_and_binary(
            self.admin_context, host or self.COMPUTE, 'cinder-ma-manager')
        service_db.service_update(self.admin_context, service.id, {
            'heartbeat_at': timeutils.utcnow() - datetime.timedelta(
                hours=1)})

    def test_force_detach_of_attaching_goes_through_the_host(self):
        volume = self.volume()
        attachment = self.attach(volume, 'inst1')
        # Stuck half-way: the disk is on the instance.
        attachment_db.attachment_update(
            self.admin_context, attachment.id,
            {'attach_status': 'attaching'}, expected_status='attached')
        attachments.force_detach(self.admin_context, volume.id,
                                 attachment.id)
        self.settle()
        self.assertIsNone(self.get(attachment.id))
        self.assertEqual([], self.hypervisor.list_attachments())
        self.assertEqual(1, len(self.hypervisor.called('detach_volume')))

    def test_force_detach_with_the_host_down_waits_for_it(self):
        volume = self.volume()
        attachment = self.attach(volume, 'inst1')
        self.host_down()
        attachments.force_detach(self.admin_context, volume.id,
                                 attachment.id)
        self.settle()
        # Recorded, not gone: the disk is still on the instance.
        self.assertEqual('detaching', self.get(attachment.id).attach_status)
        self.assertEqual(1, len(self.hypervisor.list_attachments()))
        # The host's manager is back: its reconcile loop detaches it.
        self.conf.set_override('work_lease_time', 2, 'manager')
        with db_api.main_context_manager.writer.using(self.admin_context):
            self.admin_context.session.execute(
                sa.update(models.VolumeAttachment).where(
                    models.VolumeAttachment.id == attachment.id).values(
                    updated_at=timeutils.utcnow() -
                    datetime.timedelta(hours=1)))
        reconcile.reconcile(self.compute_manager, self.admin_context)
        self.assertIsNone(self.get(attachment.id))
        self.assertEqual([], self.hypervisor.list_attachments())

    def test_force_delete_with_the_host_down_refuses(self):
        volume = self.volume()
        attachment = self.attach(volume, 'inst1')
        self.host_down()
        exc = self.assertRaises(exception.ManagerUnavailable,
                                actions.force_delete, self.admin_context,
                                volume.id)
        self.assertIn(self.COMPUTE, str(exc))
        self.assertEqual('attached', self.get(attachment.id).attach_status)
        self.assertEqual('in-use', self.status(volume))

    def test_force_delete_detaches_through_the_host(self):
        volume = self.volume()
        self.attach(volume, 'inst1')
        actions.force_delete(self.admin_context, volume.id)
        self.settle()
        self.assertEqual([], self.hypervisor.list_attachments())
        self.assertRaises(exception.VolumeNotFound, volume_db.volume_get,
                          self.admin_context, volume.id)


class StatementsPerRequestTestCase(mgr_fixtures.AttachmentTestCase):
    """The transactions and statements of each attachment request, all
    of it real: the rules, the manager of the volume's backend over the
    in-process RPC transport, its flows and its driver (recording files).
    A change that adds a transaction or a statement to one of them fails
    here: the attach cycle is the hot path (docs/contributor/
    performance.rst). Counted on SQLite."""

    CONNECTOR = {'host': 'consumer1', 'initiator': 'iqn.2026-11.test:c1'}

    def setUp(self):
        super().setUp()
        self.vol = self.volume(multiattach=True)
        # A first attachment: the ones counted are not the volume's first.
        first = attachments.create_attachment(
            self.service_context, self.vol.id, 'i0',
            connector=self.CONNECTOR)
        attachments.complete_attachment(self.service_context, first.id)

    def count(self, request, *args, **kwargs):
        counter = cm_fixtures.TransactionCounter(this_thread=True)
        counter.setUp()
        try:
            result = request(self.service_context, *args, **kwargs)
        finally:
            counter.cleanUp()
        self.statements = counter.statements
        return result, counter.count, len(counter.statements)

    def assertCounted(self, transactions, statements, counted):
        self.assertEqual((transactions, statements), counted[1:],
                         '\n'.join(self.statements))

    def test_create(self):
        # Read the volume (and its type's specs) and reserve, in one
        # transaction.
        self.assertCounted(1, 6, self.count(
            attachments.create_attachment, self.vol.id, 'i1'))

    def test_create_with_connector(self):
        # Read, checked (no other connection of the instance on that
        # host) and reserved with the claim of its connect flow and the
        # QoS specs for its backend, in one transaction; the manager
        # adopts the claim with the records (nothing read again) and
        # gives it up in its last write, a compare-and-swap on it.
        self.assertCounted(2, 11, self.count(
            attachments.create_attachment, self.vol.id, 'i1',
            connector=self.CONNECTOR))

    def test_update(self):
        att = attachments.create_attachment(self.service_context,
                                            self.vol.id, 'i1')
        # Read, checked and claimed, with the QoS specs for its backend;
        # recorded connected (the claim adopted, not read again).
        self.assertCounted(2, 8, self.count(
            attachments.update_attachment, att.id, self.CONNECTOR))

    def test_update_without_records(self):
        # A manager older than 1.9: it takes the claim over and reads the
        # records itself, as before.
        self.useFixture(fixtures.MockPatchObject(
            rpcapi.ManagerAPI, '_with_records',
            lambda self, kwargs, records: '1.8'))
        att = attachments.create_attachment(self.service_context,
                                            self.vol.id, 'i1')
        att = self.count(attachments.update_attachment, att.id,
                         self.CONNECTOR)[0]
        self.assertEqual('attaching', att.attach_status)
        self.assertIsNone(attachment_db.attachment_get(
            self.service_context, att.id).claimed_by)

    def test_complete(self):
        att = attachments.create_attachment(
            self.service_context, self.vol.id, 'i1',
            connector=self.CONNECTOR)
        self.assertCounted(1, 4, self.count(
            attachments.complete_attachment, att.id))

    def test_delete(self):
        att = attachments.create_attachment(
            self.service_context, self.vol.id, 'i1',
            connector=self.CONNECTOR)
        attachments.complete_attachment(self.service_context, att.id)
        # Another attachment (i0's) uses the connection on its host:
        # read, authorized and deleted in one transaction, which finds
        # that user under the volume's row lock; no manager.
        self.assertCounted(1, 6, self.count(
            attachments.delete_attachment, att.id))

    def test_delete_last_user_of_the_host(self):
        att = attachments.create_attachment(
            self.service_context, self.vol.id, 'i1',
            connector=dict(self.CONNECTOR, host='consumer2'))
        attachments.complete_attachment(self.service_context, att.id)
        # Recorded detaching with the claim the manager adopts (with the
        # records); under the connection lock, the count of the other
        # users (none); the backend's connection terminated; deleted, a
        # compare-and-swap on the claim.
        self.assertCounted(3, 9, self.count(
            attachments.delete_attachment, att.id))

    def test_delete_when_the_other_user_left(self):
        # The prediction from the answer (another user on the host) does
        # not hold under the volume's row lock: rolled back, then as the
        # last user's delete (the connection ended).
        att = attachments.create_attachment(
            self.service_context, self.vol.id, 'i1',
            connector=dict(self.CONNECTOR, host='consumer2'))
        attachments.complete_attachment(self.service_context, att.id)
        self.useFixture(fixtures.MockPatchObject(
            attachment_db, 'is_stable_user', return_value=True))
        self.driver.calls.clear()
        self.assertCounted(4, 13, self.count(
            attachments.delete_attachment, att.id))
        self.assertRaises(exception.VolumeAttachmentNotFound,
                          attachment_db.attachment_get,
                          self.service_context, att.id)
        self.assertIn(('terminate_connection', self.vol.id, 'consumer2'),
                      self.driver.calls)

    def test_update_handed_over_late(self):
        # A claim that does not hold long enough any more when the
        # manager gets it (a message that waited): taken over and read
        # again there, as from an older API.
        self.conf.set_override('report_interval', 60, group='manager')
        att = attachments.create_attachment(self.service_context,
                                            self.vol.id, 'i1')
        att, transactions, _ = self.count(
            attachments.update_attachment, att.id, self.CONNECTOR)
        self.assertEqual(('attaching', 3), (att.attach_status, transactions))

    def test_delete_reserved(self):
        att = attachments.create_attachment(self.service_context,
                                            self.vol.id, 'i1')
        # No connection to end: deleted in its one transaction.
        self.assertCounted(1, 5, self.count(
            attachments.delete_attachment, att.id))

    def test_cycle_logs_each_step_once(self):
        # At info level, each by the process that did it: the API what
        # it alone does, the manager of the backend the connect and the
        # delete (not the backend call of its own flow again).
        logger = self.useFixture(fixtures.FakeLogger(level=logging.INFO))
        ctx = self.service_context
        att = attachments.create_attachment(ctx, self.vol.id, 'i1')
        attachments.update_attachment(ctx, att.id, {'host': 'consumer2'})
        attachments.complete_attachment(ctx, att.id)
        attachments.delete_attachment(ctx, att.id)
        lines = logger.output.splitlines()
        expected = [
            'Reserved attachment %s' % att.id,
            'Connected attachment %s' % att.id,
            'Attachment %s of volume %s is attached' % (att.id, self.vol.id),
            'Terminated the connection of volume %s to host consumer2' %
            self.vol.id,
            'Deleted attachment %s' % att.id]
        self.assertEqual(
            expected, [line[:len(start)]
                       for line, start in zip(lines, expected)], lines)
        self.assertEqual(len(expected), len(lines), lines)
