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

"""Quota enforcement of extend, retype and delete, and the free-space
check of extend, through the API and the service."""

import fixtures
from oslo_serialization import jsonutils

from cinder_ma.db import quotas as quota_db
from cinder_ma.db import services as service_db
from cinder_ma.db import volumes as volume_db
from cinder_ma.manager.tasks import volume as volume_tasks
from cinder_ma.volume import types as volume_types
from tests.unit.api import base


class QuotaEnforcementTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.extend_cast = self.useFixture(fixtures.MockPatch(
            'cinder_ma.manager.rpcapi.ManagerAPI.extend_volume')).mock
        self.volume_id = self.app.post_json(
            self.url('volumes'), {'volume': {'size': 2}},
            headers=base.MEMBER, status=202).json['volume']['id']
        volume_db.volume_update(self.admin_context, self.volume_id,
                                {'status': 'available'})

    def _set(self, **limits):
        self.app.put_json(self.url('os-quota-sets/%s' % base.PROJECT),
                          {'quota_set': limits}, headers=base.ADMIN)

    def _act(self, body, status=202):
        return self.app.post_json(
            self.url('volumes/%s/action' % self.volume_id), body,
            headers=base.MEMBER, status=status)

    def _usage(self):
        return quota_db.usage_get_all(self.admin_context, base.PROJECT)

    def test_extend_over_gigabytes_413(self):
        self._set(gigabytes=4)
        error = self._act({'os-extend': {'new_size': 5}}, status=413).json
        self.assertEqual(
            'Requested volume or snapshot exceeds allowed gigabytes quota. '
            'Requested 3G, quota is 4G and 2G has been consumed.',
            error['overLimit']['message'])
        self.assertEqual('available', volume_db.volume_get(
            self.admin_context, self.volume_id).status)
        self.extend_cast.assert_not_called()

    def test_extend_charges_and_failure_gives_back(self):
        self._act({'os-extend': {'new_size': 5}})
        self.assertEqual(5, self._usage()['gigabytes'])
        # The manager's extend flow fails: its task gives them back.
        volume = volume_db.volume_get(self.admin_context, self.volume_id)
        volume_tasks.ReleaseExtendQuotaOnRevert().revert(
            self.admin_context, self.volume_id, volume, 5)
        self.assertEqual(2, self._usage()['gigabytes'])

    def test_extend_with_a_lost_cast_stays_charged(self):
        # The request is recorded (status extending, target size): the
        # manager's reconcile loop extends it, or its flow gives the
        # quota back if the extend fails.
        self.extend_cast.side_effect = RuntimeError('no manager')
        self._act({'os-extend': {'new_size': 5}}, status=202)
        self.assertEqual(5, self._usage()['gigabytes'])
        volume = volume_db.volume_get(self.admin_context, self.volume_id)
        self.assertEqual(('extending', 5), (volume.status,
                                            volume.target_size))

    def test_extend_over_per_volume_limit(self):
        self._set(per_volume_gigabytes=3)
        error = self._act({'os-extend': {'new_size': 4}}, status=413).json
        self.assertEqual('Requested volume size 4 is larger than maximum '
                         'allowed limit 3.', error['overLimit']['message'])

    def test_extend_beyond_free_space_400(self):
        caps = dict(base.BACKEND_CAPABILITIES, pools=[{
            'pool_name': 'pool', 'total_capacity_gb': 100.0,
            'free_capacity_gb': 78.0, 'reserved_percentage': 0}])
        service_db.service_update(self.admin_context, self.service.id,
                                  {'capabilities': jsonutils.dumps(caps)})
        error = self._act({'os-extend': {'new_size': 5000}},
                          status=400).json
        # Members are not told where the volume lives.
        self.assertEqual(
            'Invalid volume: extending volume %s to 5000 GiB needs 4998 '
            'GiB more in its pool, which has 78 GiB free' % self.volume_id,
            error['badRequest']['message'])
        error = self.app.post_json(
            self.url('volumes/%s/action' % self.volume_id),
            {'os-extend': {'new_size': 5000}}, headers=base.ADMIN,
            status=400).json
        self.assertIn('its pool testhost@file#pool, which has 78 GiB free',
                      error['badRequest']['message'])
        self.assertEqual('available', volume_db.volume_get(
            self.admin_context, self.volume_id).status)
        self.assertEqual(2, self._usage()['gigabytes'])
        self._act({'os-extend': {'new_size': 80}})

    def test_retype_moves_per_type_usage(self):
        gold = volume_types.create_type(self.admin_context, 'gold')
        self._act({'os-retype': {'new_type': 'gold'}})
        usage = self._usage()
        default = self.default_type.id
        self.assertEqual(
            (0, 0, 1, 2),
            (usage[quota_db.type_resource('volumes', default)],
             usage[quota_db.type_resource('gigabytes', default)],
             usage[quota_db.type_resource('volumes', gold.id)],
             usage[quota_db.type_resource('gigabytes', gold.id)]))
        self.assertEqual((1, 2), (usage['volumes'], usage['gigabytes']))

    def test_retype_over_type_quota_413(self):
        volume_types.create_type(self.admin_context, 'gold')
        self._set(volumes_gold=0)
        error = self._act({'os-retype': {'new_type': 'gold'}},
                          status=413).json
        self.assertEqual("Maximum number of volumes allowed (0) exceeded "
                         "for quota 'volumes_gold'.",
                         error['overLimit']['message'])
        self.assertEqual(self.default_type.id, volume_db.volume_get(
            self.admin_context, self.volume_id).volume_type_id)

    def test_destroyed_volume_gives_back(self):
        volume_tasks.DestroyVolumeRecord().execute(self.admin_context,
                                                   self.volume_id)
        usage = self._usage()
        self.assertEqual((0, 0), (usage['volumes'], usage['gigabytes']))
