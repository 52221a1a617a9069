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
