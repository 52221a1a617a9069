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

"""cinder-ma-status in a process of its own."""

import os
import subprocess
import sys

from oslo_serialization import jsonutils

from tests import base


class CommandTestCase(base.TestCase):

    def test_upgrade_check_runs(self):
        # A fresh process: oslo.upgradecheck registers its command line on
        # the global configuration. No database there: failures, status 2.
        conf = os.path.join(self.state_path, 'status.conf')
        with open(conf, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n' % self.state_path)
        proc = subprocess.run(
            [sys.executable, '-m', 'cinder_ma.cmd.status', '--config-file',
             conf, 'upgrade', 'check', '--json'],
            capture_output=True, text=True, timeout=120, check=False)
        self.assertEqual(2, proc.returncode, proc.stderr)
        output = jsonutils.loads(proc.stdout)
        self.assertEqual(
            ['Database schema', 'RPC version pins',
             'Policy File JSON to YAML Migration', 'Policy file rules'],
            [c['check'] for c in output['checks']])
