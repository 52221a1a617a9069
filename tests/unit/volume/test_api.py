"""Tests of the volume rules (cinder_ma.volume.api) on a real SQLite DB.

The manager is out of scope here: its RPC client is replaced by a recorder
(the manager side has its own tests, and functional tests run both).
"""

import fixtures

from cinder_ma.db import api as db_api
from cinder_ma import exception
from cinder_ma import context as cm_context
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


class VolumeAPITestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        vtypes.ensure_default_type(self.admin_context)
        self.rpc = RecordingRPC()
        self.useFixture(fixtures.MockPatchObject(
            volume_api, '_rpc', lambda: self.rpc))
        self.backend = self.make_backend('node1@file')

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

    def test_create_rpc_failure_leaves_visible_error(self):
        self.rpc.fail = True
        vol = volume_api.create_volume(self.context, 1)
        self.assertEqual('error', vol.status)
        self.assertIn('broker down', vol.error_reason)

    def test_create_no_backend_records_nothing(self):
        db_api.service_update(self.admin_context, self.backend.id,
                              {'disabled': True})
        self.assertRaises(exception.NoValidBackend,
                          volume_api.create_volume, self.context, 1)
        self.assertEqual(0, db_api.volume_count(self.admin_context))

    def test_multiattach_type(self):
        vtypes.create_type(self.admin_context, 'shared',
                           extra_specs={'multiattach': '<is> True'})
        vol = volume_api.create_volume(self.context, 1,
                                       volume_type='shared')
        self.assertTrue(vol.multiattach)

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
        self.assertEqual({'y': '2'},
                         {m.key: m.value for m in vol.volume_metadata})

    def test_delete(self):
        vol = volume_api.create_volume(self.context, 1)
        exc = self.assertRaises(exception.InvalidVolume,
                                volume_api.delete_volume, self.context,
                                vol.id)
        self.assertIn('creating', str(exc))
        db_api.volume_update(self.context, vol.id, {'status': 'available'})
        volume_api.delete_volume(self.context, vol.id)
        self.assertEqual('deleting',
                         db_api.volume_get(self.context, vol.id).status)
        self.assertEqual(('delete_volume', vol.id, 'node1@file#file'),
                         self.rpc.calls[-1])

    def test_delete_rpc_failure(self):
        vol = volume_api.create_volume(self.context, 1)
        db_api.volume_update(self.context, vol.id, {'status': 'available'})
        self.rpc.fail = True
        volume_api.delete_volume(self.context, vol.id)
        vol = db_api.volume_get(self.context, vol.id)
        self.assertEqual('error_deleting', vol.status)

    def test_force_delete_admin_only(self):
        vol = volume_api.create_volume(self.context, 1)
        self.assertRaises(exception.PolicyNotAuthorized,
                          volume_api.delete_volume, self.context, vol.id,
                          force=True)
        volume_api.delete_volume(self.admin_context, vol.id, force=True)
        self.assertEqual('deleting',
                         db_api.volume_get(self.context, vol.id).status)

    def test_delete_refused_with_live_attachment(self):
        vol = volume_api.create_volume(self.context, 1)
        db_api.volume_update(self.context, vol.id, {'status': 'in-use'})
        with db_api.main_context_manager.writer.using(self.context):
            self.context.session.add(db_api.models.VolumeAttachment(
                id='a1', volume_id=vol.id, attach_status='attached'))
        exc = self.assertRaises(exception.InvalidVolume,
                                volume_api.delete_volume,
                                self.admin_context, vol.id, force=True)
        self.assertIn('a1', str(exc))
