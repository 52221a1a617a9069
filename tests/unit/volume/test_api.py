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

"""Tests of the volume rules (cinder_ma.volume.api) on a real SQLite DB.

The manager is out of scope here: its RPC client is replaced by a recorder
(the manager side has its own tests, and functional tests run both).
"""

import fixtures

from cinder_ma import context as cm_context
from cinder_ma.db import api as db_api
from cinder_ma.db import messages as message_db
from cinder_ma.db import models
from cinder_ma.db import services as service_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.volume import api as volume_api
from cinder_ma.volume import types as vtypes
from tests import base


class RecordingRPC:

    def __init__(self, fail=False):
        self.calls = []
        self.fail = fail

    def create_volume(self, context, volume_id, host):
        self.calls.append(('create_volume', volume_id, host))
        if self.fail:
            raise RuntimeError('broker down')

    def delete_volume(self, context, volume_id, host):
        self.calls.append(('delete_volume', volume_id, host))
        if self.fail:
            raise RuntimeError('broker down')

    def extend_volume(self, context, volume_id, host, new_size):
        self.calls.append(('extend_volume', volume_id, host, new_size))
        if self.fail:
            raise RuntimeError('broker down')


class VolumeTestBase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        vtypes.ensure_default_type(self.admin_context)
        self.rpc = RecordingRPC()
        self.useFixture(fixtures.MockPatchObject(
            volume_api, '_rpc', lambda: self.rpc))
        self.backend = self.make_backend('node1@file')


