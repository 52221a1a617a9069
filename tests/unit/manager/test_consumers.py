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

"""The endpoints of consumers' attachments of the manager (1.8), called
directly on the backend's manager (its RPC server would unwrap the
declared errors); the flows they run, their reverts and their recovery
are tested in tests/unit/manager/flows/ and test_reconcile.py."""

import oslo_messaging as messaging

from cinder_ma import exception
from cinder_ma.volume import attachments
from tests.unit.manager import fixtures as mgr_fixtures

CONNECTOR = {'host': 'consumer1', 'initiator': 'iqn.2026-11.test:c1'}


class ConsumerEndpointsTestCase(mgr_fixtures.AttachmentTestCase):

    def reserve(self, volume, instance='i1'):
        return attachments.create_attachment(self.service_context,
                                             volume.id, instance)

    def test_connect_then_terminate(self):
        volume = self.volume()
        reserved = self.reserve(volume)
        answer = self.backend_manager.connect_attachment(
            self.service_context, reserved.id, CONNECTOR, 'update')
        # The attachment as connected, as JSON primitives.
        self.assertEqual((reserved.id, 'attaching', 'consumer1'),
                         (answer['id'], answer['attach_status'],
                          answer['attached_host']))
        got = self.get(reserved.id)
        self.assertEqual(('attaching', None),
                         (got.attach_status, got.claimed_by))
        self.assertEqual({(volume.id, 'consumer1')}, self.driver.connections)
        self.backend_manager.disconnect_attachment(
            self.service_context, reserved.id, terminate=True)
        got = self.get(reserved.id)
        # os-terminate_connection: the attachment stays, unconnected.
        self.assertIsNotNone(got)
        self.assertEqual((None, None), (got.connector, got.claimed_by))
        self.assertEqual(set(), self.driver.connections)

    def test_attachment_made_through_a_manager_is_refused(self):
        volume = self.volume()
        attached = self.attach(volume, 'i1')
        self.assertEqual('attached', attached.attach_status)
        calls = len(self.driver.called('terminate_connection'))
        error = self.assertRaises(
            messaging.ExpectedException,
            self.backend_manager.disconnect_attachment,
            self.service_context, attached.id, terminate=True)
        self.assertIsInstance(error.exc_info[1], exception.InvalidVolume)
        got = self.get(attached.id)
        # Nothing changed, the claim is given back.
        self.assertEqual(('attached', attached.connector, None),
                         (got.attach_status, got.connector, got.claimed_by))
        self.assertEqual(calls,
                         len(self.driver.called('terminate_connection')))

    def test_fence_of_an_unfenced_attachment_is_refused(self):
        volume = self.volume()
        reserved = self.reserve(volume)
        self.backend_manager.connect_attachment(
            self.service_context, reserved.id, CONNECTOR, 'update')
        error = self.assertRaises(
            messaging.ExpectedException,
            self.backend_manager.fence_attachment, self.service_context,
            reserved.id)
        self.assertIsInstance(error.exc_info[1], exception.Conflict)
        got = self.get(reserved.id)
        self.assertEqual(('attaching', None, None),
                         (got.attach_status, got.fenced_at, got.claimed_by))
        self.assertEqual({(volume.id, 'consumer1')}, self.driver.connections)

    def test_expected_exceptions_are_declared(self):
        for method, kwargs in (
                ('connect_attachment', {'connector': CONNECTOR,
                                        'kind': 'update'}),
                ('disconnect_attachment', {}),
                ('disconnect_attachment', {'terminate': True}),
                ('fence_attachment', {}),
                ('reconnect_attachment', {'connector': CONNECTOR}),
                ('promote_consumer_attachment', {'revoke_ids': []})):
            error = self.assertRaises(
                messaging.ExpectedException,
                getattr(self.backend_manager, method),
                self.service_context, 'nope', **kwargs)
            self.assertIsInstance(error.exc_info[1],
                                  exception.VolumeAttachmentNotFound,
                                  method)
