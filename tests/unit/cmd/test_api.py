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

"""Tests of cinder-ma-api."""

import fixtures

from cinder_ma.cmd import api as api_cmd
from cinder_ma import rpc
from tests import base
from tests.unit.cmd import test_manage


class ApiCommandTestBase(base.TestCase):
    """The set-up of the tests of cinder-ma-api (here and in
    tests/functional/cmd/test_api.py): the command's fixture, an
    ephemeral port, no authentication."""

    def setUp(self):
        super().setUp()
        self.cmd = self.useFixture(test_manage.CommandFixture())
        self.addCleanup(rpc.cleanup)
        self.flags(group='api', port=0)
        self.flags(auth_strategy='noauth')


class ApiCommandTestCase(ApiCommandTestBase):

    def test_load_app_tunes_the_interpreter_once_built(self):
        calls = []
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.api.app.setup_app',
            side_effect=lambda: calls.append('setup_app') or 'app'))
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.cmd.freeze_heap',
            side_effect=lambda: calls.append('freeze_heap')))
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.cmd.set_switch_interval',
            side_effect=lambda: calls.append('set_switch_interval')))
        self.assertEqual('app', api_cmd.load_app())
        self.assertEqual(['setup_app', 'freeze_heap', 'set_switch_interval'],
                         calls)

    def test_refuses_keystone_without_its_section(self):
        self.flags(auth_strategy='keystone')
        self.assertEqual(1, api_cmd.main(['cinder-ma-api']))
        self.assertIn('cinder-ma-api: error: Invalid configuration: '
                      'auth_strategy = keystone needs [keystone_authtoken] '
                      'www_authenticate_uri, auth_type',
                      self.cmd.stderr.getvalue())
        self.assertFalse(rpc.initialized())

    def test_refuses_an_unknown_coordination_backend(self):
        self.flags(backend_url='nosuch://host', group='coordination')
        self.assertEqual(1, api_cmd.main(['cinder-ma-api']))
        self.assertIn('cinder-ma-api: error: Invalid configuration: '
                      '[coordination] backend_url nosuch://host cannot be '
                      'used', self.cmd.stderr.getvalue())

    def test_safe_defaults(self):
        self.conf.clear_override('auth_strategy')
        self.conf.clear_default('state_path')
        self.assertEqual('keystone', self.conf.auth_strategy)
        self.assertEqual('/var/lib/cinder-ma', self.conf.state_path)
        # A bounded wait on Keystone.
        from cinder_ma.conf import opts as conf_opts
        conf_opts.set_defaults(self.conf)
        self.assertEqual(conf_opts.KEYSTONE_TIMEOUT,
                         self.conf.keystone_authtoken.http_connect_timeout)
        self.assertEqual(conf_opts.KEYSTONE_RETRIES,
                         self.conf.keystone_authtoken
                         .http_request_max_retries)

    def test_refuses_local_transport(self):
        self.flags(rpc_transport='local')
        self.assertEqual(1, api_cmd.main(['cinder-ma-api']))
        self.assertIn('only works inside cinder-ma-all',
                      self.cmd.stderr.getvalue())

    def test_server_url(self):
        app = lambda environ, start_response: []  # noqa: E731
        self.flags(group='api', host_ip='::1')
        try:
            server = api_cmd.create_server(app, self.conf)
        except OSError:
            self.skipTest('no IPv6 loopback')
        self.addCleanup(server.close)
        self.assertRegex(api_cmd.server_url(server),
                         r'^http://\[::1\]:\d+$')
