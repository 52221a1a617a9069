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

"""Tests of cinder_ma.cmd: Ctrl-C handling, Guru Meditation reports and
the frozen heap of serving processes."""

import signal
import subprocess
import sys
import textwrap

import fixtures
from oslo_config import cfg
from oslo_reports import opts as gmr_opts

from cinder_ma import cmd
from tests import base


class TestSigintAsSigterm(base.BaseTestCase):

    def test_sigint_becomes_sigterm_in_the_process_and_its_children(self):
        # In a fresh interpreter: it blocks SIGINT for good.
        script = textwrap.dedent('''
            import os, signal, sys, time
            from cinder_ma import cmd

            got = []
            signal.signal(signal.SIGTERM, lambda s, f: got.append(s))
            cmd.sigint_as_sigterm()
            child = os.fork()
            if child == 0:
                # A worker: SIGINT is blocked, as inherited.
                blocked = signal.SIGINT in signal.pthread_sigmask(
                    signal.SIG_BLOCK, set())
                os._exit(0 if blocked else 3)
            _, status = os.waitpid(child, 0)
            os.kill(os.getpid(), signal.SIGINT)
            deadline = time.monotonic() + 30
            while not got and time.monotonic() < deadline:
                time.sleep(0.01)
            print(os.waitstatus_to_exitcode(status), got)
        ''')
        proc = subprocess.run([sys.executable, '-c', script],
                              capture_output=True, text=True, timeout=60,
                              check=False)
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertEqual('0 [%d]' % signal.SIGTERM, proc.stdout.strip())


class TestGuruMeditation(base.BaseTestCase):

    def test_sigusr2_prints_a_report(self):
        previous = signal.getsignal(signal.SIGUSR2)
        self.addCleanup(signal.signal, signal.SIGUSR2, previous)
        conf = cfg.ConfigOpts()
        gmr_opts.set_defaults(conf)
        conf([], project='cinder_ma')
        cmd.setup_guru_meditation(conf)
        self.assertIsNot(previous, signal.getsignal(signal.SIGUSR2))
        self.assertTrue(callable(signal.getsignal(signal.SIGUSR2)))


class TestFreezeHeap(base.BaseTestCase):

    def test_frozen_once_per_process(self):
        collect = self.useFixture(fixtures.MockPatch('gc.collect')).mock
        freeze = self.useFixture(fixtures.MockPatch('gc.freeze')).mock
        getpid = self.useFixture(fixtures.MockPatch(
            'os.getpid', return_value=-1)).mock
        self.useFixture(fixtures.MockPatchObject(cmd, '_FROZEN_PID', None))
        cmd.freeze_heap()
        cmd.freeze_heap()
        self.assertEqual(1, freeze.call_count)
        self.assertEqual(1, collect.call_count)
        # A forked worker freezes its own.
        getpid.return_value = -2
        cmd.freeze_heap()
        self.assertEqual(2, freeze.call_count)
        self.assertEqual(2, collect.call_count)
