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

"""Tests of cinder_ma.message_field: Cinder's ids and texts."""

from cinder_ma import exception
from cinder_ma import message_field as mf
from tests import base


class MessageFieldTestCase(base.BaseTestCase):

    def test_cinders_event_id_and_text(self):
        self.assertEqual('VOLUME_VOLUME_001_003', mf.event_id(
            mf.Resource.VOLUME, mf.Action.SCHEDULE_ALLOCATE_VOLUME.id,
            mf.Detail.NO_BACKEND_AVAILABLE.id))
        self.assertEqual('extend volume:Compute service failed to extend '
                         'volume.', mf.user_message('007', '009'))

    def test_unknown_ids_read_as_cinder_reads_them(self):
        self.assertEqual('unknown action:An unknown error occurred.',
                         mf.user_message('999', '998'))

    def test_detail_of_an_exception(self):
        self.assertEqual('003', mf.detail_id_of(
            exception.NoValidBackend(reason='x')))
        # Unmapped: the given detail, else the unknown error.
        self.assertEqual('010', mf.detail_id_of(
            ValueError(), mf.Detail.DRIVER_FAILED_EXTEND))
        self.assertEqual('001', mf.detail_id_of(ValueError()))

    def test_ids_are_unique(self):
        for fields in (mf.Action.ALL, mf.Detail.ALL):
            ids = [field.id for field in fields]
            self.assertEqual(len(ids), len(set(ids)))
            # Every id fits its column (String(10)).
            self.assertTrue(all(len(i) <= 10 for i in ids))
