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

"""Tests of cinder-ma-manager."""

import fixtures
from oslo_service import backend
from oslo_utils import eventletutils

from cinder_ma.cmd import manager as manager_cmd
from cinder_ma.manager import service as manager_service
from cinder_ma import rpc
from tests import base
from tests.unit.cmd import test_manage


class ManagerCommandTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.cmd = self.useFixture(test_manage.CommandFixture())
        self.addCleanup(rpc.cleanup)
        self.launch = self.useFixture(fixtures.MockPatch(
            'oslo_service.service.launch')).mock
        self.launch.return_value.wait.return_value = 0
        # Signal handling of the process: not in the test runner.
        self.sigint = self.useFixture(fixtures.MockPatch(
            'cinder_ma.cmd.sigint_as_sigterm')).mock
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.cmd.setup_guru_meditation'))

    def _config(self, text):
        path = self.state_path + '/manager.conf'
        with open(path, 'w') as f:
            f.write(text)
        return ['cinder-ma-manager', '--config-file', path]

    def test_threading_backend(self):
        self.assertEqual(backend.BackendType.THREADING,
                         backend.get_backend_type())
        self.assertFalse(eventletutils.is_monkey_patched('thread'))

    def test_launches_the_service(self):
        argv = self._config('[DEFAULT]\nenabled_backends = file\n'
                            'transport_url = rabbit://g:g@127.0.0.1:5672/\n')
        self.assertEqual(0, manager_cmd.main(argv))
        (conf, svc), kwargs = self.launch.call_args
        self.assertIsInstance(svc, manager_service.ManagerService)
        self.assertEqual({'restart_method': 'mutate'}, kwargs)
        self.assertEqual(['file'], conf.enabled_backends)
        # Nothing is started before the launcher forks.
        self.assertEqual({}, svc.backends)

    def test_refuses_local_transport(self):
        argv = self._config('[DEFAULT]\nrpc_transport = local\n')
        self.assertEqual(1, manager_cmd.main(argv))
        self.assertIn('rpc_transport = local only works inside '
                      'cinder-ma-all', self.cmd.stderr.getvalue())
        self.launch.assert_not_called()

    def test_missing_driver_fails_before_launch(self):
        argv = self._config('[DEFAULT]\nenabled_backends = a\n'
                            '[a]\nvolume_driver = nope\n')
        self.assertEqual(1, manager_cmd.main(argv))
        self.assertIn('No driver named nope', self.cmd.stderr.getvalue())
        self.launch.assert_not_called()

    def test_unknown_coordination_backend_fails_before_launch(self):
        argv = self._config('[coordination]\nbackend_url = nosuch://h\n')
        self.assertEqual(1, manager_cmd.main(argv))
        self.assertIn('[coordination] backend_url nosuch://h cannot be used',
                      self.cmd.stderr.getvalue())
        self.launch.assert_not_called()

    def test_bad_transport_url(self):
        argv = self._config('[DEFAULT]\ntransport_url = rabbit://a:b@h:notaport/\n')
        self.assertEqual(1, manager_cmd.main(argv))
        self.assertIn('invalid transport_url', self.cmd.stderr.getvalue())
        self.launch.assert_not_called()
