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

"""Tests of the process's tooz coordinator on the file backend (the
default): threads and processes of one host. Across hosts (Redis):
tests/functional/test_coordination.py."""

import os
import threading
import time

import fixtures
import tooz

from cinder_ma import coordination
from cinder_ma import exception
from tests import base


class BackendURLTestCase(base.TestCase):

    def url(self, value):
        self.flags(backend_url=value, group='coordination')
        return coordination.backend_url(self.conf)

    def test_default_in_the_state_directory(self):
        self.assertEqual('file://%s/coordination' % self.state_path,
                         coordination.backend_url(self.conf))

    def test_relative_state_path_made_absolute(self):
        # cinder-ma-all's default state_path is relative: tooz would read
        # file://./cinder-ma-state/coordination as /cinder-ma-state/...
        self.useFixture(fixtures.MonkeyPatch('os.getcwd',
                                             lambda: '/srv/here'))
        self.flags(state_path='./cinder-ma-state')
        self.assertEqual('file:///srv/here/cinder-ma-state/coordination',
                         coordination.backend_url(self.conf))
        self.assertEqual('file:///srv/here/locks?timeout=5',
                         self.url('file://locks?timeout=5'))

    def test_absolute_file_urls_unchanged(self):
        self.assertEqual('file:///var/x', self.url('file:///var/x'))
        self.assertEqual('file:///var/x', self.url('file://localhost/var/x'))

    def test_other_backends_unchanged(self):
        url = 'redis://:secret@redis.example:6379?namespace=cm'
        self.assertEqual(url, self.url(url))

    def test_describe_hides_credentials_and_options(self):
        self.assertEqual('redis://redis.example:6379', coordination.describe(
            'redis://:secret@redis.example:6379?namespace=cm'))
        self.assertEqual('postgresql://db', coordination.describe(
            'postgresql://user:secret@db/cm'))
        self.assertEqual('file:///var/x',
                         coordination.describe('file:///var/x?timeout=3'))


class CheckBackendTestCase(base.TestCase):

    def test_default_is_usable(self):
        coordination.check_backend(self.conf)
        # Nothing started, nothing written.
        self.assertFalse(os.path.exists(os.path.join(self.state_path,
                                                     'coordination')))

    def test_unknown_driver(self):
        self.flags(backend_url='nosuch://host', group='coordination')
        exc = self.assertRaises(exception.InvalidConfiguration,
                                coordination.check_backend, self.conf)
        self.assertIn('nosuch://host cannot be used', str(exc))

    def test_does_not_connect(self):
        self.flags(backend_url='redis://:secret@127.0.0.1:1',
                   group='coordination')
        coordination.check_backend(self.conf)


class CoordinatorTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.coordinator = coordination.Coordinator(self.conf)
        self.addCleanup(self.coordinator.stop)

    def test_started_on_first_use(self):
        self.assertFalse(self.coordinator.started)
        lock = self.coordinator.get_lock('a-lock')
        self.assertTrue(self.coordinator.started)
        self.assertEqual('file://%s/coordination' % self.state_path,
                         self.coordinator.url)
        self.assertTrue(self.coordinator.member_id.startswith(
            'cinder_ma-testhost-%d-' % os.getpid()))
        self.assertTrue(lock.acquire())
        lock.release()

    def test_stop_is_idempotent_and_use_starts_again(self):
        self.coordinator.stop()
        self.coordinator.get_lock('a-lock')
        first = self.coordinator.member_id
        self.coordinator.stop()
        self.coordinator.stop()
        self.assertFalse(self.coordinator.started)
        self.coordinator.get_lock('a-lock')
        self.assertNotEqual(first, self.coordinator.member_id)

    def test_cannot_start(self):
        # A directory that cannot be made (a Redis that refuses
        # connections fails the same way, after tooz's and the client's
        # retries: a minute).
        self.flags(backend_url='file:///proc/cinder_ma-nowhere?timeout=3',
                   group='coordination')
        exc = self.assertRaises(exception.CoordinationUnavailable,
                                self.coordinator.acquire, 'a-lock')
        self.assertEqual('The coordination backend is unavailable: cannot '
                         'start file:///proc/cinder_ma-nowhere: error '
                         'opening file', str(exc))
        self.assertFalse(self.coordinator.started)
        # The next use tries again.
        self.flags(backend_url='file://%s/other' % self.state_path,
                   group='coordination')
        self.coordinator.release(self.coordinator.acquire('a-lock'))
        self.assertTrue(self.coordinator.started)

    def test_acquire_failure_is_unavailable(self):
        lock = self.coordinator.get_lock('a-lock')
        self.useFixture(fixtures.MockPatchObject(
            type(lock), 'acquire',
            side_effect=tooz.ToozError('connection lost')))
        exc = self.assertRaises(exception.CoordinationUnavailable,
                                self.coordinator.acquire, 'a-lock')
        self.assertEqual('The coordination backend is unavailable: cannot '
                         'take the lock a-lock: connection lost', str(exc))

    def test_release_never_raises(self):
        held = self.coordinator.acquire('a-lock')
        self.useFixture(fixtures.MockPatchObject(
            type(held.lock), 'release',
            side_effect=tooz.ToozError('connection lost')))
        self.coordinator.release(held)
        # The thread lock of the name is released all the same.
        self.assertNotIn('a-lock', coordination._THREAD_LOCKS._locks)

    def _excludes(self, first, second, hold=0.2):
        """``second`` waits while ``first`` is held, in another thread,
        and gets it once released."""
        self.assertTrue(first.acquire())
        entered = threading.Event()

        def other():
            self.assertTrue(second.acquire())
            entered.set()
            second.release()

        thread = threading.Thread(target=other, daemon=True)
        thread.start()
        self.assertFalse(entered.wait(hold))
        first.release()
        self.assertTrue(entered.wait(10))
        thread.join(10)

    def test_file_lock_excludes_threads_of_one_process(self):
        # tooz's file lock is an fcntl lock, which a process holds for all
        # of its threads; the driver adds a thread barrier per path. Both
        # locks come from the same coordinator, as in a process.
        self._excludes(self.coordinator.get_lock('a-lock'),
                       self.coordinator.get_lock('a-lock'))

    def test_file_lock_excludes_threads_of_two_coordinators(self):
        other = coordination.Coordinator(self.conf)
        self.addCleanup(other.stop)
        self._excludes(self.coordinator.get_lock('a-lock'),
                       other.get_lock('a-lock'))

    def test_threads_never_overlap(self):
        self.assertEqual([], self._overlaps())

    def test_threads_excluded_whatever_the_backend_lock_does(self):
        # Two threads getting the file driver's lock of a path at the
        # same moment can each make the path's thread barrier (its
        # WeakValueDictionary.setdefault is not atomic); the fcntl lock,
        # the process's, then lets both in. Made to happen on demand: a
        # backend lock that excludes nobody.
        class Open:
            name = b'a-lock'

            def acquire(self, blocking=True):
                return True

            def release(self):
                return True

        self.useFixture(fixtures.MockPatchObject(
            self.coordinator, 'get_lock', side_effect=lambda name: Open()))
        self.assertEqual([], self._overlaps())

    def test_acquire_failure_releases_the_thread_lock(self):
        lock = self.coordinator.get_lock('a-lock')
        with fixtures.MockPatchObject(
                type(lock), 'acquire',
                side_effect=tooz.ToozError('connection lost')):
            self.assertRaises(exception.CoordinationUnavailable,
                              self.coordinator.acquire, 'a-lock')
        self.coordinator.release(self.coordinator.acquire('a-lock'))

    def _overlaps(self):
        """Four threads taking 'a-lock' 20 times each: the threads seen
        inside together (none when the lock excludes)."""
        inside = []
        overlaps = []
        guard = threading.Lock()

        def worker():
            for _ in range(20):
                lock = self.coordinator.acquire('a-lock')
                try:
                    with guard:
                        if inside:
                            overlaps.append(list(inside))
                        inside.append(threading.get_ident())
                    time.sleep(0.001)
                    with guard:
                        inside.remove(threading.get_ident())
                finally:
                    self.coordinator.release(lock)

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        return overlaps

    def test_other_names_do_not_wait(self):
        held = self.coordinator.acquire('a-lock')
        self.addCleanup(self.coordinator.release, held)
        self.coordinator.release(self.coordinator.acquire('b-lock'))
