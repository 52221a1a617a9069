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

"""Tests of cinder_ma.cmd: Guru Meditation reports (Ctrl-C handling, which
forks, is in tests/functional/cmd/test_init.py)."""

import signal
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
