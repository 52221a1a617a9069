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

"""os-availability-zone in Cinder's shape: a zone is available when one
of its backends is enabled and up."""

from oslo_utils import timeutils

from cinder_ma.db import services as service_db
from tests.unit.api import base


class AvailabilityZonesTestCase(base.APITestCase):

    def test_list(self):
        service_db.service_create(self.admin_context, {
            'host': 'other@file', 'binary': 'cinder-ma-volume',
            'topic': 'cinder-ma-manager', 'availability_zone': 'zone2',
            'disabled': True, 'heartbeat_at': timeutils.utcnow()})
        body = self.app.get(self.url('os-availability-zone'),
                            headers=base.READER).json
        self.assertEqual({'availabilityZoneInfo': [
            {'zoneName': 'nova', 'zoneState': {'available': True}},
            {'zoneName': 'zone2', 'zoneState': {'available': False}},
        ]}, body)
