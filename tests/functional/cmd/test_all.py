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

"""cinder-ma-all serving: main() in this process with its real server,
and the real command in a process of its own (the state directory is
tested in tests/unit/cmd/test_all.py)."""

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request

import fixtures

from cinder_ma.cmd import all as all_cmd
from cinder_ma.db import services as service_db
from cinder_ma import rpc
from tests import base
from tests import fixtures as cm_fixtures
from tests.functional import fixtures as func_fixtures
from tests.unit.cmd import test_manage

READY = re.compile(r'^cinder-ma-all: API listening on (http://\S+)/v3 '
                   r'\(state in (/\S+)\)$')


def request(url, method='GET', body=None, timeout=10):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={
        'X-Auth-Token': 'user:proj', 'Content-Type': 'application/json',
        'Accept': 'application/json'})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            text = resp.read()
            return resp.status, json.loads(text) if text else None
    except urllib.error.HTTPError as exc:
        return exc.code, None


def wait_for_status(url, status, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        code, body = request(url)
        current = body['volume']['status'] if code == 200 else code
        if current == status:
            return current
        time.sleep(0.05)
    return current


def exercise_api(base_url, volumes_dir, testcase):
    """Create a volume through the API, see its file, delete it."""
    code, body = request(base_url + '/v3/proj/volumes', 'POST',
                         {'volume': {'size': 1, 'name': 'v1'}})
    testcase.assertEqual(202, code)
    volume_url = base_url + '/v3/proj/volumes/' + body['volume']['id']
    testcase.assertEqual('available', wait_for_status(volume_url,
                                                      'available'))
    path = os.path.join(volumes_dir, 'volume-' + body['volume']['id'])
    testcase.assertEqual(1024 ** 3, os.stat(path).st_size)
    code, _body = request(volume_url, 'DELETE')
    testcase.assertEqual(202, code)
    testcase.assertEqual(404, wait_for_status(volume_url, 404))
    testcase.assertFalse(os.path.exists(path))


class MainInProcessTestCase(base.DBTestCase):
    """main() with the real app, manager and server; no signals."""

    def setUp(self):
        super().setUp()
        self.cmd = self.useFixture(test_manage.CommandFixture())
        self.addCleanup(self.conf.set_default, 'rpc_transport', 'oslo')
        self.flags(group='api', port=0)
        # cinder-ma-all's own default would be ./cinder-ma-state.
        self.flags(state_path=self.state_path)
        self.served = []

    def _serve(self, server):
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            line = self.cmd.stdout.getvalue().strip()
            match = READY.match(line)
            self.assertIsNotNone(match, line)
            self.served.append(match.groups())
            exercise_api(match.group(1),
                         os.path.join(self.state_path, 'volumes'), self)
        finally:
            server.close()
            thread.join(10)

    def test_main(self):
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.cmd.api.run_server', side_effect=self._serve))
        self.assertEqual(0, all_cmd.main(['cinder-ma-all']))
        (url, state), = self.served
        self.assertEqual(self.state_path, state)
        self.assertFalse(rpc.initialized())
        hosts = sorted(s.host for s in service_db.service_get_all(
            self.admin_context))
        self.assertEqual(['testhost', 'testhost@file'], hosts)

    def test_missing_driver(self):
        config = os.path.join(self.state_path, 'bad.conf')
        with open(config, 'w') as f:
            f.write('[DEFAULT]\nenabled_backends = bad\n'
                    '[bad]\nvolume_driver = nope\n')
        self.assertEqual(1, all_cmd.main(['cinder-ma-all', '--config-file',
                                          config]))
        self.assertIn('cinder-ma-all: error: No driver named nope',
                      self.cmd.stderr.getvalue())
        self.assertFalse(rpc.initialized())


    def test_unknown_coordination_backend(self):
        self.flags(backend_url='nosuch://host', group='coordination')
        self.assertEqual(1, all_cmd.main(['cinder-ma-all']))
        self.assertIn('cinder-ma-all: error: Invalid configuration: '
                      '[coordination] backend_url nosuch://host cannot be '
                      'used', self.cmd.stderr.getvalue())


class CommandTestCase(base.TestCase):
    """The real command in a process of its own, stopped by signals."""

    def _start(self, workers=1, own_state=True):
        """Start cinder-ma-all in the test's directory; with
        ``own_state=False`` its state goes to its default place,
        ./cinder-ma-state."""
        if own_state:
            state = os.path.join(self.state_path, 'state')
        else:
            state = os.path.join(self.state_path, 'cinder-ma-state')
        config = os.path.join(self.state_path, 'all.conf')
        with open(config, 'w') as f:
            f.write('[DEFAULT]\n%shost = allhost\n'
                    'log_file = %s\n[api]\nhost_ip = 127.0.0.1\nport = 0\n'
                    'workers = %d\n'
                    % ('state_path = %s\n' % state if own_state else '',
                       os.path.join(self.state_path, 'all.log'), workers))
        proc = subprocess.Popen(
            [sys.executable, '-W', 'ignore', '-m', 'cinder_ma.cmd.all',
             '--config-file', config],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=self.state_path)
        self.addCleanup(self._kill, proc)
        lines = []
        reader = threading.Thread(
            target=lambda: lines.append(proc.stdout.readline()),
            daemon=True)
        reader.start()
        reader.join(60)
        self.assertTrue(lines and lines[0], 'no ready line; stderr: %s' % (
            proc.stderr.read() if proc.poll() is not None else '(running)'))
        match = READY.match(lines[0].strip())
        self.assertIsNotNone(match, lines[0])
        self.assertEqual(state, match.group(2))
        return proc, match.group(1), state

    def _kill(self, proc):
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()

    def test_serves_and_stops_on_sigterm(self):
        proc, url, state = self._start()
        exercise_api(url, os.path.join(state, 'volumes'), self)
        self.assertTrue(os.path.exists(os.path.join(state,
                                                    'cinder-ma.sqlite')))
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(0, proc.wait(30))

    def test_stops_on_sigint(self):
        proc, url, _state = self._start()
        self.assertEqual(200, request(url + '/v3')[0])
        proc.send_signal(signal.SIGINT)
        self.assertEqual(0, proc.wait(30))

    def _gone(self, pid, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with open('/proc/%d/stat' % pid) as f:
                    if f.read().rsplit(')', 1)[1].split()[0] == 'Z':
                        return True
            except OSError:
                return True
            time.sleep(0.1)
        return False

    def _wait_children(self, pid, count, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            children = cm_fixtures.child_pids(pid)
            if len(children) == count:
                return children
            time.sleep(0.1)
        self.fail('%d processes under %d, not %d' % (
            len(cm_fixtures.child_pids(pid)), pid, count))

    def test_workers_serve_one_socket_and_stop_on_sigterm(self):
        proc, url, state = self._start(workers=2)
        workers = self._wait_children(proc.pid, 2)
        exercise_api(url, os.path.join(state, 'volumes'), self)
        # One row per host and binary, however many workers registered.
        with contextlib.closing(sqlite3.connect(
                os.path.join(state, 'cinder-ma.sqlite'))) as db:
            hosts = sorted(row[0] for row in db.execute(
                'SELECT host FROM services WHERE deleted = 0'))
        self.assertEqual(['allhost', 'allhost@file'], hosts)
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(0, proc.wait(30))
        for pid in workers:
            self.assertTrue(self._gone(pid), 'worker %d still runs' % pid)

    def test_dead_worker_is_replaced(self):
        proc, url, _state = self._start(workers=2)
        first, _second = self._wait_children(proc.pid, 2)
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            children = cm_fixtures.child_pids(proc.pid)
            if len(children) == 2 and first not in children:
                break
            time.sleep(0.1)
        else:
            self.fail('worker %d was not replaced' % first)
        for _ in range(4):
            self.assertEqual(200, request(url + '/v3')[0])
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(0, proc.wait(30))

    def _admin(self, name, *args, cwd):
        return subprocess.run(
            func_fixtures.command(name) + list(args), cwd=cwd,
            env=func_fixtures.environ(), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=120, check=False)

    def test_administration_commands_find_its_state(self):
        """cinder-ma-manage and cinder-ma-status run from the directory
        cinder-ma-all was started from use its state and options (its
        config file sets no state_path: ./cinder-ma-state)."""
        proc, _url, state = self._start(own_state=False)
        self.assertTrue(os.path.exists(os.path.join(state,
                                                    'cinder-ma-all.json')))
        listed = self._admin('cinder-ma-manage', 'service', 'list',
                             cwd=self.state_path)
        self.assertEqual(0, listed.returncode, listed.stderr)
        self.assertIn('allhost@file', listed.stdout)
        self.assertIn('using the state of cinder-ma-all in %s' % state,
                      listed.stderr)
        self.assertIn('all.conf', listed.stderr)
        audit = self._admin('cinder-ma-manage', 'attachment', 'audit',
                            cwd=self.state_path)
        self.assertEqual(0, audit.returncode, audit.stderr)
        self.assertIn('Every attachment of 1 host checked out.',
                      audit.stdout)
        status = self._admin('cinder-ma-status', 'upgrade', 'check',
                             cwd=self.state_path)
        self.assertEqual(0, status.returncode, status.stdout + status.stderr)
        # Elsewhere, the message says which state it looked at and what to
        # pass.
        elsewhere = self.useFixture(fixtures.TempDir()).path
        listed = self._admin('cinder-ma-manage', 'service', 'list',
                             cwd=elsewhere)
        self.assertEqual(1, listed.returncode, listed.stdout)
        self.assertIn('pass the --config-file files the services run with',
                      listed.stderr)
        self.assertIn('./cinder-ma-state', listed.stderr)
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(0, proc.wait(30))

