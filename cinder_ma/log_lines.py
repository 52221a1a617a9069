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

"""Log lines that user-supplied values cannot forge.

A value a client sent (a name, a connector field, a header) can reach a
log message through its arguments; with a newline in it, it would start
what looks like a new log line of its own. :func:`install` makes every log
record of the process render its message on one line: line breaks in the
message (the arguments included) are written as escapes (``\\n``,
``\\r``, ``\\u2028``...). It acts once, at the level of the logging
module (the record factory), so every handler and formatter oslo.log sets
up, now or after a reload of the configuration, gets one-line messages,
and no LOG call has to escape anything itself. Tracebacks are not
messages: oslo.log writes them on lines of their own, each one prefixed.

Every command calls :func:`install` after setting up logging
(:func:`cinder_ma.cmd.prepare_service`, the WSGI entry point).
"""

import logging

# What str.splitlines() breaks lines on.
_LINE_BREAKS = '\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029'


def _escape_of(char):
    named = {'\n': '\\n', '\r': '\\r'}
    if char in named:
        return named[char]
    if ord(char) < 0x100:
        return '\\x%02x' % ord(char)
    return '\\u%04x' % ord(char)


_ESCAPES = str.maketrans({c: _escape_of(c) for c in _LINE_BREAKS})


def one_line(text):
    """``text`` with its line breaks escaped."""
    return text.translate(_ESCAPES)


class OneLineRecord(logging.LogRecord):
    """A log record whose message is always one line."""

    def getMessage(self):
        return one_line(super().getMessage())


def _chained(factory):
    """A record factory around another one than the standard."""

    def make(*args, **kwargs):
        record = factory(*args, **kwargs)
        message = record.getMessage
        record.getMessage = lambda: one_line(message())
        return record
    make.one_line = True
    return make


def install():
    """Make every log record of the process one line (idempotent)."""
    current = logging.getLogRecordFactory()
    if current is OneLineRecord or getattr(current, 'one_line', False):
        return
    if current is logging.LogRecord:
        logging.setLogRecordFactory(OneLineRecord)
    else:
        logging.setLogRecordFactory(_chained(current))
