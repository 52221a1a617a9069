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

"""CI runs exactly the test command that the README gives developers."""

import os
import re

import testtools

from tests import base

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
_CI_RUN = os.path.join(_ROOT, '.ci', 'run')
_README = os.path.join(_ROOT, 'README.rst')


def _literal_lines(path):
    """Lines of the literal blocks (after ``::``) of an rst file."""
    lines = []
    in_block = False
    with open(path) as f:
        for line in f:
            if line.rstrip().endswith('::'):
                in_block = True
                continue
            if in_block and line.strip() and not line.startswith(' '):
                in_block = False
            if in_block and line.strip():
                lines.append(line.strip())
    return lines


@testtools.skipUnless(os.path.exists(_CI_RUN), 'needs the source tree')
class CITestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        with open(_CI_RUN) as f:
            match = re.search(r"^TEST_COMMAND='(?P<cmd>[^']+)'$", f.read(),
                              re.MULTILINE)
        self.assertIsNotNone(match, 'TEST_COMMAND not found in .ci/run')
        self.test_command = match.group('cmd')
        self.commands = _literal_lines(_README)

    def test_ci_runs_the_readme_test_command(self):
        # The README opens with two commands: start, then test.
        self.assertEqual(self.test_command, self.commands[1])

    def test_readme_starts_with_the_all_in_one(self):
        self.assertIn('cinder-ma-all', self.commands[0])
        self.assertIn('-c upper-constraints.txt', self.commands[0])

    def test_test_command_runs_tox_with_pinned_tox(self):
        self.assertIn('-c upper-constraints.txt tox', self.test_command)
        # Every env of the envlist, as many at a time as there are CPUs
        # (the gates mostly wait on their services: the suite takes about
        # half the time it takes one env after the other).
        self.assertTrue(self.test_command.endswith(
            '-m tox p --parallel-no-spinner'))

    def test_test_command_prepares_the_machine_first(self):
        self.assertTrue(self.test_command.startswith(
            'bash tools/test-setup.sh && '))
        self.assertTrue(os.path.exists(
            os.path.join(_ROOT, 'tools', 'test-setup.sh')))

    def test_pep8_does_not_need_libvirt(self):
        # libvirt-python builds against libvirt-dev: only the envs that
        # run tests install it.
        with open(os.path.join(_ROOT, 'test-requirements.txt')) as f:
            self.assertNotIn('libvirt-python', f.read())
        with open(os.path.join(_ROOT, 'tox.ini')) as f:
            tox_ini = f.read()
        pep8 = tox_ini.split('[testenv:pep8]', 1)[1].split('\n[', 1)[0]
        self.assertIn('deps =', pep8)
        self.assertNotIn('libvirt-requirements.txt', pep8)

    def test_bindep_lists_libvirt_dev_for_tests(self):
        with open(os.path.join(_ROOT, 'bindep.txt')) as f:
            self.assertRegex(f.read(),
                             r'(?m)^libvirt-dev \[platform:dpkg test\]$')
