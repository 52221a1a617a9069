"""The package's import filters eventlet's deprecation warning."""

import subprocess
import sys

import testtools


class TestEventletWarning(testtools.TestCase):

    def test_commands_do_not_print_it(self):
        # A fresh interpreter: the warning is printed once per process,
        # at the first import of futurist (oslo.service's threading
        # backend imports it), where eventlet is installed.
        proc = subprocess.run(
            [sys.executable, '-c', 'import cinder_ma.cmd, cinder_ma.rpc'],
            capture_output=True, text=True, timeout=120, check=False)
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertNotIn('Eventlet is deprecated', proc.stderr)
