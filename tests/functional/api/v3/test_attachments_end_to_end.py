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

"""End-to-end tests of the attachments API (cinder_ma/api/v3/attachments.py;
its unit tests are in test_attachments): python-cinderclient over HTTP,
and the extension cinder-ma-manager-attach through real managers running
in-process.
"""

import uuid

import webtest

from cinder_ma.api import app
from cinder_ma.api import microversions as mv
from tests.functional.api import fixtures as api_fixtures
from tests.unit.api import base
from tests.unit.api.v3.test_attachments import AttachmentsTestCase
from tests.unit.api.v3.test_attachments import CONNECTOR
from tests.unit.api.v3.test_attachments import member
from tests.unit.api.v3.test_attachments import service
from tests.unit.manager import fixtures as mgr_fixtures


class TestWithCinderclient(AttachmentsTestCase):
    """The flows of Cinder's own client, at the version it negotiates."""

    def setUp(self):
        super().setUp()
        from cinderclient import exceptions
        self.client_errors = exceptions
        served = self.useFixture(api_fixtures.ServedApp(self.app.app))
        self.client = api_fixtures.cinderclient_for(served.url, mv.MAX_VERSION)
        self.nova = api_fixtures.cinderclient_for(served.url, mv.MAX_VERSION,
                                                  user='nova',
                                                  service_roles=['service'])

    def test_new_attach_flow(self):
        volume = self.shared_volume()
        created = self.nova.attachments.create(volume.id, None,
                                               self.instance, mode='ro')
        self.assertEqual('reserved', created['status'])
        self.assertEqual('ro', created['attach_mode'])
        updated = self.nova.attachments.update(created['id'], CONNECTOR)
        # Cinder's flat connection_info, as Nova reads it.
        self.assertEqual('ro', updated.connection_info['access_mode'])
        self.assertEqual(created['id'],
                         updated.connection_info['attachment_id'])
        self.assertEqual('file',
                         updated.connection_info['driver_volume_type'])
        response = self.nova.attachments.complete(created['id'])
        self.assertEqual(204, response.status_code)
        shown = self.client.attachments.show(created['id'])
        self.assertEqual('attached', shown.status)
        self.assertEqual(self.instance, shown.instance)
        listed = self.client.attachments.list(
            search_opts={'volume_id': volume.id})
        self.assertEqual([created['id']], [a.id for a in listed])
        got = self.client.volumes.get(volume.id)
        self.assertEqual('in-use', got.status)
        self.assertNotIn('attach_mode', got.attachments[0])
        # A member may not delete a connected attachment; the service may.
        error = self.assertRaises(self.client_errors.ClientException,
                                  self.client.attachments.delete,
                                  created['id'])
        self.assertEqual(409, error.code)
        self.assertIn('only the service', error.message)
        self.nova.attachments.delete(created['id'])
        self.assertEqual('available',
                         self.client.volumes.get(volume.id).status)

    def test_list_pages_with_the_marker(self):
        # As with Cinder, attachment lists have no links: a client pages
        # with marker and limit.
        self.flags(max_limit=2, group='api')
        volume = self.shared_volume()
        ids = {self.reserve(volume, str(uuid.uuid4()))['id']
               for _ in range(5)}
        listed = self.client.attachments.list(detailed=True)
        self.assertEqual(2, len(listed))
        seen, marker = [], None
        while True:
            page = self.client.attachments.list(detailed=True,
                                                marker=marker, limit=2)
            if not page:
                break
            seen.extend(a.id for a in page)
            marker = page[-1].id
        self.assertEqual(ids, set(seen))


class TestThroughARealManager(mgr_fixtures.AttachmentTestCase):
    """cinder-ma-manager-attach end to end: the API, then the managers of
    the compute host and of the backend over the in-process RPC transport
    (the manager tests' harness), with recording storage and hypervisor
    drivers."""

    def setUp(self):
        super().setUp()
        self.flags(auth_strategy='noauth')
        self.app = webtest.TestApp(app.setup_app(self.conf))

    def test_attach_poll_detach(self):
        volume = self.volume(multiattach=True)
        instance = str(uuid.uuid4())
        attachment = self.app.post_json(
            '/v3/%s/attachments' % base.PROJECT,
            {'attachment': {'volume_uuid': volume.id,
                            'instance_uuid': instance,
                            'cinder-ma-manager-attach:instance_host':
                                self.COMPUTE,
                            'mode': 'ro'}},
            headers=member()).json['attachment']
        self.assertEqual('reserved', attachment['status'])
        self.settle()
        url = '/v3/%s/attachments/%s' % (base.PROJECT, attachment['id'])
        shown = self.app.get(url, headers=member()).json['attachment']
        self.assertEqual('attached', shown['status'])
        self.assertEqual('ro', shown['attach_mode'])
        self.assertEqual('ro', shown['connection_info']['access_mode'])
        view = self.app.get(
            '/v3/%s/volumes/%s' % (base.PROJECT, volume.id),
            headers=dict(member(), **{
                'Cinder-MA-Extensions': 'cinder-ma-multiattach'})).json[
                    'volume']
        self.assertEqual('in-use', view['status'])
        (entry,) = view['attachments']
        self.assertEqual((instance, 'ro'),
                         (entry['server_id'],
                          entry['cinder-ma-multiattach:attach_mode']))
        # The hypervisor driver attached it read-only and shareable.
        (call,) = self.hypervisor.called('attach_volume')
        self.assertEqual((instance, attachment['id'], 'ro', True),
                         call[:4])
        response = self.app.delete(url, headers=service())
        self.assertEqual({'attachments': []}, response.json)
        self.settle()
        self.app.get(url, headers=member(), status=404)
        self.assertEqual('available', self.status(volume))
        (call,) = self.hypervisor.called('detach_volume')
        self.assertEqual((instance, attachment['id']), call[:2])
