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

"""The package's import filters eventlet's deprecation warning."""

import subprocess
import sys

from tests import base


class TestEventletWarning(base.BaseTestCase):

    def test_commands_do_not_print_it(self):
        # A fresh interpreter: the warning is printed once per process,
        # at the first import of futurist (oslo.service's threading
        # backend imports it), where eventlet is installed.
        proc = subprocess.run(
            [sys.executable, '-c', 'import cinder_ma.cmd, cinder_ma.rpc'],
            capture_output=True, text=True, timeout=120, check=False)
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertNotIn('Eventlet is deprecated', proc.stderr)
