"""Tests of the connection locks of the attach and detach flows."""

import os
import threading

from cinder_ma.manager import locks
from tests import base


class LockNameTestCase(base.TestCase):

    def test_shared_targets(self):
        self.assertEqual(('cinder_ma-connect-svc-1', True),
                         locks.connection_lock_name('vol-1', True, 'svc-1'))

    def test_per_volume(self):
        self.assertEqual(('cinder_ma-connect-volume-vol-1', False),
                         locks.connection_lock_name('vol-1', False, 'svc-1'))
        self.assertEqual(('cinder_ma-connect-volume-vol-1', False),
                         locks.connection_lock_name('vol-1', False, None))

    def test_per_volume_between_processes(self):
        self.assertEqual(('cinder_ma-connect-volume-vol-1', True),
                         locks.connection_lock_name('vol-1', False, None,
                                                    inter_process=True))
        self.assertTrue(locks.ConnectionLock.for_volume(
            'vol-1', False, None, inter_process=True).external)

    def test_shared_targets_need_a_service(self):
        self.assertRaises(ValueError, locks.connection_lock_name, 'vol-1',
                          True, None)


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

    def test_internal_lock_serializes_threads(self):
        self._serializes(locks.ConnectionLock.for_volume('v', False, None),
                         locks.ConnectionLock.for_volume('v', False, None))

    def test_external_lock_serializes_and_uses_lock_path(self):
        first = locks.ConnectionLock.for_volume('v', True, 'svc-1')
        self._serializes(
            first, locks.ConnectionLock.for_volume('w', True, 'svc-1'))
        self.assertTrue(os.path.exists(os.path.join(
            self.conf.oslo_concurrency.lock_path, 'cinder_ma-connect-svc-1')))

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
