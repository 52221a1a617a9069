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

"""Connection locks across hosts: two processes that share no state
directory (no lock files: two "hosts") race on the connection lock of one
volume (tests/functional/lock_racer.py).

With a shared ``[coordination] backend_url`` (Redis, PostgreSQL, MariaDB)
they never hold it at the same time; with each its own default backend
(lock files in its state directory) they do, which is what the shared
backend is for. Each test locks a volume of its own, and on Redis in a
namespace of its own, deleted afterwards.
"""

import json
import os
import subprocess
import sys
import textwrap
import time
import uuid

import fixtures
import sqlalchemy as sa
from testtools import content

from cinder_ma import coordination
from tests import base
from tests import fixtures as cm_fixtures
from tests.functional import fixtures as func_fixtures

ROUNDS = 5
#: Seconds a racer holds the lock, watching for the other one.
HOLD = 0.3


class CrossHostLockTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.directory = self.useFixture(fixtures.TempDir()).path
        self.shared = os.path.join(self.directory, 'shared')
        os.mkdir(self.shared)
        self.volume_id = str(uuid.uuid4())

    def start_host(self, name, backend_url=None):
        """A racer with a state directory and a lock path of its own."""
        home = os.path.join(self.directory, name)
        os.mkdir(home)
        sections = {
            'DEFAULT': {'host': name,
                        'state_path': os.path.join(home, 'state')},
            'oslo_concurrency': {'lock_path': os.path.join(home, 'locks')},
        }
        if backend_url:
            sections['coordination'] = {'backend_url': backend_url}
        config = func_fixtures.write_config(
            os.path.join(home, 'cinder-ma.conf'), sections)
        process = self.useFixture(func_fixtures.Process(
            name, [sys.executable, '-m', 'tests.functional.lock_racer',
                   '--config-file', config, name, self.shared, str(ROUNDS),
                   str(HOLD), self.volume_id],
            home, env=func_fixtures.environ(
                PYTHONPATH=func_fixtures.SOURCE_ROOT)))
        self.addOnException(lambda exc_info: self.addDetail(
            name, content.text_content(process.describe())))
        return process

    def race(self, backend_url=None):
        """Run two racers at once; their reports."""
        racers = [self.start_host('host-a', backend_url),
                  self.start_host('host-b', backend_url)]
        for racer in racers:
            path = os.path.join(self.shared, racer.name + '.ready')
            func_fixtures.wait_for(lambda p=path: os.path.exists(p),
                                   '%s ready' % racer.name,
                                   processes=[racer])
        open(os.path.join(self.shared, 'go'), 'w').close()
        deadline = time.monotonic() + 120
        for racer in racers:
            racer.proc.wait(max(1, deadline - time.monotonic()))
            self.assertEqual(0, racer.proc.returncode, racer.describe())
        return [json.loads(racer.stdout()) for racer in racers]

    def assert_serialized(self, backend_url):
        reports = self.race(backend_url)
        self.assertEqual([[], []], [r['overlaps'] for r in reports])
        self.assertEqual([ROUNDS, ROUNDS], [r['rounds'] for r in reports])
        # They did contend: one waited for the other to release.
        self.assertGreater(sum(r['waited'] for r in reports), HOLD, reports)
        self.assertEqual({coordination.describe(backend_url)},
                         {r['backend'] for r in reports})
        self.assertNotEqual(reports[0]['member_id'], reports[1]['member_id'])

    def test_shared_redis_backend_serializes_hosts(self):
        redis = self.useFixture(cm_fixtures.RedisNamespace(self))
        self.assert_serialized(redis.url)
        # Released: no lock is left held in the test's namespace.
        self.assertEqual([], [k for k in redis.keys() if b'_lock' in k])

    def database_url(self, backend):
        """tooz's URL of the test database server (its own scheme)."""
        url = sa.engine.make_url(cm_fixtures.server_url_or_skip(
            self, backend))
        return url.set(drivername=url.get_backend_name()).render_as_string(
            hide_password=False)

    def test_shared_postgresql_backend_serializes_hosts(self):
        # Advisory locks.
        self.assert_serialized(self.database_url('postgresql'))

    def test_shared_mysql_backend_serializes_hosts(self):
        # Named locks (GET_LOCK).
        self.assert_serialized(self.database_url('mysql'))

    def test_host_local_backends_do_not(self):
        # The control: each "host" locks files of its own state directory.
        reports = self.race()
        self.assertTrue(any(r['overlaps'] for r in reports), reports)
        self.assertEqual(2, len({r['backend'] for r in reports}))


#: A process taking a lock of the file backend without waiting: prints
#: whether it got it.
TRY_LOCK = textwrap.dedent('''
    import sys
    from tooz import coordination
    coordinator = coordination.get_coordinator(sys.argv[1], b'other')
    coordinator.start()
    lock = coordinator.get_lock(sys.argv[2].encode())
    got = lock.acquire(blocking=False)
    print(got)
    if got:
        lock.release()
    coordinator.stop()
''')


class ProcessesTestCase(base.TestCase):

    def try_lock(self, url, name):
        result = subprocess.run(
            [sys.executable, '-c', TRY_LOCK, url, name],
            capture_output=True, text=True, check=True, timeout=60)
        return result.stdout.strip()

    def test_file_lock_excludes_other_processes_of_the_host(self):
        coordinator = coordination.COORDINATOR
        lock = coordinator.acquire('a-lock')
        try:
            self.assertEqual('False', self.try_lock(coordinator.url,
                                                    'a-lock'))
        finally:
            coordinator.release(lock)
        self.assertEqual('True', self.try_lock(coordinator.url, 'a-lock'))

    def test_forked_child_starts_its_own(self):
        coordinator = coordination.Coordinator(self.conf)
        self.addCleanup(coordinator.stop)
        coordinator.get_lock('a-lock')
        parent_member = coordinator.member_id
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report, then leave at once
            try:
                report = {'started_after_fork': coordinator.started}
                lock = coordinator.acquire('b-lock')
                coordinator.release(lock)
                report['member'] = coordinator.member_id
                coordinator.stop()
                os.write(write_end, json.dumps(report).encode())
            finally:
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end) as pipe:
            report = json.loads(pipe.read())
        os.waitpid(pid, 0)
        self.assertFalse(report['started_after_fork'])
        self.assertTrue(report['member'].startswith(
            'cinder_ma-testhost-%d-' % pid))
        # The parent's coordinator was left alone.
        self.assertTrue(coordinator.started)
        self.assertEqual(parent_member, coordinator.member_id)
