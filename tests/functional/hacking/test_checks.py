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

"""flake8 in a process of its own runs the local checks CM301 and CM302
as tox.ini registers them."""

import os
import subprocess
import sys
import textwrap

import fixtures
import testtools

from tests import base


_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))


_TOX_INI = os.path.join(_ROOT, 'tox.ini')


@testtools.skipUnless(os.path.exists(_TOX_INI), 'needs the source tree')
class Flake8ConfigTestCase(base.BaseTestCase):
    """tox.ini registers CM301 so that ``flake8`` (tox -e pep8) runs it."""

    def _flake8(self, source, where='sample.py'):
        tmp = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(tmp, where)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(textwrap.dedent(source))
        proc = subprocess.run(
            [sys.executable, '-m', 'flake8', '--config', _TOX_INI,
             '--select', 'CM', '--no-show-source',
             '--format', '%(row)d %(code)s', path],
            cwd=_ROOT, capture_output=True, text=True, check=False)
        self.assertEqual('', proc.stderr)
        # flake8 takes the message's first word, "CM301:", as the code.
        return [(row, code.rstrip(':')) for row, code in
                (line.split() for line in proc.stdout.splitlines())]

    def test_reports_every_eventlet_import(self):
        found = self._flake8('''\
            """Sample."""
            import threading
            import eventlet
            from eventlet import (
                greenthread,
            )
            # import eventlet (a comment is fine)
            print('import eventlet')
            import eventlet.debug  # noqa: CM301
            ''')
        self.assertEqual([('3', 'CM301'), ('4', 'CM301')], found)

    def test_clean_file(self):
        self.assertEqual([], self._flake8('''\
            """Sample."""
            import threading

            import futurist
            '''))

    def test_reports_imports_against_the_layering(self):
        # A module of the database layer (a cinder_ma/db/ of its own: the
        # check reads the layer from the path).
        found = self._flake8('''\
            """Sample."""
            from cinder_ma.db import api
            from cinder_ma import exception
            from cinder_ma.volume import attachments
            import cinder_ma.manager.rpcapi
            ''', where='cinder_ma/db/sample.py')
        self.assertEqual([('4', 'CM302'), ('5', 'CM302')], found)
