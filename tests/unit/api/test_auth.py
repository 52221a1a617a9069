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

"""Tests of authentication (noauth, keystone) and the request context."""

import socket
import uuid

import fixtures
from keystoneauth1 import exceptions as ksa_exceptions
from keystoneauth1 import loading as ks_loading
import webob
import webtest

# Registers the [keystone_authtoken] options.
from keystonemiddleware import auth_token  # noqa: F401
from oslo_context import context as oslo_context

from cinder_ma.api import app
from cinder_ma.api import auth
from cinder_ma import exception
from tests.unit.api import base


class _ContextSpy(fixtures.Fixture):
    """Records the context the volume service is called with."""

    def _setUp(self):
        self.contexts = []

        def list_volumes(context, **kwargs):
            self.contexts.append(context)
            return []
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.volume.api.list_volumes', side_effect=list_volumes))


class TestNoAuth(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.spy = self.useFixture(_ContextSpy())

    def _context(self, headers, project=base.PROJECT):
        self.app.get(self.url('volumes', project=project), headers=headers)
        return self.spy.contexts[-1]

    def test_token_names_user_and_project_default_admin(self):
        ctx = self._context({'X-Auth-Token': 'alice:fake-project'})
        self.assertEqual('alice', ctx.user_id)
        self.assertEqual('fake-project', ctx.project_id)
        self.assertEqual(['admin'], ctx.roles)
        self.assertTrue(ctx.is_admin)

    def test_token_without_project_uses_the_user(self):
        ctx = self._context({'X-Auth-Token': 'fake-project'})
        self.assertEqual('fake-project', ctx.user_id)
        self.assertEqual('fake-project', ctx.project_id)

    def test_user_and_project_headers(self):
        ctx = self._context({'X-User-Id': 'bob',
                             'X-Project-Id': 'fake-project',
                             'X-Roles': 'reader'})
        self.assertEqual('bob', ctx.user_id)
        self.assertEqual(['reader'], ctx.roles)
        self.assertFalse(ctx.is_admin)

    def test_roles_header(self):
        ctx = self._context(base.MEMBER)
        self.assertEqual(['member', 'reader'], ctx.roles)
        self.assertFalse(ctx.is_admin)

    def test_service_roles(self):
        ctx = self._context(base.headers(roles=['member'],
                                         service_roles=['service']))
        self.assertEqual(['service'], ctx.service_roles)

    def test_request_id_in_context(self):
        response = self.app.get(self.url('volumes'), headers=base.MEMBER)
        self.assertEqual(response.headers['X-OpenStack-Request-Id'],
                         self.spy.contexts[-1].request_id)

    def test_missing_credentials_is_a_401_fault(self):
        response = self.app.get(self.url('volumes'), status=401)
        self.assertFault(response, 401, 'unauthorized',
                         'Authentication required')
        self.assertEqual([], self.spy.contexts)

    def test_version_documents_need_no_credentials(self):
        self.assertEqual(300, self.app.get('/', status=300).status_int)
        self.assertEqual(200, self.app.get('/v3/').status_int)
        self.assertEqual(200, self.app.get('/v3').status_int)


class KeystoneConf(fixtures.Fixture):
    """A usable [keystone_authtoken]: the password plugin of a service
    user (the options a deployment sets). The plugin's options, which
    keystoneauth and auth_token register on the global configuration,
    are unregistered on cleanup (some are required: they would fail the
    next test's parse)."""

    def __init__(self, conf, auth_url='http://127.0.0.1:1/v3'):
        super().__init__()
        self.conf = conf
        self.auth_url = auth_url

    def _setUp(self):
        conf = self.conf
        group = auth.AUTHTOKEN_GROUP
        conf.set_override('auth_strategy', 'keystone')
        ks_loading.register_auth_conf_options(conf, group)
        plugin_opts = ks_loading.get_auth_plugin_conf_options('password')
        conf.register_opts(plugin_opts, group=group)

        def unregister():
            conf.reset()
            conf.unregister_opts(plugin_opts, group=group)
        self.addCleanup(unregister)
        for key, value in {'www_authenticate_uri': self.auth_url,
                           'auth_type': 'password',
                           'auth_url': self.auth_url,
                           'username': 'cinder-ma', 'password': 'secret',
                           'project_name': 'service',
                           'user_domain_name': 'Default',
                           'project_domain_name': 'Default'}.items():
            conf.set_override(key, value, group=group)


def configure_keystone(testcase, auth_url='http://127.0.0.1:1/v3'):
    testcase.useFixture(KeystoneConf(testcase.conf, auth_url))


def closed_port():
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class TestKeystone(base.APITestCase):

    def setUp(self):
        super().setUp()
        configure_keystone(self)

    def test_version_documents_bypass_auth_token(self):
        application = webtest.TestApp(app.setup_app(self.conf))
        self.assertIn('versions', application.get('/', status=300).json)
        self.assertIn('versions', application.get('/v3/').json)

    def test_missing_token_is_a_401_fault_from_auth_token(self):
        application = webtest.TestApp(app.setup_app(self.conf))
        response = application.get(self.url('volumes'), status=401)
        self.assertFault(response, 401, 'unauthorized', 'token')
        self.assertIn('X-OpenStack-Request-Id', response.headers)
        self.assertIn('WWW-Authenticate', response.headers)

    def test_unreachable_keystone_is_a_503_fault(self):
        # The real auth_token, its Keystone on a port nobody listens on.
        configure_keystone(
            self, 'http://127.0.0.1:%d/v3' % closed_port())
        application = webtest.TestApp(app.setup_app(self.conf))
        response = application.get(self.url('volumes'), headers={
            'X-Auth-Token': 'some-token'}, status=503)
        self.assertFault(response, 503, 'serviceUnavailable', 'Keystone')
        self.assertIn('X-OpenStack-Request-Id', response.headers)

    def test_slow_keystone_is_a_503_fault(self):
        # A Keystone that takes connections and never answers: the
        # bounded timeout ends the wait (and the test), not a hang.
        server = socket.create_server(('127.0.0.1', 0), backlog=16)
        self.addCleanup(server.close)
        configure_keystone(self, 'http://127.0.0.1:%d/v3' %
                           server.getsockname()[1])
        self.conf.set_override('http_connect_timeout', 1,
                               group=auth.AUTHTOKEN_GROUP)
        self.conf.set_override('http_request_max_retries', 0,
                               group=auth.AUTHTOKEN_GROUP)
        application = webtest.TestApp(app.setup_app(self.conf))
        response = application.get(self.url('volumes'), headers={
            'X-Auth-Token': 'some-token'}, status=503)
        self.assertFault(response, 503, 'serviceUnavailable', 'Keystone')

    def test_identity_client_errors_are_503_faults(self):
        def failing_auth_token(application, conf):
            def middleware(environ, start_response):
                raise ksa_exceptions.ConnectFailure('refused')
            return middleware
        self.useFixture(fixtures.MockPatchObject(
            auth, 'keystone_middleware', side_effect=failing_auth_token))
        application = webtest.TestApp(app.setup_app(self.conf))
        response = application.get(self.url('volumes'), status=503)
        self.assertFault(response, 503, 'serviceUnavailable')

    def test_application_answers_pass_unchanged(self):
        def confirming(application, conf):
            def middleware(environ, start_response):
                environ.update({
                    'HTTP_X_IDENTITY_STATUS': 'Confirmed',
                    'HTTP_X_USER_ID': 'kuser',
                    'HTTP_X_PROJECT_ID': base.PROJECT,
                    'HTTP_X_ROLES': 'reader'})
                return application(environ, start_response)
            return middleware
        self.useFixture(fixtures.MockPatchObject(
            auth, 'keystone_middleware', side_effect=confirming))
        application = webtest.TestApp(app.setup_app(self.conf))
        response = application.get(self.url('volumes/%s' % uuid.uuid4()),
                                   status=404)
        self.assertFault(response, 404, 'itemNotFound', 'could not be found')
        response = application.post_json(
            self.url('volumes'), {'volume': {'size': 1}}, status=403)
        self.assertFault(response, 403, 'forbidden', 'volume:create')

    def test_context_from_auth_token_headers(self):
        spy = self.useFixture(_ContextSpy())

        def fake_auth_token(application, conf):
            # What keystonemiddleware sets for a valid token.
            def middleware(environ, start_response):
                environ.update({
                    'HTTP_X_IDENTITY_STATUS': 'Confirmed',
                    'HTTP_X_USER_ID': 'kuser',
                    'HTTP_X_PROJECT_ID': base.PROJECT,
                    'HTTP_X_ROLES': 'member,reader',
                    'HTTP_X_SERVICE_ROLES': 'service',
                    'HTTP_X_IS_ADMIN_PROJECT': 'False',
                })
                return application(environ, start_response)
            return middleware
        self.useFixture(fixtures.MockPatchObject(
            auth, 'keystone_middleware', side_effect=fake_auth_token))
        application = webtest.TestApp(app.setup_app(self.conf))
        application.get(self.url('volumes'))
        ctx = spy.contexts[-1]
        self.assertEqual('kuser', ctx.user_id)
        self.assertEqual(base.PROJECT, ctx.project_id)
        self.assertEqual(['member', 'reader'], ctx.roles)
        self.assertEqual(['service'], ctx.service_roles)
        self.assertFalse(ctx.is_admin)
        self.assertFalse(ctx.is_admin_project)

    def test_invalid_identity_is_a_401_fault(self):
        # auth_token with delay_auth_decision passes invalid identities on.
        def fake_auth_token(application, conf):
            def middleware(environ, start_response):
                environ['HTTP_X_IDENTITY_STATUS'] = 'Invalid'
                return application(environ, start_response)
            return middleware
        self.useFixture(fixtures.MockPatchObject(
            auth, 'keystone_middleware', side_effect=fake_auth_token))
        application = webtest.TestApp(app.setup_app(self.conf))
        response = application.get(self.url('volumes'), status=401)
        self.assertFault(response, 401, 'unauthorized')


class TestCheckConfig(base.APITestCase):

    def test_noauth_needs_nothing(self):
        auth.check_config(self.conf)

    def test_keystone_without_a_section_names_what_is_missing(self):
        self.flags(auth_strategy='keystone')
        exc = self.assertRaises(exception.InvalidConfiguration,
                                auth.check_config, self.conf)
        self.assertIn('[keystone_authtoken] www_authenticate_uri, '
                      'auth_type', str(exc))
        # setup_app refuses too (the WSGI entry point builds through it).
        self.assertRaises(exception.InvalidConfiguration, app.setup_app,
                          self.conf)

    def test_plugin_options_missing(self):
        configure_keystone(self)
        for key in ('auth_url', 'password'):
            self.conf.clear_override(key, group=auth.AUTHTOKEN_GROUP)
        exc = self.assertRaises(exception.InvalidConfiguration,
                                auth.check_config, self.conf)
        self.assertIn('[keystone_authtoken] auth_url', str(exc))
        self.assertNotIn('www_authenticate_uri', str(exc))

    def test_unknown_plugin(self):
        configure_keystone(self)
        self.conf.set_override('auth_type', 'nope',
                               group=auth.AUTHTOKEN_GROUP)
        exc = self.assertRaises(exception.InvalidConfiguration,
                                auth.check_config, self.conf)
        self.assertIn('auth_type = nope', str(exc))

    def test_usable(self):
        configure_keystone(self)
        auth.check_config(self.conf)


class TestLogContext(base.APITestCase):
    """Log lines carry the request they belong to: oslo.log's formatter
    takes the identity and request id of a line from the thread's
    current context."""

    def test_refused_request_is_not_logged_as_the_previous_caller(self):
        self.app.get(self.url('volumes'),
                     headers=base.headers(user='alice'))
        self.assertEqual('alice', oslo_context.get_current().user_id)
        # Refused before its context is built (noauth: no credentials).
        response = self.app.get(self.url('volumes'), status=401)
        current = oslo_context.get_current()
        self.assertIsNone(current.user_id)
        self.assertIsNone(current.project_id)
        self.assertEqual(response.headers['X-OpenStack-Request-Id'],
                         current.request_id)

    def test_lines_of_a_request_carry_its_identity_and_id(self):
        seen = []

        def list_volumes(context, **kwargs):
            seen.append(oslo_context.get_current())
            return []
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.volume.api.list_volumes', side_effect=list_volumes))
        response = self.app.get(self.url('volumes'),
                                headers=base.headers(user='bob'))
        self.assertEqual('bob', seen[0].user_id)
        self.assertEqual(response.headers['X-OpenStack-Request-Id'],
                         seen[0].request_id)
class TestRequestContext(base.APITestCase):

    def test_unconfirmed_identity_has_no_context(self):
        req = webob.Request.blank('/', headers={'X-User-Id': 'u',
                                                'X-Project-Id': 'p'})
        self.assertIsNone(auth.request_context(req))

    def test_admin_role_makes_an_admin(self):
        req = webob.Request.blank('/', headers={
            'X-Identity-Status': 'Confirmed', 'X-User-Id': 'u',
            'X-Project-Id': 'p', 'X-Roles': 'reader, Admin'})
        ctx = auth.request_context(req)
        self.assertEqual(['reader', 'Admin'], ctx.roles)
        self.assertTrue(ctx.is_admin)
