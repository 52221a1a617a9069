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

"""Local flake8 checks, registered in tox.ini's ``[flake8:local-plugins]``.

Codes are ``CM3xx``. The checks look at logical lines: flake8 has already
joined continuation lines, dropped comments and blanked out the contents of
strings (the tokens, also handed over, keep them). ``# noqa`` on a line
silences a check; flake8 handles it.

CM301  eventlet must not be imported. cinder_ma runs on native threads
       (oslo.service's threading backend, futurist executors); importing
       eventlet anywhere, even in a test, risks monkey patching and pins
       oslo.service to its eventlet backend.
CM302  a module of cinder_ma imports only its own layer, the layers below
       it that it may call and the foundation: api -> volume ->
       manager.rpcapi -> (RPC) -> manager -> flows -> tasks -> drivers,
       db below all (:mod:`cinder_ma.hacking.layout`, which also lists
       the imports still against it, each with its reason).
"""

import ast
import re
import tokenize

from hacking import core

from cinder_ma.hacking import layout

# "import a, b.c as d" -> the names after "import".
_IMPORT_RE = re.compile(r'^\s*import\s+(?P<names>.+)$')
# "from eventlet import x", "from eventlet.green import threading".
_FROM_EVENTLET_RE = re.compile(r'^\s*from\s+eventlet(?:\.[\w.]+)?\s+import\b')
# Callables that import a module named by a string argument.
_DYNAMIC_IMPORTERS = frozenset(['import_module', '__import__'])
_SKIPPED = frozenset([tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                      tokenize.INDENT, tokenize.DEDENT])

CM301 = ('CM301: eventlet must not be imported; cinder_ma uses native '
         'threads (threading, futurist, oslo.service threading backend)')
CM302 = 'CM302: import against the layering: %s'

# "from cinder_ma.x import a, b as c" -> module and names.
_FROM_RE = re.compile(r'^\s*from\s+(?P<module>[\w.]+)\s+import\s+'
                      r'(?P<names>.+)$')


def _is_eventlet(module):
    return module == 'eventlet' or module.startswith('eventlet.')


def _imported_modules(names):
    """Module names of an ``import`` statement's name list."""
    for part in names.strip('()').split(','):
        words = part.split()
        if words:
            yield words[0]


@core.flake8ext
def no_eventlet(logical_line, tokens):
    """CM301: do not import eventlet.

    Okay: import threading
    Okay: from oslo_service import threadgroup
    Okay: import eventlet_free
    Okay: from cinder_ma import eventlets
    CM301: import eventlet
    CM301: import eventlet.green.threading
    CM301: import os, eventlet
    CM301: import eventlet as ev
    CM301: from eventlet import greenthread
    CM301: from eventlet.green import threading
    CM301: importlib.import_module('eventlet')
    """
    match = _IMPORT_RE.match(logical_line)
    if match:
        for module in _imported_modules(match.group('names')):
            if _is_eventlet(module):
                yield logical_line.index('import'), CM301
                return
        return
    if _FROM_EVENTLET_RE.match(logical_line):
        yield logical_line.index('from'), CM301
        return
    # The logical line blanks out string contents: find a dynamic import
    # of eventlet by name in the tokens, which keep them.
    significant = [tok for tok in tokens if tok.type not in _SKIPPED]
    for name, paren, arg in zip(significant, significant[1:],
                                significant[2:]):
        if (name.type == tokenize.NAME and name.string in _DYNAMIC_IMPORTERS
                and paren.string == '(' and arg.type == tokenize.STRING
                and _is_eventlet(_string_value(arg.string))):
            yield 0, CM301
            return


def _string_value(literal):
    try:
        value = ast.literal_eval(literal)
    except (SyntaxError, ValueError):
        return ''
    return value if isinstance(value, str) else ''


def _cinder_ma_imports(logical_line):
    """The cinder_ma modules (or module attributes) a logical line
    imports, as dotted names."""
    match = _FROM_RE.match(logical_line)
    if match:
        module = match.group('module')
        if module == 'cinder_ma' or module.startswith('cinder_ma.'):
            for name in _imported_modules(match.group('names')):
                yield '%s.%s' % (module, name)
        return
    match = _IMPORT_RE.match(logical_line)
    if match:
        for module in _imported_modules(match.group('names')):
            if module.startswith('cinder_ma.'):
                yield module


@core.flake8ext
def layered_imports(logical_line, filename):
    """CM302: import along the layers, never upwards.

    In cinder_ma/api/v3/x.py, for instance:

    Okay: from cinder_ma.volume import attachments
    Okay: from cinder_ma import exception
    CM302: from cinder_ma.manager import rpcapi
    CM302: import cinder_ma.db.api

    Only the modules of cinder_ma are checked (not the tests).
    """
    path = (filename or '').replace('\\', '/')
    if '/cinder_ma/' not in '/' + path:
        return
    importer = layout.module_of(path)
    for imported in _cinder_ma_imports(logical_line):
        why = layout.violation(importer, imported)
        if why:
            yield 0, CM302 % why
            return
