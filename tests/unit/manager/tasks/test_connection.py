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

"""Tests of the connection tasks: the counting rule, reverts, the lock.

Real SQLite attachments decide whether a connection is still used; the
backend manager is a recorder standing for the ManagerAPI (the RPC path is
exercised by the flow tests), and the host connector is the file
connector with recording added.
"""

import os
from unittest import mock

import fixtures
import oslo_messaging as messaging
from taskflow.types import failure as tf_failure

from cinder_ma.db import attachments as attachment_db
from cinder_ma import exception
from cinder_ma.manager import connector as host_connector
from cinder_ma.manager import locks
from cinder_ma.manager import rpcapi
from cinder_ma.manager.tasks import connection as connection_tasks
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures


def _failure(exc):
    try:
        raise exc
    except Exception:
        return tf_failure.Failure()


class RecordingManagerAPI:
    """Stands for rpcapi.ManagerAPI (backend side)."""

    def __init__(self, path):
        self.path = path
        self.calls = []
        self.attachment_ids = []
        self.terminate_error = None

    def initialize_connection(self, context, volume_id, host, connector,
                              attach_mode, attachment_id=None, **read):
        # ``read``: as manager._LocalFirst takes it.
        self.calls.append(('initialize', volume_id, attach_mode) +
                          tuple(read.values()))
        self.attachment_ids.append(attachment_id)
        return {'driver_volume_type': 'file',
                'data': {'path': self.path}}

    def terminate_connection(self, context, volume_id, host, connector,
                             attachment_id=None):
        self.calls.append(('terminate', volume_id))
        self.attachment_ids.append(attachment_id)
        if self.terminate_error:
            raise self.terminate_error

    def can_send_version(self, version):
        return True


class ConnectionTasksTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.volumes = mgr_fixtures.VolumeFactory(self.context)
        self.volume = self.volumes.create(status='available',
                                          multiattach=True,
                                          service_uuid='svc-1')
        self.path = os.path.join(self.state_path, 'volume-1')
        open(self.path, 'w').close()
        self.api = RecordingManagerAPI(self.path)
        self.connectors = host_connector.Connectors(
            self.conf, classes={'file': mgr_fixtures.RecordingFileConnector})
        self.recorder = self.connectors.get('file')
        self.att = self._attachment()
        self.info = {'driver_volume_type': 'file',
                     'data': {'path': self.path}}

    def _attachment(self, status='reserved', volume=None):
        volume = volume or self.volume
        att = attachment_db.attachment_reserve(
            self.context, volume.id, 'i1', manager_host='compute1')
        if status != 'reserved':
            # Past 'reserved', an attachment recorded its host's connector.
            attachment_db.attachment_update(
                self.context, att.id,
                {'attach_status': status, 'connector': {'host': 'compute1'}})
        return att

    def _init(self, **kw):
        args = dict(manager_api=self.api, context=self.context,
                    volume_id=self.volume.id, volume_host=self.volume.host,
                    connector={'host': 'compute1'}, attachment_id=self.att.id,
                    host='compute1')
        args.update(kw)
        return args

    def test_initialize(self):
        task = connection_tasks.InitializeConnection()
        args = self._init()
        del args['host']
        info = task.execute(attach_mode='ro', **args)
        self.assertEqual('ro', info['data']['access_mode'])
        self.assertEqual(self.att.id, info['attachment_id'])
        task.revert(result=info, **self._init())
        self.assertEqual([('initialize', self.volume.id, 'ro'),
                          ('terminate', self.volume.id)], self.api.calls)

    def test_lock_and_initialize(self):
        lock = locks.ConnectionLock('test-lock')
        task = connection_tasks.LockAndInitializeConnection()
        args = self._init()
        del args['host']
        read = (self.volume, (None, None))
        info = task.execute(connection_lock=lock, attach_mode='rw',
                            read=read, **args)
        # Initialized under the lock, which the run keeps, with what the
        # flow read.
        self.assertEqual('rw', info['data']['access_mode'])
        self.assertEqual([('initialize', self.volume.id, 'rw', read)],
                         self.api.calls)
        self.assertTrue(lock.held)
        task.revert(connection_lock=lock, result=info, **self._init())
        self.assertEqual(('terminate', self.volume.id), self.api.calls[-1])
        self.assertFalse(lock.held)
        # A failed take of the lock: nothing initialized, nothing held.
        self.useFixture(fixtures.MockPatchObject(
            lock, 'acquire', side_effect=exception.CoordinationUnavailable(
                reason='down')))
        self.assertRaises(exception.CoordinationUnavailable, task.execute,
                          connection_lock=lock, attach_mode='rw', read=read,
                          **args)
        self.assertEqual(2, len(self.api.calls))
        task.revert(connection_lock=lock,
                    result=_failure(RuntimeError('x')), **self._init())
        self.assertEqual(2, len(self.api.calls))
        self.assertFalse(lock.held)

    def test_initialize_revert_keeps_a_used_connection(self):
        self._attachment('attached')
        connection_tasks.InitializeConnection().revert(
            result={}, **self._init())
        self.assertEqual([], self.api.calls)

    def test_initialize_revert_after_failure(self):
        task = connection_tasks.InitializeConnection()
        task.revert(result=_failure(exception.DriverError(reason='x')),
                    **self._init())
        self.assertEqual([], self.api.calls)
        task.revert(result=_failure(messaging.MessagingTimeout('lost')),
                    **self._init())
        self.assertEqual([('terminate', self.volume.id)], self.api.calls)

    def test_initialize_timeout_of_a_per_attachment_backend(self):
        # The answer is lost: the backend, which makes connections per
        # attachment (as it reported), is told to end this one's.
        self.make_backend(self.volume.host.split('#')[0],
                          per_attachment_connections=True)
        self._attachment('attached')   # another user of the host
        connection_tasks.InitializeConnection().revert(
            result=_failure(messaging.MessagingTimeout('lost')),
            **self._init())
        self.assertEqual([('terminate', self.volume.id)], self.api.calls)
        self.assertEqual([self.att.id], self.api.attachment_ids)

    def test_initialize_revert_of_an_attachments_own_connection(self):
        self._attachment('attached')   # another user of the host
        scoped = dict(self.info, **{
            rpcapi.SCOPE_KEY: rpcapi.ATTACHMENT_SCOPE})
        connection_tasks.InitializeConnection().revert(
            result=scoped, **self._init())
        self.assertEqual([('terminate', self.volume.id)], self.api.calls)
        self.assertEqual([self.att.id], self.api.attachment_ids)

    def test_initialize_revert_never_raises(self):
        self.api.terminate_error = exception.ManagerUnavailable(
            host='h', reason='down')
        connection_tasks.InitializeConnection().revert(
            result={}, **self._init())

    def _conn(self, **kw):
        args = dict(context=self.context, volume_id=self.volume.id,
                    attachment_id=self.att.id, host='compute1',
                    shared_service_uuid=None, connection_info=self.info)
        args.update(kw)
        return args

    def test_connect_and_revert(self):
        task = connection_tasks.ConnectVolume(self.connectors)
        device = task.execute(self.info)
        self.assertEqual({'path': self.path}, device)
        task.revert(result=device, **self._conn())
        self.assertEqual([(self.path, False)],
                         self.recorder.called('disconnect_volume'))
        task.revert(result=_failure(exception.DriverError(reason='x')),
                    **self._conn())
        self.assertEqual(1, len(self.recorder.called('disconnect_volume')))

    def test_disconnect_counts(self):
        task = connection_tasks.DisconnectVolume(self.connectors)
        other = self._attachment('attached')
        task.execute(**self._conn())
        self.assertEqual([], self.recorder.called('disconnect_volume'))
        attachment_db.attachment_update(self.context, other.id,
                                        {'attach_status': 'error_attaching'})
        task.execute(**self._conn())
        self.assertEqual([(self.path, False)],
                         self.recorder.called('disconnect_volume'))
        task.execute(**self._conn(connection_info=None))
        self.assertEqual(1, len(self.recorder.called('disconnect_volume')))

    def test_shared_target_hint(self):
        neighbour = self.volumes.create(status='available',
                                        service_uuid='svc-1')
        self._attachment('attached', volume=neighbour)
        task = connection_tasks.DisconnectVolume(self.connectors)
        task.execute(**self._conn(shared_service_uuid='svc-1'))
        task.execute(**self._conn(shared_service_uuid=None))
        self.assertEqual([(self.path, True), (self.path, False)],
                         self.recorder.called('disconnect_volume'))

    def test_terminate_an_attachments_own_connection(self):
        task = connection_tasks.TerminateConnection()
        self._attachment('attached')   # another user of the host
        scoped = dict(self.info, **{
            rpcapi.SCOPE_KEY: rpcapi.ATTACHMENT_SCOPE})
        task.execute(manager_api=self.api, context=self.context,
                     volume_id=self.volume.id, volume_host=self.volume.host,
                     attachment_id=self.att.id, host='compute1',
                     connector={'host': 'compute1'}, connection_info=scoped)
        self.assertEqual([('terminate', self.volume.id)], self.api.calls)
        self.assertEqual([self.att.id], self.api.attachment_ids)

    def test_terminate_counts(self):
        task = connection_tasks.TerminateConnection()
        args = dict(manager_api=self.api, context=self.context,
                    volume_id=self.volume.id, volume_host=self.volume.host,
                    attachment_id=self.att.id, host='compute1',
                    connector={'host': 'compute1'})
        other = self._attachment('detaching')
        task.execute(**args)
        # Another host's attachment does not count.
        attachment_db.attachment_update(self.context, other.id,
                                        {'attached_host': 'compute2'})
        task.execute(**args)
        task.execute(**dict(args, connector=None))
        self.assertEqual([('terminate', self.volume.id)], self.api.calls)
        task.revert(volume_id=self.volume.id, host='compute1', result=None)

    def test_lock_and_terminate(self):
        lock = locks.ConnectionLock('test-lock')
        task = connection_tasks.LockAndTerminateConnection()
        task.execute(connection_lock=lock, manager_api=self.api,
                     context=self.context, volume_id=self.volume.id,
                     volume_host=self.volume.host, attachment_id=self.att.id,
                     host='compute1', connector={'host': 'compute1'})
        # Terminated under the lock, which the run keeps.
        self.assertEqual([('terminate', self.volume.id)], self.api.calls)
        self.assertTrue(lock.held)
        task.revert(connection_lock=lock, context=self.context,
                    volume_id=self.volume.id, attachment_id=self.att.id,
                    host='compute1', result=None)
        self.assertFalse(lock.held)
        # A failed take of the lock: nothing terminated, nothing held.
        self.useFixture(fixtures.MockPatchObject(
            lock, 'acquire', side_effect=exception.CoordinationUnavailable(
                reason='down')))
        self.assertRaises(
            exception.CoordinationUnavailable, task.execute,
            connection_lock=lock, manager_api=self.api, context=self.context,
            volume_id=self.volume.id, volume_host=self.volume.host,
            attachment_id=self.att.id, host='compute1',
            connector={'host': 'compute1'})
        self.assertEqual(1, len(self.api.calls))
        task.revert(connection_lock=lock, context=self.context,
                    volume_id=self.volume.id, attachment_id=self.att.id,
                    host='compute1', result=_failure(RuntimeError('x')))
        self.assertFalse(lock.held)

    def test_sentinel_reverted_last(self):
        # The sentinel a task carries is reverted after the task's own
        # revert and the release of the lock, with the flow's failures,
        # as TaskFlow would revert it placed before the task.
        failures = {'t': _failure(RuntimeError('x'))}
        for task_cls, args in (
                (connection_tasks.LockAndInitializeConnection,
                 dict(self._init(), connection_lock=None)),
                (connection_tasks.LockAndTerminateConnection,
                 dict(connection_lock=None, context=self.context,
                      volume_id=self.volume.id, attachment_id=self.att.id,
                      host='compute1'))):
            order = []
            lock = mock.Mock()
            lock.release.side_effect = lambda: order.append('release')
            sentinel = mock.Mock()
            sentinel.revert.side_effect = (
                lambda *a, **k: order.append(('sentinel', a, k)))
            task = task_cls(sentinel=sentinel)
            task.revert(**dict(args, connection_lock=lock,
                               result=_failure(RuntimeError('x')),
                               flow_failures=failures))
            self.assertEqual(
                ['release', ('sentinel', (self.context, self.att.id),
                             {'flow_failures': failures})], order)
            # A revert that raises stops the reverting: not the sentinel.
            order.clear()
            lock.release.side_effect = RuntimeError('lock lost')
            self.assertRaises(RuntimeError, task.revert,
                              **dict(args, connection_lock=lock,
                                     result=_failure(RuntimeError('x')),
                                     flow_failures=failures))
            self.assertEqual([], order)

    def test_lock_tasks(self):
        lock = locks.ConnectionLock('test-lock')
        acquire = connection_tasks.AcquireConnectionLock()
        release = connection_tasks.ReleaseConnectionLock()
        acquire.execute(lock)
        self.assertTrue(lock.held)
        release.execute(lock)
        self.assertFalse(lock.held)
        # Reverting what ran after the release takes the lock again, and
        # the acquire's revert lets it go.
        release.revert(lock, result=None)
        self.assertTrue(lock.held)
        acquire.revert(lock, result=None)
        self.assertFalse(lock.held)
        release.revert(lock, result=_failure(RuntimeError('x')))
        self.assertFalse(lock.held)

    def test_lock_not_taken_again_stops_the_reverting(self):
        # Reverting what the lock guarded without it could tear down a
        # connection another attachment uses: the revert raises, which
        # stops TaskFlow's engine reverting (the reconcile loop, or the
        # client's retry, finishes the work).
        lock = locks.ConnectionLock('test-lock')
        self.useFixture(fixtures.MockPatchObject(
            lock, 'acquire', side_effect=exception.CoordinationUnavailable(
                reason='down')))
        self.assertRaises(exception.CoordinationUnavailable,
                          connection_tasks.ReleaseConnectionLock().revert,
                          lock, result=None)

    def test_connector_properties(self):
        props = connection_tasks.GetConnectorProperties().execute('compute7')
        self.assertEqual('compute7', props['host'])
