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

"""Tests of one-line log messages (user values cannot forge lines)."""

import io
import logging

import fixtures

from cinder_ma import log_lines
from tests import base


class OneLineTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        previous = logging.getLogRecordFactory()
        self.addCleanup(logging.setLogRecordFactory, previous)
        logging.setLogRecordFactory(logging.LogRecord)
        self.stream = io.StringIO()
        handler = logging.StreamHandler(self.stream)
        handler.setFormatter(logging.Formatter('%(levelname)s %(message)s'))
        self.logger = logging.getLogger('cinder_ma.test_log_lines')
        self.logger.setLevel(logging.INFO)
        self.logger.propagate = False
        self.logger.addHandler(handler)
        self.addCleanup(self.logger.removeHandler, handler)

    def lines(self):
        return self.stream.getvalue().splitlines()

    def test_forged_lines_are_escaped(self):
        log_lines.install()
        forged = 'vol\nERROR admin deleted everything\r\u2028x'
        self.logger.info('Created volume %s', forged)
        self.logger.info('Named %(name)s', {'name': forged})
        self.logger.warning('Refused: %s', ValueError(forged))
        self.assertEqual([
            'INFO Created volume vol\\nERROR admin deleted everything'
            '\\r\\u2028x',
            'INFO Named vol\\nERROR admin deleted everything\\r\\u2028x',
            'WARNING Refused: vol\\nERROR admin deleted everything'
            '\\r\\u2028x'], self.lines())

    def test_tracebacks_keep_their_lines(self):
        log_lines.install()
        try:
            raise RuntimeError('boom')
        except RuntimeError:
            self.logger.exception('failed for %s', 'a\nb')
        lines = self.lines()
        self.assertEqual('ERROR failed for a\\nb', lines[0])
        self.assertEqual('Traceback (most recent call last):', lines[1])

    def test_install_is_idempotent_and_chains(self):
        made = []

        def factory(*args, **kwargs):
            record = logging.LogRecord(*args, **kwargs)
            made.append(record)
            return record
        logging.setLogRecordFactory(factory)
        log_lines.install()
        installed = logging.getLogRecordFactory()
        log_lines.install()
        self.assertIs(installed, logging.getLogRecordFactory())
        self.logger.info('x %s', 'a\nb')
        self.assertEqual(['INFO x a\\nb'], self.lines())
        self.assertEqual(1, len(made))

    def test_prepare_service_installs_it(self):
        from cinder_ma import cmd
        self.useFixture(fixtures.MockPatch('cinder_ma.cmd.logging.setup'))
        cmd.prepare_service(['test'], conf=self.conf)
        self.assertIs(log_lines.OneLineRecord, logging.getLogRecordFactory())
