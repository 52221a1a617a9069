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

"""Unit tests of the nbd driver's nbdkit processes, with real processes
of the test standing in for nbdkit (the nbdkit daemons themselves are
proven in tests/functional/volume/test_nbd.py; a zombie in
tests/functional/volume/test_nbd_process.py)."""

import os
import subprocess
import sys
import time

from cinder_ma.volume.drivers import nbd_process
from tests import base

# A process whose command line holds a PSK export's --tls-psk option,
# as an nbdkit daemon's does.
SLEEPER = 'import time; time.sleep(60)'


class ProcessTestCase(base.TestCase):

    def _start(self, *args):
        proc = subprocess.Popen([sys.executable, '-c', SLEEPER] +
                                list(args), start_new_session=True)
        self.addCleanup(proc.wait)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        # Until the child has exec'd, its command line is this process's.
        deadline = time.monotonic() + 10
        while SLEEPER.encode() not in self._cmdline(proc.pid):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.01)
        return proc

    @staticmethod
    def _cmdline(pid):
        with open('/proc/%d/cmdline' % pid, 'rb') as f:
            return f.read()

    def test_credentials_option(self):
        self.assertEqual('--tls-psk=/e/k.psk',
                         nbd_process.credentials_option('/e/k.psk'))
        self.assertEqual('--tls-certificates=/e/k.tls',
                         nbd_process.credentials_option('/e/k.tls'))

    def test_runs_nbdkit_of_checks_the_command_line(self):
        proc = self._start('--tls-psk=/e/k.psk')
        self.assertTrue(nbd_process.alive(proc.pid))
        self.assertTrue(nbd_process.runs_nbdkit_of(proc.pid, '/e/k.psk'))
        # Another export's credentials: a reused pid is not this
        # export's daemon.
        self.assertFalse(nbd_process.runs_nbdkit_of(proc.pid, '/e/j.psk'))
        self.assertFalse(nbd_process.runs_nbdkit_of(os.getpid(),
                                                    '/e/k.psk'))
        export = nbd_process.Export('k', {'port': 10809}, proc.pid,
                                    '/e/k.psk')
        self.assertEqual(10809, export.port)
        self.assertTrue(export.alive())

    def test_kill_stops_the_process_by_its_pid(self):
        proc = self._start('--tls-psk=/e/k.psk')
        nbd_process.kill(proc.pid)
        # Exited (a zombie until reaped: not alive).
        self.assertFalse(nbd_process.alive(proc.pid))
        self.assertIsNotNone(proc.wait(timeout=5))
        # A pid that is gone is no error.
        nbd_process.kill(proc.pid)

    def test_kill_of_a_process_that_ignores_sigterm(self):
        proc = subprocess.Popen(
            [sys.executable, '-c',
             'import signal, sys, time; '
             'signal.signal(signal.SIGTERM, signal.SIG_IGN); '
             'print("ready", flush=True); time.sleep(60)'],
            stdout=subprocess.PIPE, start_new_session=True)
        self.addCleanup(proc.wait)
        self.addCleanup(proc.stdout.close)
        self.assertEqual(b'ready\n', proc.stdout.readline())
        nbd_process.kill(proc.pid)
        self.assertFalse(nbd_process.alive(proc.pid))
        self.assertEqual(-9, proc.wait(timeout=5))
