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

"""Tests of cinder_ma.cmd: Guru Meditation reports and the frozen heap of
serving processes (Ctrl-C handling, which forks, is in
tests/functional/cmd/test_init.py)."""

import gc
import os
import signal
from unittest import mock

import fixtures
from oslo_config import cfg
from oslo_reports import opts as gmr_opts

from cinder_ma import cmd
from tests import base


class TestGuruMeditation(base.BaseTestCase):

    def test_sigusr2_prints_a_report(self):
        previous = signal.getsignal(signal.SIGUSR2)
        self.addCleanup(signal.signal, signal.SIGUSR2, previous)
        conf = cfg.ConfigOpts()
        gmr_opts.set_defaults(conf)
        conf([], project='cinder_ma')
        cmd.setup_guru_meditation(conf)
        self.assertIsNot(previous, signal.getsignal(signal.SIGUSR2))
        self.assertTrue(callable(signal.getsignal(signal.SIGUSR2)))

    def _conf(self, **overrides):
        conf = cfg.ConfigOpts()
        gmr_opts.set_defaults(conf)
        conf([], project='cinder_ma')
        for name, value in overrides.items():
            conf.set_override(name, value, group='oslo_reports')
        return conf

    def test_file_trigger_without_signals(self):
        """The WSGI application's way: no signal handler, the trigger
        file created for oslo.reports to watch (its watcher thread is
        left out here: tests.functional.test_wsgi runs it)."""
        directory = self.useFixture(fixtures.TempDir()).path
        trigger = os.path.join(directory, 'trigger')
        autorun = self.useFixture(fixtures.MockPatch(
            'oslo_reports.guru_meditation_report.TextGuruMeditation.'
            'setup_autorun')).mock
        conf = self._conf(file_event_handler=trigger)
        cmd.setup_guru_meditation(conf, service_name='cinder-ma-api',
                                  signals=False)
        self.assertTrue(os.path.exists(trigger))
        autorun.assert_called_once_with(
            mock.ANY, service_name='cinder-ma-api', conf=conf,
            setup_signal=False)

    def test_trigger_that_cannot_be_made_leaves_reports_off(self):
        directory = self.useFixture(fixtures.TempDir()).path
        trigger = os.path.join(directory, 'missing', 'trigger')
        autorun = self.useFixture(fixtures.MockPatch(
            'oslo_reports.guru_meditation_report.TextGuruMeditation.'
            'setup_autorun')).mock
        logged = self.useFixture(fixtures.FakeLogger())
        cmd.setup_guru_meditation(self._conf(file_event_handler=trigger),
                                  signals=False)
        autorun.assert_not_called()
        self.assertIn('Guru Meditation reports are off', logged.output)


class TestFreezeHeap(base.BaseTestCase):

    def test_frozen_once_per_process(self):
        collect = self.useFixture(fixtures.MockPatch('gc.collect')).mock
        freeze = self.useFixture(fixtures.MockPatch('gc.freeze')).mock
        threshold = self.useFixture(
            fixtures.MockPatch('gc.set_threshold')).mock
        getpid = self.useFixture(fixtures.MockPatch(
            'os.getpid', return_value=-1)).mock
        self.useFixture(fixtures.MockPatchObject(cmd, '_FROZEN_PID', None))
        cmd.freeze_heap()
        cmd.freeze_heap()
        self.assertEqual(1, freeze.call_count)
        self.assertEqual(1, collect.call_count)
        # The young generation is collected less often; the older ones
        # keep their thresholds.
        threshold.assert_called_once_with(
            cmd.YOUNG_COLLECTION_THRESHOLD, *gc.get_threshold()[1:])
        # A forked worker freezes its own.
        getpid.return_value = -2
        cmd.freeze_heap()
        self.assertEqual(2, freeze.call_count)
        self.assertEqual(2, collect.call_count)