class VolumeAPITestCase(VolumeTestBase):

    def test_create_places_and_casts(self):
        vol = volume_api.create_volume(self.context, 2, name='v1',
                                       metadata={'k': 'v'})
        self.assertEqual('creating', vol.status)
        self.assertEqual('node1@file#file', vol.host)
        self.assertEqual(self.backend.uuid, vol.service_uuid)
        self.assertFalse(vol.multiattach)
        self.assertEqual('__DEFAULT__', vol.volume_type.name)
        self.assertEqual([('create_volume', vol.id, 'node1@file#file')],
                         self.rpc.calls)

    def test_create_rpc_failure_keeps_the_request(self):
        self.rpc.fail = True
        vol = volume_api.create_volume(self.context, 1)
        # Recorded: the reconcile loop runs it (tests/unit/manager).
        self.assertEqual('creating', vol.status)

    def test_create_no_backend_is_an_error_volume_with_a_message(self):
        service_db.service_update(self.admin_context, self.backend.id,
                                  {'disabled': True})
        vol = volume_api.create_volume(self.context, 1)
        # As Cinder: the volume is in error, never placed, nothing cast.
        self.assertEqual(('error', None), (vol.status, vol.host))
        self.assertEqual([], self.rpc.calls)
        # Administrators read where the backends are; the user does not.
        self.assertIn('node1@file is disabled', vol.error_reason)
        message, = message_db.message_get_all(self.admin_context)
        self.assertEqual(
            ('fake-project', vol.id, 'VOLUME_VOLUME_001_003'),
            (message.project_id, message.resource_uuid, message.event_id))
        self.assertEqual('schedule allocate volume:Could not find any '
                         'available weighted backend.',
                         message.user_message)
        # The volume is charged, and deleted without a backend.
        volume_api.delete_volume(self.context, vol.id)
        self.assertEqual(0, volume_db.volume_count(self.admin_context))

    def test_multiattach_type(self):
        vtypes.create_type(self.admin_context, 'shared',
                           extra_specs={'multiattach': '<is> True'})
        # Members may by default, as in Cinder: the type is the gate ...
        vol = volume_api.create_volume(self.context, 1,
                                       volume_type='shared')
        self.assertTrue(vol.multiattach)
        # ... and a cloud may keep volume:multiattach to admins.
        self.set_policy_rules({'volume:multiattach': 'rule:admin_api'})
        self.assertRaises(exception.PolicyNotAuthorized,
                          volume_api.create_volume, self.context, 1,
                          volume_type='shared')
        vol = volume_api.create_volume(self.admin_context, 1,
                                       volume_type='shared')
        self.assertTrue(vol.multiattach)

    def test_legacy_flag_has_its_own_admin_rule(self):
        exc = self.assertRaises(exception.PolicyNotAuthorized,
                                volume_api.create_volume, self.context, 1,
                                multiattach=True)
        self.assertIn('volume:multiattach_legacy_flag', str(exc))
        vol = volume_api.create_volume(self.admin_context, 1,
                                       multiattach=True)
        self.assertTrue(vol.multiattach)

    def test_encrypted_multiattach_refused(self):
        plain = vtypes.create_type(self.admin_context, 'enc')
        vtypes.create_encryption(self.admin_context, plain.id,
                                 {'provider': 'luks'})
        vol = volume_api.create_volume(self.context, 1, volume_type='enc')
        self.assertTrue(vol.encrypted)
        exc = self.assertRaises(exception.InvalidVolume,
                                volume_api.create_volume,
                                self.admin_context, 1, volume_type='enc',
                                multiattach=True)
        self.assertIn('cannot be encrypted', str(exc))

    def test_legacy_flag_needs_policy(self):
        self.assertRaises(exception.PolicyNotAuthorized,
                          volume_api.create_volume, self.context, 1,
                          multiattach=True)
        vol = volume_api.create_volume(self.admin_context, 1,
                                       multiattach=True)
        self.assertTrue(vol.multiattach)

    def test_other_project_not_found(self):
        vol = volume_api.create_volume(self.context, 1)
        other = cm_context.RequestContext(user_id='u2', project_id='p2',
                                          roles=['member', 'reader'])
        self.assertRaises(exception.VolumeNotFound, volume_api.get_volume,
                          other, vol.id)
        self.assertRaises(exception.VolumeNotFound,
                          volume_api.delete_volume, other, vol.id)
        self.assertEqual([], volume_api.list_volumes(other))
        self.assertEqual([], volume_api.list_volumes(other,
                                                     all_tenants=True))
        self.assertEqual(1, len(volume_api.list_volumes(
            self.admin_context, all_tenants=True)))

    def test_list_project_filter(self):
        vol = volume_api.create_volume(self.context, 1)
        other = cm_context.RequestContext(user_id='u2', project_id='p2',
                                          roles=['member', 'reader'])
        volume_api.create_volume(other, 1)
        # An admin lists one project's volumes with all_tenants.
        listed = volume_api.list_volumes(
            self.admin_context, all_tenants=True,
            project_filter=self.context.project_id)
        self.assertEqual([vol.id], [v.id for v in listed])
        self.assertEqual(1, volume_api.count_volumes(
            self.admin_context, all_tenants=True,
            project_filter=self.context.project_id))
        self.assertEqual(2, volume_api.count_volumes(
            self.admin_context, all_tenants=True))
        # Without all_tenants the filter narrows the caller's own list.
        self.assertEqual([], volume_api.list_volumes(
            other, project_filter=self.context.project_id))
        self.assertEqual(0, volume_api.count_volumes(
            other, all_tenants=True, project_filter=self.context.project_id))
        self.assertEqual(1, len(volume_api.list_volumes(
            other, project_filter='p2')))

    def test_reader_cannot_write(self):
        reader = cm_context.RequestContext(user_id='u', roles=['reader'],
                                           project_id='fake-project')
        self.assertRaises(exception.PolicyNotAuthorized,
                          volume_api.create_volume, reader, 1)
        vol = volume_api.create_volume(self.context, 1)
        self.assertEqual(vol.id, volume_api.get_volume(reader, vol.id).id)
        self.assertRaises(exception.PolicyNotAuthorized,
                          volume_api.update_volume, reader, vol.id,
                          name='x')

    def test_update(self):
        vol = volume_api.create_volume(self.context, 1, name='a',
                                       metadata={'x': '1'})
        vol = volume_api.update_volume(self.context, vol.id, name='b',
                                       metadata={'y': '2'})
        self.assertEqual('b', vol.name)
        self.assertEqual({'y': '2'}, vol.volume_metadata)

    def test_delete(self):
        vol = volume_api.create_volume(self.context, 1)
        exc = self.assertRaises(exception.InvalidVolume,
                                volume_api.delete_volume, self.context,
                                vol.id)
        self.assertIn('creating', str(exc))
        volume_db.volume_update(self.context, vol.id, {'status': 'available'})
        volume_api.delete_volume(self.context, vol.id)
        self.assertEqual('deleting',
                         volume_db.volume_get(self.context, vol.id).status)
        self.assertEqual(('delete_volume', vol.id, 'node1@file#file'),
                         self.rpc.calls[-1])

    def test_delete_rpc_failure(self):
        vol = volume_api.create_volume(self.context, 1)
        volume_db.volume_update(self.context, vol.id, {'status': 'available'})
        self.rpc.fail = True
        volume_api.delete_volume(self.context, vol.id)
        vol = volume_db.volume_get(self.context, vol.id)
        self.assertEqual('deleting', vol.status)

    def test_force_delete_admin_only(self):
        vol = volume_api.create_volume(self.context, 1)
        self.assertRaises(exception.PolicyNotAuthorized,
                          volume_api.delete_volume, self.context, vol.id,
                          force=True)
        volume_api.delete_volume(self.admin_context, vol.id, force=True)
        self.assertEqual('deleting',
                         volume_db.volume_get(self.context, vol.id).status)

    def test_delete_refused_with_live_attachment(self):
        vol = volume_api.create_volume(self.context, 1)
        volume_db.volume_update(self.context, vol.id, {'status': 'in-use'})
        with db_api.main_context_manager.writer.using(self.context):
            self.context.session.add(models.VolumeAttachment(
                id='a1', volume_id=vol.id, attach_status='attached'))
        exc = self.assertRaises(exception.InvalidVolume,
                                volume_api.delete_volume,
                                self.admin_context, vol.id, force=True)
        self.assertIn('a1', str(exc))


