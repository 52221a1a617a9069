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
from oslo_config import fixture as config_fixture
from oslo_reports import opts as gmr_opts

from cinder_ma import cmd
from cinder_ma.conf import api as api_conf
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

    def setUp(self):
        super().setUp()
        self.collect = self.useFixture(fixtures.MockPatch('gc.collect')).mock
        self.freeze = self.useFixture(fixtures.MockPatch('gc.freeze')).mock
        self.threshold = self.useFixture(
            fixtures.MockPatch('gc.set_threshold')).mock
        self.getpid = self.useFixture(fixtures.MockPatch(
            'os.getpid', return_value=-1)).mock
        self.useFixture(fixtures.MockPatchObject(cmd, '_FROZEN_PID', None))
        self.conf = cfg.ConfigOpts()
        api_conf.register_opts(self.conf)
        self.conf([])
        # Overrides are kept by the option group, which every ConfigOpts
        # shares: the fixture clears them.
        self.fixture = self.useFixture(config_fixture.Config(self.conf))

    def test_frozen_once_per_process(self):
        self.fixture.config(gc_young_threshold=20000, group='api')
        cmd.freeze_heap(self.conf)
        cmd.freeze_heap(self.conf)
        self.assertEqual(1, self.freeze.call_count)
        self.assertEqual(1, self.collect.call_count)
        # The young generation is collected less often; the older ones
        # keep their thresholds.
        self.threshold.assert_called_once_with(20000,
                                               *gc.get_threshold()[1:])
        # A forked worker freezes its own.
        self.getpid.return_value = -2
        cmd.freeze_heap(self.conf)
        self.assertEqual(2, self.freeze.call_count)
        self.assertEqual(2, self.collect.call_count)

    def test_threshold_option(self):
        self.fixture.config(gc_young_threshold=5000, group='api')
        cmd.freeze_heap(self.conf)
        self.threshold.assert_called_once_with(5000,
                                               *gc.get_threshold()[1:])

    def test_off_by_default(self):
        # 0 leaves the collector as Python sets it.
        self.assertEqual(0, self.conf.api.gc_young_threshold)
        cmd.freeze_heap(self.conf)
        self.collect.assert_not_called()
        self.freeze.assert_not_called()
        self.threshold.assert_not_called()


class TestSetSwitchInterval(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.setter = self.useFixture(fixtures.MockPatch(
            'sys.setswitchinterval')).mock
        self.conf = cfg.ConfigOpts()
        api_conf.register_opts(self.conf)
        self.conf([])
        self.fixture = self.useFixture(config_fixture.Config(self.conf))

    def test_default(self):
        cmd.set_switch_interval(self.conf)
        self.setter.assert_called_once_with(0.0005)

    def test_option(self):
        self.fixture.config(switch_interval=0.005, group='api')
        cmd.set_switch_interval(self.conf)
        self.setter.assert_called_once_with(0.005)


class TestFindAllInOne(base.BaseTestCase):
    """cinder-ma-manage and cinder-ma-status next to a cinder-ma-all."""

    def setUp(self):
        super().setUp()
        self.directory = self.useFixture(fixtures.TempDir()).path
        cwd = os.getcwd()
        os.chdir(self.directory)
        self.addCleanup(os.chdir, cwd)
        self.useFixture(fixtures.MockPatch(
            'oslo_config.cfg.find_config_files', return_value=[]))
        self.stderr = self.useFixture(fixtures.StringStream('stderr'))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr',
                                             self.stderr.stream))
        self.conf = cfg.ConfigOpts()
        for name, default in (('rpc_transport', 'oslo'),
                              ('auth_strategy', 'keystone'),
                              ('state_path', '/var/lib/cinder-ma')):
            self.conf.register_opt(cfg.StrOpt(name, default=default))
        self.conf.register_opt(cfg.ListOpt('enabled_backends', default=[]))

    def test_nothing_here(self):
        argv = ['cinder-ma-manage', 'service', 'list']
        self.assertEqual(argv, cmd.find_all_in_one(argv, self.conf))
        self.conf([])
        self.assertEqual('/var/lib/cinder-ma', self.conf.state_path)

    def test_its_state_and_recorded_options(self):
        state = os.path.join(self.directory, 'cinder-ma-state')
        os.mkdir(state)
        recorder = cfg.ConfigOpts()
        conf_file = os.path.join(self.directory, 'all.conf')
        with open(conf_file, 'w') as f:
            f.write('[DEFAULT]\n')
        recorder(['--config-file', conf_file])
        cmd.record_all_in_one(recorder, state)
        argv = cmd.find_all_in_one(['cinder-ma-manage', 'service', 'list'],
                                   self.conf)
        self.assertEqual(['cinder-ma-manage', '--config-file', conf_file,
                          'service', 'list'], argv)
        self.conf(argv[1:3])
        self.assertEqual('./cinder-ma-state', self.conf.state_path)
        self.assertEqual('local', self.conf.rpc_transport)
        self.assertEqual(['file'], self.conf.enabled_backends)
        self.assertIn('using the state of cinder-ma-all in %s' % state,
                      self.stderr.getDetails()['stderr'].as_text())

    def test_a_named_config_file_wins(self):
        os.mkdir(os.path.join(self.directory, 'cinder-ma-state'))
        argv = ['cinder-ma-manage', '--config-file=/etc/x.conf', 'db',
                'version']
        self.assertEqual(argv, cmd.find_all_in_one(argv, self.conf))
        self.conf([])
        self.assertEqual('/var/lib/cinder-ma', self.conf.state_path)
