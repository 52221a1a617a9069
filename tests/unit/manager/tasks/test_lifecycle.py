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

"""Tests of the lifecycle sentinels."""

import fixtures
import kombu.exceptions
from oslo_db import exception as db_exc
import oslo_messaging as messaging
from taskflow.types import failure as tf_failure

from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager.tasks import lifecycle
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures


def _failure(exc):
    try:
        raise exc
    except Exception:
        return tf_failure.Failure()


class FailureReasonTestCase(base.TestCase):

    def test_reason(self):
        failures = {'a': _failure(exception.DriverError(reason='boom')),
                    'b': _failure(exception.DriverError(reason='boom'))}
        self.assertEqual('Storage driver error: boom',
                         lifecycle.failure_reason(failures))
        self.assertEqual('unknown error', lifecycle.failure_reason(None))

    def test_reason_without_message(self):
        # Its type's name (a revert must never fail for want of a
        # message).
        self.assertEqual('RuntimeError', lifecycle.failure_reason(
            {'a': _failure(RuntimeError())}))

    def test_reason_masked_and_truncated(self):
        reason = lifecycle.failure_reason(
            {'a': _failure(ValueError('password=s3cret ' + 'x' * 2000))})
        self.assertNotIn('s3cret', reason)
        self.assertEqual(lifecycle.MAX_REASON_LENGTH, len(reason))
        self.assertTrue(reason.endswith('...'))


class ServiceUnavailableTestCase(base.TestCase):

    def test_unavailable(self):
        for exc in (exception.ManagerUnavailable(host='h', reason='down'),
                    exception.ManagerTimeout(host='h', reason='late'),
                    messaging.MessagingTimeout('late'),
                    messaging.MessageDeliveryFailure('no broker'),
                    kombu.exceptions.OperationalError('refused')):
            self.assertTrue(lifecycle.service_unavailable(
                {'t': _failure(exc)}), exc)

    def test_other_failures(self):
        for exc in (exception.DriverError(reason='bad'),
                    exception.InvalidVolume(reason='busy'),
                    db_exc.DBConnectionError('gone')):
            self.assertFalse(lifecycle.service_unavailable(
                {'t': _failure(exc)}), exc)
        self.assertFalse(lifecycle.service_unavailable(None))


class SentinelTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.volumes = mgr_fixtures.VolumeFactory(self.context)
        self.failures = {'t': _failure(exception.DriverError(reason='bad'))}

    def test_execute_does_nothing(self):
        volume = self.volumes.create()
        self.assertIsNone(lifecycle.VolumeToErrorOnRevert().execute(
            self.context, volume.id))
        self.assertEqual('creating', volume_db.volume_get(
            self.context, volume.id).status)

    def test_revert_marks_error_and_is_idempotent(self):
        volume = self.volumes.create()
        sentinel = lifecycle.VolumeToErrorOnRevert()
        for _ in range(2):
            sentinel.revert(self.context, volume.id, result=None,
                            flow_failures=self.failures)
            vol = volume_db.volume_get(self.context, volume.id)
            self.assertEqual(('error', 'Storage driver error: bad'),
                             (vol.status, vol.error_reason))

    def test_lost_database_is_left_for_the_reconcile_loop(self):
        volume = self.volumes.create()
        failures = {'t': _failure(db_exc.DBConnectionError('gone'))}
        lifecycle.VolumeToErrorOnRevert().revert(
            self.context, volume.id, result=None, flow_failures=failures)
        self.assertEqual('creating', volume_db.volume_get(
            self.context, volume.id).status)

    def test_revert_on_own_failure_still_marks(self):
        volume = self.volumes.create()
        lifecycle.VolumeToErrorOnRevert().revert(
            self.context, volume.id, result=self.failures['t'],
            flow_failures=self.failures)
        self.assertEqual('error', volume_db.volume_get(
            self.context, volume.id).status)

    def test_revert_leaves_other_states_alone(self):
        volume = self.volumes.create(status='available')
        lifecycle.VolumeToErrorOnRevert().revert(
            self.context, volume.id, result=None,
            flow_failures=self.failures)
        self.assertEqual('available', volume_db.volume_get(
            self.context, volume.id).status)
        lifecycle.VolumeToErrorOnRevert().revert(
            self.context, 'no-such-volume', result=None,
            flow_failures=self.failures)

    def test_revert_never_raises(self):
        volume = self.volumes.create(status='deleting')
        self.useFixture(fixtures.MockPatchObject(
            volume_db, 'volume_update', side_effect=RuntimeError('db down')))
        lifecycle.VolumeToErrorDeletingOnRevert().revert(
            self.context, volume.id, result=None,
            flow_failures=self.failures)

    def test_delete_sentinel(self):
        volume = self.volumes.create(status='deleting')
        lifecycle.VolumeToErrorDeletingOnRevert().revert(
            self.context, volume.id, result=None,
            flow_failures=self.failures)
        vol = volume_db.volume_get(self.context, volume.id)
        self.assertEqual('error_deleting', vol.status)
        self.assertIn('bad', vol.error_reason)
