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

"""Tests of cinder_ma.volume.transfers: keys, scope, policies, quotas."""

from cinder_ma import context as cm_context
from cinder_ma.db import quotas as quota_db
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import transfers as transfer_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.volume import transfers
from cinder_ma.volume import types as vtypes
from tests import base


def _member(project, user='someone'):
    return cm_context.RequestContext(user_id=user, project_id=project,
                                     roles=['member', 'reader'])


class TransferServiceTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.vtype = vtypes.ensure_default_type(self.admin_context)
        self.recipient = _member('other-project', 'bob')

    def _volume(self, size=2, project='fake-project', **values):
        record = {'project_id': project, 'user_id': 'fake-user',
                  'size': size, 'status': 'available', 'host': 'h@b#p',
                  'volume_type_id': self.vtype.id}
        record.update(values)
        return volume_db.volume_create(self.admin_context, record)

    def test_key_is_shown_once_and_stored_hashed(self):
        volume = self._volume()
        transfer, key = transfers.create_transfer(self.context, volume.id,
                                                  'gift')
        self.assertEqual(16, len(key))
        salt, stored = transfer_db.transfer_get_secret(self.admin_context,
                                                       transfer.id)
        self.assertEqual(8, len(salt))
        self.assertNotIn(key, stored)
        self.assertEqual(stored, transfers.crypt_hash(salt, key))
        self.assertNotIn('auth_key', transfer._fields)

    def test_accept_moves_volume_and_quota_in_one_go(self):
        volume = self._volume(size=3)
        for project in ('fake-project', 'other-project'):
            quota_db.ensure_usages(self.admin_context, project,
                                   ['volumes', 'gigabytes'])
        transfer, key = transfers.create_transfer(self.context, volume.id)
        exc = self.assertRaises(exception.InvalidAuthKey,
                                transfers.accept_transfer, self.recipient,
                                transfer.id, 'wrong')
        self.assertEqual(400, exc.code)
        accepted = transfers.accept_transfer(self.recipient, transfer.id,
                                             key)
        self.assertEqual('other-project', accepted.destination_project_id)
        moved = volume_db.volume_get(self.admin_context, volume.id)
        self.assertEqual(('other-project', 'bob', 'available'),
                         (moved.project_id, moved.user_id, moved.status))
        donor = quota_db.usage_get_all(self.admin_context, 'fake-project')
        recipient = quota_db.usage_get_all(self.admin_context,
                                           'other-project')
        self.assertEqual((0, 0), (donor['volumes'], donor['gigabytes']))
        self.assertEqual((1, 3), (recipient['volumes'],
                                  recipient['gigabytes']))

    def _snapshot(self, volume, project='fake-project', status='available'):
        return snapshot_db.snapshot_create(self.admin_context, {
            'project_id': project, 'user_id': 'fake-user',
            'volume_id': volume.id, 'volume_type_id': volume.volume_type_id,
            'volume_size': volume.size, 'status': status}, ('available',))

    def _usage_of(self, project):
        usage = quota_db.usage_get_all(self.admin_context, project)
        return (usage.get('volumes', 0), usage.get('snapshots', 0),
                usage.get('gigabytes', 0),
                usage.get('snapshots:%s' % self.vtype.id, 0))

    def _count_usage(self, *projects):
        """The projects' counters, from their volumes and snapshots."""
        for project in projects:
            quota_db.ensure_usages(self.admin_context, project, list(
                quota_db.snapshot_deltas(1, self.vtype.id)) + list(
                quota_db.volume_deltas(1, self.vtype.id)))

    def test_snapshots_and_their_quota_go_with_the_volume(self):
        volume = self._volume(size=3)
        for _ in range(2):
            self._snapshot(volume)
        self._count_usage('fake-project', 'other-project')
        self.assertEqual((1, 2, 9, 2), self._usage_of('fake-project'))
        transfer, key = transfers.create_transfer(self.context, volume.id)
        self.assertFalse(transfer.no_snapshots)
        transfers.accept_transfer(self.recipient, transfer.id, key)
        self.assertEqual({'other-project'}, {
            s.project_id for s in snapshot_db.snapshot_get_all(
                self.admin_context, filters={'volume_id': volume.id})})
        self.assertEqual((0, 0, 0, 0), self._usage_of('fake-project'))
        self.assertEqual((1, 2, 9, 2), self._usage_of('other-project'))

    def test_no_snapshots_leaves_snapshots_and_quota_to_the_donor(self):
        volume = self._volume(size=3)
        snapshot = self._snapshot(volume, status='error')
        self._count_usage('fake-project', 'other-project')
        transfer, key = transfers.create_transfer(self.context, volume.id,
                                                  no_snapshots=True)
        self.assertTrue(transfer.no_snapshots)
        transfers.accept_transfer(self.recipient, transfer.id, key)
        self.assertEqual('fake-project', snapshot_db.snapshot_get(
            self.admin_context, snapshot.id).project_id)
        self.assertEqual((0, 1, 3, 1), self._usage_of('fake-project'))
        self.assertEqual((1, 0, 3, 0), self._usage_of('other-project'))

    def test_snapshots_must_be_available_unless_left_behind(self):
        volume = self._volume()
        snapshot = self._snapshot(volume, status='error')
        exc = self.assertRaises(exception.InvalidSnapshot,
                                transfers.create_transfer, self.context,
                                volume.id)
        self.assertEqual(400, exc.code)
        self.assertIn('snapshot: %s status must be available'
                      % snapshot.id, str(exc))
        self.assertEqual('available', volume_db.volume_get(
            self.admin_context, volume.id).status)
        transfers.create_transfer(self.context, volume.id,
                                  no_snapshots=True)

    def test_recipient_over_snapshot_quota_changes_nothing(self):
        volume = self._volume(size=1)
        snapshot = self._snapshot(volume)
        transfer, key = transfers.create_transfer(self.context, volume.id)
        quota_db.quota_set(self.admin_context, 'other-project',
                           {'snapshots': 0})
        exc = self.assertRaises(exception.SnapshotLimitExceeded,
                                transfers.accept_transfer, self.recipient,
                                transfer.id, key)
        self.assertEqual(413, exc.code)
        self.assertEqual('fake-project', snapshot_db.snapshot_get(
            self.admin_context, snapshot.id).project_id)
        self.assertEqual('awaiting-transfer', volume_db.volume_get(
            self.admin_context, volume.id).status)

    def test_recipient_over_quota_changes_nothing(self):
        volume = self._volume(size=5)
        transfer, key = transfers.create_transfer(self.context, volume.id)
        quota_db.quota_set(self.admin_context, 'other-project',
                           {'gigabytes': 4})
        exc = self.assertRaises(exception.VolumeSizeExceedsAvailableQuota,
                                transfers.accept_transfer, self.recipient,
                                transfer.id, key)
        self.assertEqual(413, exc.code)
        kept = volume_db.volume_get(self.admin_context, volume.id)
        self.assertEqual(('fake-project', 'awaiting-transfer'),
                         (kept.project_id, kept.status))

    def test_refusals(self):
        attached = self._volume(attach_count=1, status='in-use')
        exc = self.assertRaises(exception.InvalidVolume,
                                transfers.create_transfer, self.context,
                                attached.id)
        self.assertIn('attachments', str(exc))
        encrypted = self._volume(encrypted=True)
        self.assertRaises(exception.InvalidVolume,
                          transfers.create_transfer, self.context,
                          encrypted.id)
        exc = self.assertRaises(exception.InvalidVolume,
                                transfers.create_transfer, self.context,
                                encrypted.id, allow_encrypted=True,
                                no_snapshots=True)
        self.assertIn('without its snapshots', str(exc))
        transfers.create_transfer(self.context, encrypted.id,
                                  allow_encrypted=True)
        theirs = self._volume(project='other-project')
        self.assertRaises(exception.VolumeNotFound,
                          transfers.create_transfer, self.context, theirs.id)
        reader = cm_context.RequestContext(
            user_id='r', project_id='fake-project', roles=['reader'])
        self.assertRaises(exception.PolicyNotAuthorized,
                          transfers.create_transfer, reader,
                          self._volume().id)

    def test_scope_and_delete(self):
        volume = self._volume()
        transfer, _key = transfers.create_transfer(self.context, volume.id)
        self.assertEqual([transfer.id], [
            t.id for t in transfers.list_transfers(self.context)])
        self.assertEqual([], transfers.list_transfers(self.recipient))
        self.assertEqual([], transfers.list_transfers(self.admin_context))
        self.assertEqual(1, len(transfers.list_transfers(
            self.admin_context, all_tenants=True)))
        self.assertRaises(exception.TransferNotFound,
                          transfers.get_transfer, self.recipient,
                          transfer.id)
        self.assertRaises(exception.TransferNotFound,
                          transfers.delete_transfer, self.recipient,
                          transfer.id)
        self.assertEqual(transfer, transfers.get_transfer(self.context,
                                                          transfer.id))
        transfers.delete_transfer(self.context, transfer.id)
        self.assertEqual('available', volume_db.volume_get(
            self.admin_context, volume.id).status)
