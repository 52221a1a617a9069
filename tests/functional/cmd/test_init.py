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

"""Tests of cinder_ma.cmd: Ctrl-C handling and Guru Meditation reports."""

import signal
import subprocess
import sys
import textwrap


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
