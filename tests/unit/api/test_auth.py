"""Tests of authentication (noauth, keystone) and the request context."""

import fixtures
# Registers the [keystone_authtoken] options.
from keystonemiddleware import auth_token  # noqa: F401
import webob
import webtest

from cinder_ma.api import app
from cinder_ma.api import auth
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


class TestKeystone(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.flags(auth_strategy='keystone')

    def test_version_documents_bypass_auth_token(self):
        self.conf.set_override('www_authenticate_uri', 'http://keystone/',
                               group='keystone_authtoken')
        application = webtest.TestApp(app.setup_app(self.conf))
        self.assertIn('versions', application.get('/', status=300).json)
        self.assertIn('versions', application.get('/v3/').json)

    def test_missing_token_is_refused_by_auth_token(self):
        self.conf.set_override('www_authenticate_uri', 'http://keystone/',
                               group='keystone_authtoken')
        application = webtest.TestApp(app.setup_app(self.conf))
        response = application.get(self.url('volumes'), status=401)
        self.assertIn('X-OpenStack-Request-Id', response.headers)
        self.assertIn('WWW-Authenticate', response.headers)

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
