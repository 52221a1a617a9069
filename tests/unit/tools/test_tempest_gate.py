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
    return base.load_file('tempest_gate', GATE)


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
    writer.status(test_id='setUpClass (t.B)', file_name='reason',
                  file_bytes=b'B skipped as Neutron is not available',
                  mime_type='text/plain')
    writer.status(test_id='setUpClass (t.B)', test_status='skip')
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
            'setUpClass (t.B)': ('skip',
                                 'B skipped as Neutron is not available'),
        }, outcome)
        listed = ['t.A.test_ok', 't.A.test_skip', 't.A.test_bad',
                  't.A.test_left_out', 't.B.test_one', 't.B.test_two',
                  't.C.test_lost']
        exclusions = [(r'^t\.A\.test_left_out\b', 'No such feature.')]
        tests = gate.per_test(outcome, listed, exclusions)
        self.assertEqual(('excluded', 'No such feature.'),
                         tests['t.A.test_left_out'])
        self.assertEqual('skip', tests['t.B.test_two'][0])
        self.assertIn('a compute (nova) and network (neutron) service',
                      tests['t.B.test_two'][1])
        self.assertEqual(('fail', 'did not run'), tests['t.C.test_lost'])
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'page.rst')
        gate.write_report(path, outcome, listed, exclusions)
        with open(path) as page:
            text = page.read()
        self.assertIn('**1 of the 7 listed tests pass, 3 skipped, '
                      '1 excluded, 2 failed.**', text)
        self.assertIn('``t.A.test_skip``: Cinder volume snapshots are '
                      'disabled', text)
        self.assertIn('``t.A.test_left_out``: No such feature.', text)
        self.assertNotIn('setUpClass', text)

    def test_listed_tests(self):
        gate = _gate()
        done = subprocess.CompletedProcess(
            [], 0, stdout='tempest.a.B.test_c[id-1,smoke]\n'
                          'tempest.a.B.test_d[id-2]\nnoise\n')
        with mock.patch.object(gate.subprocess, 'run',
                               return_value=done) as run:
            self.assertEqual(['tempest.a.B.test_c', 'tempest.a.B.test_d'],
                             gate.listed_tests('/ws', '^tempest\\.a\\.'))
        self.assertEqual('list', run.call_args[0][0][1])
