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

"""Tests of cinder_ma.hacking.checks, alone and as flake8 runs them."""

import io
import os
import re
import subprocess
import sys
import textwrap
import tokenize

import fixtures
import testtools

from cinder_ma.hacking import checks
from tests import base

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
_TOX_INI = os.path.join(_ROOT, 'tox.ini')
_EXAMPLE_RE = re.compile(r'^\s+(?P<code>Okay|CM\d{3}): (?P<source>.*)$')


def _run_check(check, source):
    """Codes ``check`` reports for a one-statement ``source``."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    logical = source.strip()
    return [text.split(':')[0] for _offset, text in check(logical, tokens)]


def _docstring_examples(check):
    for line in check.__doc__.splitlines():
        match = _EXAMPLE_RE.match(line)
        if match:
            yield match.group('code'), match.group('source')


class NoEventletTestCase(base.BaseTestCase):

    def test_docstring_examples(self):
        examples = list(_docstring_examples(checks.no_eventlet))
        self.assertGreater(len(examples), 5)
        for code, source in examples:
            expected = [] if code == 'Okay' else [code]
            self.assertEqual(expected,
                             _run_check(checks.no_eventlet, source),
                             source)

    def test_import_list_in_parentheses(self):
        self.assertEqual(['CM301'], _run_check(
            checks.no_eventlet, 'from eventlet import (greenthread, tpool)'))

    def test_dunder_import(self):
        self.assertEqual(['CM301'], _run_check(
            checks.no_eventlet, "__import__('eventlet.green.threading')"))

    def test_other_strings_are_fine(self):
        for source in ("print('import eventlet')",
                       "importlib.import_module('eventlets')",
                       "importlib.import_module(name)",
                       "mod = 'eventlet'"):
            self.assertEqual([], _run_check(checks.no_eventlet, source),
                             source)

    def test_message_names_the_alternative(self):
        self.assertIn('threads', checks.CM301)


@testtools.skipUnless(os.path.exists(_TOX_INI), 'needs the source tree')
class Flake8ConfigTestCase(base.BaseTestCase):
    """tox.ini registers CM301 so that ``flake8`` (tox -e pep8) runs it."""

    def _flake8(self, source):
        tmp = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(tmp, 'sample.py')
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
