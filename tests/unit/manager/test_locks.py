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

"""Tests of the connection locks of the attach and detach flows, on the
coordination backend of the tests (lock files in the state directory).
The same locks across processes and hosts (Redis):
tests/functional/test_coordination.py."""

import os
import threading

from cinder_ma import coordination
from cinder_ma.db import records
from cinder_ma import exception
from cinder_ma.manager import locks
from tests import base


class LockNameTestCase(base.TestCase):

    def test_shared_targets(self):
        self.assertEqual('cinder_ma-connect-svc-1',
                         locks.connection_lock_name('vol-1', True, 'svc-1'))

    def test_per_volume(self):
        self.assertEqual('cinder_ma-connect-volume-vol-1',
                         locks.connection_lock_name('vol-1', False, 'svc-1'))
        self.assertEqual('cinder_ma-connect-volume-vol-1',
                         locks.connection_lock_name('vol-1', False, None))

    def test_shared_targets_need_a_service(self):
        self.assertRaises(ValueError, locks.connection_lock_name, 'vol-1',
                          True, None)

    def test_lock_of_a_volume(self):
        volume = records.volume_from_row(
            dict(dict.fromkeys(records.VOLUME_COLUMNS), id='vol-1',
                 shared_targets=True, service_uuid='svc-1'))
        self.assertEqual('cinder_ma-connect-svc-1',
                         locks.inter_process_lock_of(volume).name)
        # Shared targets without a service uuid: the volume's own lock.
        volume = volume.replace(service_uuid=None)
        self.assertEqual('cinder_ma-connect-volume-vol-1',
                         locks.inter_process_lock_of(volume).name)
        self.assertEqual(
            locks.inter_process_lock_of(volume).name,
            locks.ConnectionLock.for_volume('vol-1', False, None).name)


class ConnectionLockTestCase(base.TestCase):

    def test_idempotent(self):
        lock = locks.ConnectionLock.for_volume('vol-1', False, None)
        self.assertFalse(lock.held)
        lock.release()
        lock.acquire()
        lock.acquire()
        self.assertTrue(lock.held)
        self.assertIn('held', repr(lock))
        lock.release()
        lock.release()
        self.assertFalse(lock.held)

    def _serializes(self, first, second):
        first.acquire()
        entered = threading.Event()

        def other():
            second.acquire()
            entered.set()
            second.release()

        thread = threading.Thread(target=other, daemon=True)
        thread.start()
        self.assertFalse(entered.wait(0.2))
        first.release()
        self.assertTrue(entered.wait(10))
        thread.join(10)

    def test_volume_lock_serializes_threads(self):
        self._serializes(locks.ConnectionLock.for_volume('v', False, None),
                         locks.ConnectionLock.for_volume('v', False, None))

    def test_is_a_lock_of_the_coordination_backend(self):
        first = locks.ConnectionLock.for_volume('v', True, 'svc-1')
        self._serializes(
            first, locks.ConnectionLock.for_volume('w', True, 'svc-1'))
        self.assertIs(coordination.COORDINATOR, first.coordinator)
        # The default backend: lock files in the state directory.
        self.assertTrue(os.path.exists(os.path.join(
            self.state_path, 'coordination', 'cinder_ma-connect-svc-1')))

    def test_other_volumes_do_not_wait(self):
        first = locks.ConnectionLock.for_volume('v', False, None)
        first.acquire()
        self.addCleanup(first.release)
        other = locks.ConnectionLock.for_volume('w', False, None)
        done = threading.Event()

        def take():
            other.acquire()
            other.release()
            done.set()

        threading.Thread(target=take, daemon=True).start()
        self.assertTrue(done.wait(10))

    def test_backend_down(self):
        # A directory that cannot be made: the coordinator cannot start.
        self.flags(backend_url='file:///proc/cinder_ma-nowhere',
                   group='coordination')
        lock = locks.ConnectionLock.for_volume('v', False, None)
        exc = self.assertRaises(exception.CoordinationUnavailable,
                                lock.acquire)
        self.assertEqual(503, exc.code)
        self.assertFalse(lock.held)
        lock.release()
