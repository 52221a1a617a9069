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

"""End-to-end tests of os-extend of an in-use volume (cinder_ma/api/v3/
volume_actions.py; its unit tests are in test_volume_actions): HTTP
requests to the API, then the managers of the backend and of two compute
hosts over the in-process RPC transport (the manager tests' harness),
with the recording file driver and recording hypervisor drivers.
"""

import datetime
import os
import time
import uuid

from oslo_serialization import jsonutils
from oslo_utils import timeutils
import webtest

from cinder_ma.api import app
from cinder_ma.api import microversions as mv
from cinder_ma.db import messages as message_db
from cinder_ma.db import services as service_db
from cinder_ma.manager import rpcapi
from tests.unit.api import base
from tests.unit.manager import fixtures as mgr_fixtures

GiB = 1024 ** 3
RECOVERY = {'Cinder-MA-Extensions': 'cinder-ma-recovery'}
FAILURE_REASON = 'cinder-ma-recovery:failure_reason'


def member():
    return base.headers(roles=['member', 'reader'], version=mv.MAX_VERSION)


def admin():
    return dict(base.headers(user='admin-user', version=mv.MAX_VERSION),
                **RECOVERY)


class TestOnlineExtendOfASharedVolume(mgr_fixtures.AttachmentTestCase):
    """A shareable volume attached through the managers of two compute
    hosts, extended through the API: both instances must see the new
    size, or the outcome says which do not."""

    COMPUTE2 = 'compute2'

    def setUp(self):
        super().setUp()
        self.flags(auth_strategy='noauth')
        self.app = webtest.TestApp(app.setup_app(self.conf))
        caps = dict(base.BACKEND_CAPABILITIES, online_extend=True,
                    pools=[{'pool_name': 'file', 'total_capacity_gb': 100.0,
                            'free_capacity_gb': 100.0,
                            'reserved_percentage': 0}])
        service_db.service_update(self.admin_context, self.backend_service.id,
                                  {'capabilities': jsonutils.dumps(caps)})

    def add_second_compute(self, hypervisor_class=None):
        self.compute2, self.hypervisor2 = self.add_compute(
            self.COMPUTE2, hypervisor_class)

    def attach_through(self, volume, host, mode='rw'):
        """Attach through the API to a new instance of ``host``; the
        attachment's id once its flow ran."""
        response = self.app.post_json(
            '/v3/%s/attachments' % base.PROJECT,
            {'attachment': {'volume_uuid': volume.id,
                            'instance_uuid': str(uuid.uuid4()),
                            'cinder-ma-manager-attach:instance_host': host,
                            'mode': mode}},
            headers=member())
        self.settle()
        attachment = self.get(response.json['attachment']['id'])
        self.assertEqual('attached', attachment.attach_status)
        return attachment

    def shared_volume(self, *hosts):
        """A 1 GiB shareable volume attached through each of ``hosts``."""
        self.add_second_compute()
        volume = self.volume(multiattach=True)
        attachments = [self.attach_through(volume, host, mode)
                       for host, mode in zip(hosts, ('rw', 'ro', 'rw'))]
        self.assertEqual('in-use', self.status(volume))
        return volume, attachments

    def extend(self, volume, new_size, status=202):
        response = self.app.post_json(
            '/v3/%s/volumes/%s/action' % (base.PROJECT, volume.id),
            {'os-extend': {'new_size': new_size}}, headers=member(),
            status=status)
        self.settle()
        return response

    def volume_view(self, volume):
        return self.app.get('/v3/%s/volumes/%s' % (base.PROJECT, volume.id),
                            headers=admin()).json['volume']

    def attachment_view(self, attachment, headers=None):
        return self.app.get(
            '/v3/%s/attachments/%s' % (base.PROJECT, attachment.id),
            headers=headers or admin()).json['attachment']

    def resizes(self):
        return (self.hypervisor.called('resize_volume'),
                self.hypervisor2.called('resize_volume'))

    def test_every_attacher_sees_the_new_size(self):
        volume, (first, second) = self.shared_volume(self.COMPUTE,
                                                     self.COMPUTE2)
        # Each connection says the size from the start.
        self.assertEqual(1, self.attachment_view(
            first, member())['connection_info']['volume_size'])

        self.extend(volume, 2)

        view = self.volume_view(volume)
        self.assertEqual((2, 'in-use', None),
                         (view['size'], view['status'],
                          view[FAILURE_REASON]))
        self.assertEqual(2 * GiB, os.stat(self.path(volume)).st_size)
        # Each host's hypervisor driver resized its instance's disk.
        self.assertEqual(
            ([(first.instance_uuid, first.id, 2 * GiB)],
             [(second.instance_uuid, second.id, 2 * GiB)]), self.resizes())
        for attachment in (first, second):
            shown = self.attachment_view(attachment)
            self.assertEqual(2, shown['connection_info']['volume_size'])
            self.assertIsNone(shown[FAILURE_REASON])
            # A member sees Cinder's shape: no failure reason.
            self.assertNotIn(FAILURE_REASON,
                             self.attachment_view(attachment, member()))
        sent = self.notifications()
        self.assertEqual(
            sorted([first.id, second.id]),
            sorted(p['attachment_id'] for e, p in sent
                   if e == 'volume.attachment.extended'))
        (end,) = [p for e, p in sent if e == 'volume.extend.end']
        self.assertEqual((2, []), (end['new_size'],
                                   end['attachments_not_resized']))
        self.assertFalse([e for e, _p in sent
                          if e == 'volume.attachment.extend_failed'])

    def test_a_host_that_is_down_is_reported_without_waiting(self):
        volume, (first, second) = self.shared_volume(self.COMPUTE,
                                                     self.COMPUTE2)
        row = service_db.service_get_by_host_and_binary(
            self.admin_context, self.COMPUTE2, 'cinder-ma-manager')
        service_db.service_update(self.admin_context, row.id, {
            'heartbeat_at': timeutils.utcnow() - datetime.timedelta(
                seconds=self.conf.manager.service_down_time + 1)})
        started = time.monotonic()
        self.extend(volume, 2)
        # The service-up check answers at once: no RPC timeout waited.
        self.assertLess(time.monotonic() - started, 5)

        # The storage grew, and so did the record; the outcome names the
        # attachment whose instance was not told.
        view = self.volume_view(volume)
        self.assertEqual((2, 'in-use'), (view['size'], view['status']))
        self.assertIn('1 attachment(s) made through a manager do not see '
                      'the new size: attachment %s: extend to 2 GiB not '
                      'seen by instance %s on host compute2: The manager '
                      'for compute2 did not answer: it is down' % (
                          second.id, second.instance_uuid),
                      view[FAILURE_REASON])
        self.assertEqual(([(first.instance_uuid, first.id, 2 * GiB)], []),
                         self.resizes())
        self.assertIsNone(self.attachment_view(first)[FAILURE_REASON])
        shown = self.attachment_view(second)
        self.assertIn('extend to 2 GiB not seen by instance %s on host '
                      'compute2' % second.instance_uuid,
                      shown[FAILURE_REASON])
        # Its connection reaches the grown volume all the same.
        self.assertEqual(2, shown['connection_info']['volume_size'])
        sent = self.notifications()
        (failed,) = [p for e, p in sent
                     if e == 'volume.attachment.extend_failed']
        self.assertEqual((second.id, 2), (failed['attachment_id'],
                                          failed['new_size']))
        self.assertIn('it is down', failed['reason'])
        (end,) = [p for e, p in sent if e == 'volume.extend.end']
        self.assertEqual([second.id], end['attachments_not_resized'])
        # Its owner is told (Cinder's user message of a compute service
        # that did not extend).
        (message,) = message_db.message_get_all(self.admin_context)
        self.assertEqual(('VOLUME_VOLUME_007_009', volume.id),
                         (message.event_id, message.resource_uuid))

        # Once the host is back, the next extend reaches both and clears
        # the reasons.
        service_db.service_update(self.admin_context, row.id,
                                  {'heartbeat_at': timeutils.utcnow()})
        self.extend(volume, 3)
        view = self.volume_view(volume)
        self.assertEqual((3, None), (view['size'], view[FAILURE_REASON]))
        self.assertIsNone(self.attachment_view(second)[FAILURE_REASON])
        self.assertEqual([(second.instance_uuid, second.id, 3 * GiB)],
                         self.resizes()[1])

    def test_a_hypervisor_that_fails_is_reported(self):
        volume, (first, second) = self.shared_volume(self.COMPUTE,
                                                     self.COMPUTE2)
        self.hypervisor2.fail('resize_volume')
        self.extend(volume, 2)
        view = self.volume_view(volume)
        self.assertEqual((2, 'in-use'), (view['size'], view['status']))
        self.assertIn('injected failure of resize_volume',
                      self.attachment_view(second)[FAILURE_REASON])
        self.assertIn('attachment %s' % second.id, view[FAILURE_REASON])
        self.assertNotIn(first.id, view[FAILURE_REASON])
        # The volume is not held up: it can be detached, and extended.
        self.assertIsNone(self.detach(second.id))
        self.extend(volume, 3)
        self.assertIsNone(self.volume_view(volume)[FAILURE_REASON])

    def test_an_older_manager_is_reported(self):
        volume, (first, second) = self.shared_volume(self.COMPUTE,
                                                     self.COMPUTE2)
        # compute2's manager says it can resize but serves RPC 1.5 (a
        # services row that lags behind an upgrade, say).
        row = service_db.service_get_by_host_and_binary(
            self.admin_context, self.COMPUTE2, 'cinder-ma-manager')
        caps = jsonutils.loads(row.capabilities)
        caps[rpcapi.VERSION_KEY] = '1.5'
        service_db.service_update(self.admin_context, row.id,
                                  {'capabilities': jsonutils.dumps(caps)})
        self.extend(volume, 2)
        self.assertIn('its manager serves RPC API 1.5 and this needs 1.6',
                      self.attachment_view(second)[FAILURE_REASON])
        self.assertEqual(([(first.instance_uuid, first.id, 2 * GiB)], []),
                         self.resizes())
        self.assertEqual(2, self.volume_view(volume)['size'])

    def test_a_pin_below_1_6_is_reported(self):
        volume, attachments = self.shared_volume(self.COMPUTE,
                                                 self.COMPUTE2)
        self.flags(group='upgrade_levels', manager='1.5')
        self.addCleanup(rpcapi.reset_version_cap)
        # The backend's manager builds its RPC client with the pin.
        self.backend_manager.manager_api = rpcapi.ManagerAPI()
        self.extend(volume, 2)
        for attachment in attachments:
            self.assertIn('[upgrade_levels] manager pins 1.5',
                          self.attachment_view(attachment)[FAILURE_REASON])
        self.assertEqual(([], []), self.resizes())
        self.assertEqual(2, self.volume_view(volume)['size'])

    def test_refused_when_a_host_cannot_resize_disks(self):
        self.add_second_compute(mgr_fixtures.NoResizeHypervisor)
        volume = self.volume(multiattach=True)
        self.attach_through(volume, self.COMPUTE)
        second = self.attach_through(volume, self.COMPUTE2)
        response = self.extend(volume, 2, status=400)
        self.assertFault(
            response, 400, 'badRequest',
            'the hypervisor driver of the host of attachment %s on host '
            'compute2 cannot resize attached disks' % second.id)
        view = self.volume_view(volume)
        self.assertEqual((1, 'in-use'), (view['size'], view['status']))
        self.assertEqual(GiB, os.stat(self.path(volume)).st_size)

    def test_external_consumers_read_the_size_in_connection_info(self):
        # An attachment driven through the attachments API by a consumer
        # of its own: nothing to call, its connection info and the
        # notification tell it.
        self.add_second_compute()
        volume = self.volume(multiattach=True)
        external = self.app.post_json(
            '/v3/%s/attachments' % base.PROJECT,
            {'attachment': {'volume_uuid': volume.id,
                            'instance_uuid': str(uuid.uuid4()),
                            'connector': {'host': 'elsewhere'},
                            'mode': 'rw'}},
            headers=base.headers(user='nova', roles=['member', 'reader'],
                                 service_roles=['service'],
                                 version=mv.MAX_VERSION)).json['attachment']
        self.app.post_json(
            '/v3/%s/attachments/%s/action' % (base.PROJECT, external['id']),
            {'os-complete': None}, headers=member(), status=204)
        managed = self.attach_through(volume, self.COMPUTE2)
        self.assertEqual(1, external['connection_info']['volume_size'])
        self.extend(volume, 2)
        shown = self.app.get(
            '/v3/%s/attachments/%s' % (base.PROJECT, external['id']),
            headers=member()).json['attachment']
        self.assertEqual(2, shown['connection_info']['volume_size'])
        self.assertEqual(([], [(managed.instance_uuid, managed.id,
                                2 * GiB)]), self.resizes())
        extended = {p['attachment_id']: p for e, p in self.notifications()
                    if e == 'volume.attachment.extended'}
        self.assertEqual({external['id'], managed.id}, set(extended))
        self.assertEqual((2, 'elsewhere'),
                         (extended[external['id']]['new_size'],
                          extended[external['id']]['host']))

    def assertFault(self, response, code, name, message):
        self.assertEqual(code, response.status_int)
        self.assertEqual(code, response.json[name]['code'])
        self.assertIn(message, response.json[name]['message'])