class VolumeLifecycleTestCase(VolumeTestBase):
    """Retype, bootable and extend rules around shared volumes."""

    def setUp(self):
        super().setUp()
        self.shared = vtypes.create_type(
            self.admin_context, 'shared',
            extra_specs={'multiattach': '<is> True'})
        self.plain = vtypes.create_type(self.admin_context, 'plain')

    def _available(self, context=None, **kw):
        vol = volume_api.create_volume(context or self.admin_context, 1,
                                       **kw)
        return volume_db.volume_update(self.admin_context, vol.id,
                                       {'status': 'available'})

    def test_retype_to_shareable_and_back(self):
        vol = self._available(volume_type='plain')
        vol = volume_api.retype(self.admin_context, vol.id, 'shared')
        self.assertTrue(vol.multiattach)
        self.assertEqual(self.shared.id, vol.volume_type_id)
        vol = volume_api.retype(self.admin_context, vol.id, 'plain')
        self.assertFalse(vol.multiattach)

    def test_retype_to_shareable_needs_policy(self):
        volume_api.retype(self.context, self._available(
            context=self.context).id, 'shared')
        self.set_policy_rules({'volume:multiattach': 'rule:admin_api'})
        vol = self._available(context=self.context)
        self.assertRaises(exception.PolicyNotAuthorized, volume_api.retype,
                          self.context, vol.id, 'shared')
        volume_api.retype(self.context, vol.id, 'plain')

    def test_retype_refused_in_use(self):
        vol = self._available(volume_type='plain')
        volume_db.volume_update(self.admin_context, vol.id,
                                {'status': 'in-use'})
        exc = self.assertRaises(exception.InvalidVolume, volume_api.retype,
                                self.admin_context, vol.id, 'shared')
        self.assertIn('only while available', str(exc))

    def test_retype_needs_capable_backend(self):
        service_db.service_update(self.admin_context, self.backend.id, {
            'capabilities': {'multiattach': False, 'pools': []}})
        vol = volume_db.volume_create(self.admin_context, {
            'project_id': 'fake-project', 'size': 1, 'status': 'available',
            'volume_type_id': self.plain.id, 'host': 'node1@file#file'})
        exc = self.assertRaises(exception.InvalidVolume, volume_api.retype,
                                self.admin_context, vol.id, 'shared')
        self.assertIn('does not support multiattach', str(exc))

    def test_retype_to_encrypted_refused(self):
        enc = vtypes.create_type(self.admin_context, 'enc')
        vtypes.create_encryption(self.admin_context, enc.id,
                                 {'provider': 'luks'})
        vol = self._available(volume_type='plain')
        self.assertRaises(exception.InvalidVolume, volume_api.retype,
                          self.admin_context, vol.id, 'enc')

    def test_set_bootable(self):
        vol = self._available()
        self.assertTrue(volume_api.set_bootable(self.admin_context, vol.id,
                                                True).bootable)

    def test_extend_available(self):
        vol = self._available()
        vol = volume_api.extend(self.admin_context, vol.id, 3)
        self.assertEqual('extending', vol.status)
        self.assertEqual(('extend_volume', vol.id, vol.host, 3),
                         self.rpc.calls[-1])
        self.assertRaises(exception.InvalidVolume, volume_api.extend,
                          self.admin_context, vol.id, 5)

    def test_extend_bad_size(self):
        vol = self._available()
        self.assertRaises(exception.InvalidInput, volume_api.extend,
                          self.admin_context, vol.id, 1)

    def test_extend_in_use_needs_online_extend(self):
        vol = self._available()
        volume_db.volume_update(self.admin_context, vol.id,
                                {'status': 'in-use'})
        exc = self.assertRaises(exception.InvalidVolume, volume_api.extend,
                                self.admin_context, vol.id, 2)
        self.assertIn('does not support extending attached', str(exc))
        service_db.service_update(self.admin_context, self.backend.id, {
            'capabilities': {'online_extend': True, 'pools': []}})
        vol = volume_api.extend(self.admin_context, vol.id, 2)
        self.assertEqual('extending', vol.status)

    def test_extend_volume_completion_changes_nothing(self):
        # Nothing waits for a compute service (Cinder's manager does not
        # either: it finishes the extend, then tells Nova): the 3.71
        # completion is Cinder's 400 for a volume in any status, and a
        # refusal leaves the volume as it was, an extend running
        # included.
        vol = self._available()
        for error in (False, True):
            exc = self.assertRaises(
                exception.InvalidVolume, volume_api.extend_volume_completion,
                self.admin_context, vol.id, error=error)
            self.assertIn('is not being extended', str(exc))
            self.assertIn('(status available)', str(exc))
        volume_api.extend(self.admin_context, vol.id, 3)
        before = volume_db.volume_get(self.admin_context, vol.id)
        for error in (False, True):
            exc = self.assertRaises(
                exception.InvalidVolume, volume_api.extend_volume_completion,
                self.admin_context, vol.id, error=error)
            self.assertIn('its backend is growing it', str(exc))
        self.assertEqual(before,
                         volume_db.volume_get(self.admin_context, vol.id))
        self.assertEqual(('extending', 1, 3),
                         (before.status, before.size, before.target_size))

    def test_extend_rpc_failure_keeps_the_request(self):
        vol = self._available()
        self.rpc.fail = True
        volume_api.extend(self.admin_context, vol.id, 2)
        vol = volume_db.volume_get(self.admin_context, vol.id)
        self.assertEqual(('extending', 2), (vol.status, vol.target_size))
