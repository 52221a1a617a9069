"""os-availability-zone in Cinder's shape: a zone is available when one
of its backends is enabled and up."""

from oslo_utils import timeutils

from cinder_ma.db import api as db_api
from tests.unit.api import base


class AvailabilityZonesTestCase(base.APITestCase):

    def test_list(self):
        db_api.service_create(self.admin_context, {
            'host': 'other@file', 'binary': 'cinder-ma-volume',
            'topic': 'cinder-ma-manager', 'availability_zone': 'zone2',
            'disabled': True, 'heartbeat_at': timeutils.utcnow()})
        body = self.app.get(self.url('os-availability-zone'),
                            headers=base.READER).json
        self.assertEqual({'availabilityZoneInfo': [
            {'zoneName': 'nova', 'zoneState': {'available': True}},
            {'zoneName': 'zone2', 'zoneState': {'available': False}},
        ]}, body)
