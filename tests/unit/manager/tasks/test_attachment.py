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

"""Tests of the attachment record tasks and sentinels (real SQLite)."""

import fixtures
import oslo_messaging as messaging
from taskflow.types import failure as tf_failure

from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import messages as message_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager.tasks import attachment as attachment_tasks
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures


def _failure(exc):
    try:
        raise exc
    except Exception:
        return tf_failure.Failure()


INFO = {'driver_volume_type': 'file', 'data': {'path': '/v/volume-1'}}


class AttachmentTasksTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.volume = mgr_fixtures.VolumeFactory(self.context).create(
            status='available')
        self.att = attachment_db.attachment_reserve(
            self.context, self.volume.id, 'i1', manager_host='compute1')

    def _att(self):
        return attachment_db.attachment_get(self.context, self.att.id)

    def _volume_status(self):
        return volume_db.volume_get(self.context, self.volume.id).status

    def _set(self, status):
        attachment_db.attachment_update(self.context, self.att.id,
                                        {'attach_status': status})

    def test_sentinel_revert(self):
        logger = self.useFixture(fixtures.FakeLogger(
            name='cinder_ma.manager.tasks.attachment'))
        sentinel = attachment_tasks.AttachmentToErrorAttachingOnRevert()
        sentinel.execute(self.context, self.att.id)
        self.assertEqual('reserved', self._att().attach_status)
        failures = {'x': _failure(exception.DriverError(reason='boom'))}
        sentinel.revert(self.context, self.att.id, flow_failures=failures)
        self.assertEqual('error_attaching', self._att().attach_status)
        self.assertEqual('available', self._volume_status())
        self.assertIn('boom', logger.output)
        # The owner is told: a consumer's connection failed.
        (message,) = message_db.message_get_all(self.context)
        self.assertEqual(('VOLUME_VOLUME_004_001', self.volume.id,
                          self.volume.project_id),
                         (message.event_id, message.resource_uuid,
                          message.project_id))
        # Idempotent.
        sentinel.revert(self.context, self.att.id, flow_failures=failures)
        self.assertEqual('error_attaching', self._att().attach_status)

    def test_sentinel_leaves_moved_on_attachment(self):
        self._set('attached')
        attachment_tasks.AttachmentToErrorAttachingOnRevert().revert(
            self.context, self.att.id, flow_failures={})
        self.assertEqual('attached', self._att().attach_status)
        attachment_db.attachment_destroy(self.context, self.att.id)
        attachment_tasks.AttachmentToErrorDetachingOnRevert().revert(
            self.context, self.att.id, flow_failures={})

    def test_unreachable_service_left_for_the_reconcile_loop(self):
        # Attachments made through a manager (``reconciled``): a flow
        # that could not reach a manager or the broker, or got no answer
        # in time, undid what it did, and the loop runs the work again
        # once they answer.
        unreachable = [
            exception.ManagerUnavailable(host='node@file',
                                         reason='it is down'),
            exception.ManagerTimeout(host='node@file', reason='no answer'),
            messaging.MessageDeliveryFailure('broker gone')]
        for exc in unreachable:
            for cls, status in (
                    (attachment_tasks.AttachmentToErrorAttachingOnRevert,
                     'reserved'),
                    (attachment_tasks.AttachmentToErrorDetachingOnRevert,
                     'detaching')):
                self._set(status)
                cls(reconciled=True).revert(
                    self.context, self.att.id,
                    flow_failures={'x': _failure(exc)})
                self.assertEqual(status, self._att().attach_status, exc)
        # Any other failure is the request's.
        failures = {'x': _failure(exception.DriverError(reason='boom'))}
        attachment_tasks.AttachmentToErrorDetachingOnRevert(
            reconciled=True).revert(self.context, self.att.id,
                                    flow_failures=failures)
        self.assertEqual('error_detaching', self._att().attach_status)

    def test_unreachable_service_fails_a_consumers_flow(self):
        # The API's flows for consumers that connect themselves: the
        # consumer gets the error, the attachment its error status.
        self._set('reserved')
        failures = {'x': _failure(exception.ManagerUnavailable(
            host='node@file', reason='it is down'))}
        attachment_tasks.AttachmentToErrorAttachingOnRevert().revert(
            self.context, self.att.id, flow_failures=failures)
        self.assertEqual('error_attaching', self._att().attach_status)

    def test_detach_sentinel(self):
        self._set('detaching')
        attachment_tasks.AttachmentToErrorDetachingOnRevert().revert(
            self.context, self.att.id, flow_failures={})
        self.assertEqual('error_detaching', self._att().attach_status)
        self.assertEqual('error_detaching', self._volume_status())

    def test_record_attaching_and_revert(self):
        task = attachment_tasks.RecordAttaching()
        task.execute(self.context, self.att.id, 'compute1',
                     {'host': 'compute1'}, INFO, {'path': '/dev/x'})
        att = self._att()
        self.assertEqual('attaching', att.attach_status)
        self.assertEqual('attaching', self._volume_status())
        self.assertEqual('/dev/x', att.connection_info['data']['device_path'])
        self.assertEqual({'host': 'compute1'}, att.connector)
        task.revert(self.context, self.att.id, result=None)
        att = self._att()
        self.assertEqual('reserved', att.attach_status)
        self.assertIsNone(att.connection_info)
        self.assertIsNone(att.connector)
        # Idempotent, and a failed execute is not undone.
        task.revert(self.context, self.att.id, result=None)
        task.revert(self.context, self.att.id,
                    result=_failure(exception.Conflict(reason='x')))
        self.assertEqual('reserved', self._att().attach_status)

    def test_record_attaching_needs_reserved(self):
        self._set('error_attaching')
        self.assertRaises(exception.Conflict,
                          attachment_tasks.RecordAttaching().execute,
                          self.context, self.att.id, 'compute1', {}, INFO,
                          {'path': '/x'})

    def test_complete_and_revert(self):
        self._set('attaching')
        task = attachment_tasks.CompleteAttachment()
        task.execute(self.context, self.att.id, '/dev/vdc')
        att = self._att()
        self.assertEqual(('attached', '/dev/vdc'),
                         (att.attach_status, att.mountpoint))
        self.assertIsNotNone(att.attach_time)
        self.assertEqual('in-use', self._volume_status())
        task.revert(self.context, self.att.id, result=None)
        att = self._att()
        self.assertEqual('attaching', att.attach_status)
        self.assertIsNone(att.attach_time)

    def test_destroy(self):
        self._set('detaching')
        attachment_tasks.DestroyAttachment().execute(self.context,
                                                     self.att.id)
        self.assertRaises(exception.VolumeAttachmentNotFound, self._att)
        self.assertEqual('available', self._volume_status())

    def test_notify_reads_nothing_when_notifications_go_nowhere(self):
        # The 'noop' driver (the all-in-one's default): the payload is
        # never built.
        self.useFixture(mgr_fixtures.Notifications(self.conf))
        self.conf.set_override('driver', ['noop'],
                               group='oslo_messaging_notifications')
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))
        volume_get = self.useFixture(fixtures.MockPatchObject(
            volume_db, 'volume_get')).mock
        attachment_tasks.NotifyAttachment('attach.end').execute(
            self.context, self.volume.id, self.att.id, 'i1', 'rw',
            'compute1')
        volume_get.assert_not_called()

    def test_notify_never_raises(self):
        sent = self.useFixture(mgr_fixtures.Notifications(self.conf)).sent
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))
        task = attachment_tasks.NotifyAttachment('detach.end')
        self.assertEqual('NotifyAttachment.detach.end', task.name)
        task.execute(self.context, self.volume.id, self.att.id, 'i1', 'ro',
                     'compute1')
        (event, payload), = sent()
        self.assertEqual('volume.detach.end', event)
        self.assertEqual({'volume_id': self.volume.id,
                          'attachment_id': self.att.id,
                          'instance_uuid': 'i1', 'host': 'compute1',
                          'mode': 'ro', 'multiattach': False,
                          'project_id': 'fake-project'}, payload)
        task.execute(self.context, 'gone', self.att.id, 'i1', 'ro',
                     'compute1')
        self.assertEqual(1, len(sent()))
