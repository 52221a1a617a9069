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

"""tools/tempest/gate.py: the results of a run, read back from stestr's
subunit stream, make the compatibility page. (stestr is replaced by a
recorded stream: the test runs no Tempest.)"""

import importlib.util
import io
import os
import subprocess
from unittest import mock

import fixtures
import subunit

from tests import base

GATE = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'tools',
                    'tempest', 'gate.py')


def _gate():
    spec = importlib.util.spec_from_file_location('tempest_gate', GATE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stream():
    out = io.BytesIO()
    writer = subunit.StreamResultToBytes(out)
    writer.status(test_id='t.A.test_ok[id-1,smoke]', test_status='inprogress')
    writer.status(test_id='t.A.test_ok[id-1,smoke]', test_status='success')
    writer.status(test_id='t.A.test_skip[id-2]', file_name='reason',
                  file_bytes=b'Cinder volume snapshots are disabled',
                  mime_type='text/plain')
    writer.status(test_id='t.A.test_skip[id-2]', test_status='skip')
    writer.status(test_id='t.A.test_bad[id-3]', test_status='fail')
    return out.getvalue()


class TestResults(base.BaseTestCase):

    def test_results_and_report(self):
        gate = _gate()
        done = subprocess.CompletedProcess([], 0, stdout=_stream())
        with mock.patch.object(gate.subprocess, 'run', return_value=done):
            outcome = gate.results('/nowhere')
        self.assertEqual({
            't.A.test_ok': ('success', ''),
            't.A.test_skip': ('skip', 'Cinder volume snapshots are disabled'),
            't.A.test_bad': ('fail', ''),
        }, outcome)
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'page.rst')
        gate.write_report(path, outcome)
        with open(path) as page:
            text = page.read()
        self.assertIn('Last run: 1 passed, 1 skipped, 1 failed.', text)
        self.assertIn('``t.A.test_skip``: Cinder volume snapshots are '
                      'disabled', text)
