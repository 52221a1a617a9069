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
import re
import tokenize


from cinder_ma.hacking import checks
from tests import base

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
