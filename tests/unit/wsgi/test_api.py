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

"""Tests of the WSGI entry point."""

import os

import fixtures
import webob

from cinder_ma import exception
from cinder_ma.wsgi import api as wsgi_api
from tests import base


class TestConfigFiles(base.TestCase):

    def test_from_environment(self):
        self.assertEqual(['/a.conf', '/b.conf'], wsgi_api._config_files(
            {'OS_CINDER_MA_CONFIG_FILES': '/a.conf;/b.conf'}))
        self.assertEqual(['/a.conf', '/b.conf'], wsgi_api._config_files(
            {'OS_CINDER_MA_CONFIG_FILES': '/a.conf,/b.conf'}))
        self.assertEqual(['/d'], wsgi_api._config_dirs(
            {'OS_CINDER_MA_CONFIG_DIR': '/d'}))
        self.assertEqual([], wsgi_api._config_dirs({}))

    def test_defaults(self):
        self.useFixture(fixtures.MockPatch(
            'oslo_config.cfg.find_config_files', return_value=[]))
        self.useFixture(fixtures.MockPatch('os.path.exists',
                                           return_value=True))
        self.assertEqual([wsgi_api.DEFAULT_CONFIG_FILE],
                         wsgi_api._config_files({}))


class TestInitApplication(base.DBTestCase):

    def test_init(self):
        conf_file = os.path.join(self.state_path, 'api.conf')
        with open(conf_file, 'w') as f:
            f.write('[DEFAULT]\nauth_strategy = noauth\n'
                    '[api]\nmax_limit = 7\n')
        init_rpc = self.useFixture(fixtures.MockPatch(
            'cinder_ma.rpc.init')).mock
        self.useFixture(fixtures.MockPatch('oslo_log.log.setup'))
        freeze = self.useFixture(fixtures.MockPatch(
            'cinder_ma.cmd.freeze_heap')).mock
        switch = self.useFixture(fixtures.MockPatch(
            'cinder_ma.cmd.set_switch_interval')).mock
        application = wsgi_api.init_application(
            {'OS_CINDER_MA_CONFIG_FILES': conf_file}, conf=self.conf)
        init_rpc.assert_called_once_with(self.conf)
        # The worker's heap and thread switch interval, once its
        # application is built.
        freeze.assert_called_once_with(self.conf)
        switch.assert_called_once_with(self.conf)
        self.assertEqual(7, self.conf.api.max_limit)
        response = webob.Request.blank('/').get_response(application)
        self.assertEqual(300, response.status_int)


    def test_unknown_coordination_backend(self):
        conf_file = os.path.join(self.state_path, 'api.conf')
        with open(conf_file, 'w') as f:
            f.write('[DEFAULT]\nauth_strategy = noauth\n'
                    '[coordination]\nbackend_url = nosuch://host\n')
        self.useFixture(fixtures.MockPatch('oslo_log.log.setup'))
        freeze = self.useFixture(fixtures.MockPatch(
            'cinder_ma.cmd.freeze_heap')).mock
        exc = self.assertRaises(
            exception.InvalidConfiguration, wsgi_api.init_application,
            {'OS_CINDER_MA_CONFIG_FILES': conf_file}, conf=self.conf)
        self.assertIn('nosuch://host cannot be used', str(exc))
        freeze.assert_not_called()


class TestLazyApplication(base.TestCase):

    def test_built_once_on_first_request(self):
        built = []

        def factory():
            built.append(1)
            return webob.Response(status=204)
        application = wsgi_api.LazyApplication(factory)
        self.assertEqual([], built)
        for _ in range(2):
            self.assertEqual(204, webob.Request.blank('/').get_response(
                application).status_int)
        self.assertEqual([1], built)

    def test_bad_configuration_is_a_503_fault_until_mended(self):
        attempts = []

        def factory():
            attempts.append(1)
            if len(attempts) < 3:
                raise exception.InvalidConfiguration(reason='nope')
            return webob.Response(status=204)
        application = wsgi_api.LazyApplication(factory)
        for _ in range(2):
            response = webob.Request.blank('/').get_response(application)
            self.assertEqual(503, response.status_int)
            self.assertEqual(503, response.json['serviceUnavailable'][
                'code'])
        self.assertEqual(204, webob.Request.blank('/').get_response(
            application).status_int)
