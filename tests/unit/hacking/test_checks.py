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


class LayeredImportsTestCase(base.BaseTestCase):

    def _codes(self, source, filename='./cinder_ma/api/v3/x.py'):
        return [text.split(':')[0] for _offset, text in
                checks.layered_imports(source, filename)]

    def test_docstring_examples(self):
        examples = list(_docstring_examples(checks.layered_imports))
        self.assertEqual(4, len(examples))
        for code, source in examples:
            expected = [] if code == 'Okay' else [code]
            self.assertEqual(expected, self._codes(source), source)

    def test_message_names_both_layers(self):
        (_offset, text), = checks.layered_imports(
            'from cinder_ma.volume import api', './cinder_ma/db/x.py')
        self.assertIn('cinder_ma.db.x (layer db) may not import '
                      'cinder_ma.volume.api (layer volume)', text)

    def test_import_lists(self):
        self.assertEqual(['CM302'], self._codes(
            'from cinder_ma.manager import (rpcapi, locks)'))
        self.assertEqual(['CM302'], self._codes(
            'import os, cinder_ma.manager.manager as m'))

    def test_listed_exceptions_pass(self):
        self.assertEqual([], self._codes(
            'from cinder_ma.policies import attachments',
            './cinder_ma/db/attachments.py'))
        self.assertEqual(['CM302'], self._codes(
            'from cinder_ma.policies import attachments',
            './cinder_ma/db/volumes.py'))

    def test_only_the_modules_of_cinder_ma(self):
        for filename in ('./tests/unit/db/test_api.py', './tools/x.py',
                         None):
            self.assertEqual([], self._codes(
                'from cinder_ma.volume import api', filename))
        self.assertEqual([], self._codes('from oslo_db import api'))
