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

"""python-cinderclient against the app served over HTTP:
cinder_ma/api/v3/volume_actions.py (its unit tests are in
tests/unit/api/v3/test_volume_actions.py)."""

import uuid

from cinder_ma.api import microversions as mv
from tests.functional.api import fixtures as api_fixtures
from tests.unit.api.v3 import test_attachments
from tests.unit.api.v3 import test_volume_actions as unit


class TestWithCinderclient(unit.ManageTestCase):
    """Cinder's own client, at the version it negotiates."""

    def setUp(self):
        super().setUp()
        served = self.useFixture(api_fixtures.ServedApp(self.app.app))
        self.client = api_fixtures.cinderclient_for(served.url, mv.MAX_VERSION)
        self.admin = api_fixtures.cinderclient_for(served.url, mv.MAX_VERSION,
                                                   user='admin-user',
                                                   roles=('admin',))

    def test_legacy_actions(self):
        volumes = self.client.volumes
        volumes.reserve(self.volume.id)
        self.assertEqual('reserved', volumes.get(self.volume.id).status)
        volumes.attach(self.volume.id, self.instance, '/dev/vdb', mode='rw')
        self.assertEqual('in-use', volumes.get(self.volume.id).status)
        volumes.begin_detaching(self.volume.id)
        self.assertEqual('detaching', volumes.get(self.volume.id).status)
        volumes.roll_detaching(self.volume.id)
        self.assertEqual('in-use', volumes.get(self.volume.id).status)
        volumes.detach(self.volume.id)
        self.assertEqual('available', volumes.get(self.volume.id).status)

    def test_manage_actions(self):
        from cinderclient import exceptions
        volumes = self.client.volumes
        self.make_type('silver')
        volumes.set_bootable(self.volume.id, True)
        self.assertEqual('true', volumes.get(self.volume.id).bootable)
        volumes.retype(self.volume.id, 'silver', 'never')
        self.assertEqual('silver', volumes.get(self.volume.id).volume_type)
        error = self.assertRaises(exceptions.BadRequest, volumes.extend,
                                  self.volume.id, 1)
        self.assertIn('greater than the current size', error.message)
        volumes.extend(self.volume.id, 2)
        self.assertEqual('extending', volumes.get(self.volume.id).status)
        self.assertRaises(exceptions.Forbidden, volumes.force_delete,
                          self.volume.id)
        self.admin.volumes.force_delete(self.volume.id)
        self.assertEqual('deleting', volumes.get(self.volume.id).status)


class TestNovaDetachSequence(test_attachments.AttachmentsTestCase):
    """Nova 34's detach of a shareable volume, call by call, with
    python-cinderclient over HTTP: ``os-begin_detaching`` with the volume
    id only (nova/compute/api.py ``_detach_volume``), then the compute
    host deletes its attachment by id with its service token
    (``attachment_delete``), or calls ``os-roll_detaching`` when the guest
    refused the detach (nova/virt/block_device.py)."""

    def setUp(self):
        super().setUp()
        from cinderclient import exceptions
        self.client_errors = exceptions
        served = self.useFixture(api_fixtures.ServedApp(self.app.app))
        # Nova's client: a user token with its service token
        # (send_service_user_token), at the versions Nova asks for.
        self.nova = api_fixtures.cinderclient_for(
            served.url, '3.44', user='nova', service_roles=['service'])
        self.nova30 = api_fixtures.cinderclient_for(
            served.url, mv.BASE_VERSION, user='nova',
            service_roles=['service'])

    def attach(self, volume, instance):
        """Nova's attach: attachment_create with the connector (3.44),
        then attachment_complete."""
        connector = dict(test_attachments.CONNECTOR, mountpoint='/dev/vdb')
        created = self.nova.attachments.create(volume.id, connector,
                                               instance)
        self.nova.attachments.complete(created['id'])
        return created['id']

    def test_detach_one_server_then_the_other(self):
        volume = self.shared_volume()
        first, second = (str(uuid.uuid4()) for _ in range(2))
        first_id = self.attach(volume, first)
        second_id = self.attach(volume, second)
        volumes = self.nova30.volumes
        self.assertEqual('in-use', volumes.get(volume.id).status)

        # Detach from the first server while the second keeps it.
        volumes.begin_detaching(volume.id)
        got = volumes.get(volume.id)
        self.assertEqual('in-use', got.status)
        self.nova.attachments.delete(first_id)
        got = volumes.get(volume.id)
        self.assertEqual('in-use', got.status)
        self.assertEqual([(second, second_id)],
                         [(a['server_id'], a['attachment_id'])
                          for a in got.attachments])
        self.assertEqual(['attached'], [a.status for a in
                                        self.nova.attachments.list(
                                            search_opts={
                                                'volume_id': volume.id})])

        # The guest refuses the detach from the second: Nova rolls back.
        volumes.begin_detaching(volume.id)
        self.assertEqual('detaching', volumes.get(volume.id).status)
        # Nova's concurrent second detach of it is refused (Cinder's 400).
        error = self.assertRaises(self.client_errors.BadRequest,
                                  volumes.begin_detaching, volume.id)
        self.assertIn("Volume status must be 'in-use'", error.message)
        volumes.roll_detaching(volume.id)
        self.assertEqual('in-use', volumes.get(volume.id).status)
        # Rolling back twice is no error.
        volumes.roll_detaching(volume.id)

        # Then the detach from the second server succeeds.
        volumes.begin_detaching(volume.id)
        self.nova.attachments.delete(second_id)
        got = volumes.get(volume.id)
        self.assertEqual('available', got.status)
        self.assertEqual([], got.attachments)
        # Not in-use any more: Cinder's 400.
        self.assertRaises(self.client_errors.BadRequest,
                          volumes.begin_detaching, volume.id)

    def test_two_servers_detach_at_once(self):
        # Both of Nova's detaches begin before either deletes (Cinder
        # refuses the second, as its volume is detaching; here the volume
        # stays in-use while another attachment holds it).
        volume = self.shared_volume()
        ids = [self.attach(volume, str(uuid.uuid4())) for _ in range(2)]
        self.nova30.volumes.begin_detaching(volume.id)
        self.nova30.volumes.begin_detaching(volume.id)
        self.nova.attachments.delete(ids[0])
        self.assertEqual('in-use', self.nova30.volumes.get(volume.id).status)
        self.nova.attachments.delete(ids[1])
        self.assertEqual('available',
                         self.nova30.volumes.get(volume.id).status)
