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

"""Tests of the WSGI app as a whole: middleware, dispatch, faults,
hostile input."""

import io

import fixtures
from oslo_serialization import jsonutils
import pecan
from pecan import core as pecan_core
import webob
import webtest

from cinder_ma.api import app
from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from tests import base as test_base
from tests.unit.api import base

REQUEST_ID = 'X-OpenStack-Request-Id'


class TestRequestId(base.APITestCase):

    def _assert_request_id(self, response):
        self.assertTrue(response.headers.get(REQUEST_ID, '').startswith(
            'req-'), response.headers)

    def test_on_success(self):
        self._assert_request_id(self.app.get(self.url('volumes'),
                                             headers=base.MEMBER))
        self._assert_request_id(self.app.get('/', status=300))

    def test_on_errors(self):
        for response in (
                self.app.get(self.url('volumes'), status=401),
                self.app.get(self.url('nothing-here'), headers=base.MEMBER,
                             status=404),
                self.app.delete(self.url('volumes'), headers=base.MEMBER,
                                status=405),
                self.app.post(self.url('volumes'), 'not json',
                              headers=base.MEMBER, status=400,
                              content_type='application/json'),
                self.app.get(self.url('volumes'), status=406,
                             headers=base.headers(version='3.999'))):
            self._assert_request_id(response)

    def test_unique_per_request(self):
        first = self.app.get('/', status=300).headers[REQUEST_ID]
        second = self.app.get('/', status=300).headers[REQUEST_ID]
        self.assertNotEqual(first, second)


class TestDispatch(base.APITestCase):

    def test_unknown_route_is_a_404_fault(self):
        response = self.app.get('/v4/whatever', headers=base.MEMBER,
                                status=404)
        self.assertFault(response, 404, 'itemNotFound',
                         'could not be found')

    def test_wrong_method_is_a_405_fault_with_allow(self):
        response = self.app.patch(self.url('volumes'), headers=base.MEMBER,
                                  status=405)
        self.assertFault(response, 405, 'badMethod', 'PATCH')
        self.assertEqual('GET, HEAD, POST', response.headers['Allow'])

    def test_head_answers_like_get_without_a_body(self):
        for path, status, headers in (
                ('/', 300, {}), ('/v3/', 200, {}), ('/v3', 200, {}),
                (self.url('volumes'), 200, base.MEMBER),
                (self.url('types/default'), 200, base.MEMBER)):
            got = self.app.get(path, headers=headers, status=status)
            head = self.app.head(path, headers=headers, status=status)
            self.assertEqual(b'', head.body)
            self.assertEqual(got.headers['Content-Length'],
                             head.headers['Content-Length'])
            self.assertEqual(got.content_type, head.content_type)

    def test_head_needs_what_get_needs(self):
        self.app.head(self.url('volumes'), status=401)
        self.app.head(self.url('volumes/%s' % 'nope'), headers=base.MEMBER,
                      status=404)
        # Only where GET is served.
        response = self.app.head(self.url('volumes/x/action'),
                                 headers=base.MEMBER, status=405)
        self.assertEqual('POST', response.headers['Allow'])

    def test_empty_200_stays_a_200(self):
        # Pecan would make it a 204; Cinder answers 200 (os-set_bootable).
        volume = self.create_volume()
        response = self.app.post_json(
            self.url('volumes/%s/action' % volume.id),
            {'os-set_bootable': {'bootable': True}}, headers=base.MEMBER,
            status=200)
        self.assertEqual(b'', response.body)
        self.assertEqual('0', response.headers['Content-Length'])
        self.assertNotIn('Content-Type', response.headers)
        self.assertEqual('volume 3.0',
                         response.headers['OpenStack-API-Version'])

    def test_trailing_slash_names_nothing(self):
        # As in Cinder (Tempest's *_without_passing_volume_id tests): an
        # empty volume id is a 404, for every method.
        for method in ('GET', 'PUT', 'DELETE'):
            response = self.app.request(self.url('volumes/'), method=method,
                                        headers=base.MEMBER,
                                        expect_errors=True)
            self.assertFault(response, 404, 'itemNotFound')

    def test_url_of_another_project_is_malformed(self):
        # Cinder's answer when the URL's project is not the caller's,
        # saying which projects differ.
        response = self.app.get(self.url('volumes', project='someone'),
                                headers=base.MEMBER, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'Malformed request url: the URL names project '
                         'someone but the token is scoped to project %s' %
                         base.PROJECT)
        self.assertIn('with noauth the token', response.text)

    def test_unexpected_error_is_a_500_without_traceback(self):
        logged = self.expect_logged_errors()
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.volume.api.list_volumes',
            side_effect=RuntimeError('secret internals')))
        response = self.app.get(self.url('volumes'), headers=base.MEMBER,
                                status=500)
        self.assertFault(response, 500, 'computeFault')
        self.assertNotIn('secret internals', response.text)
        self.assertEqual('volume 3.0',
                         response.headers['OpenStack-API-Version'])
        self.assertIn('RuntimeError: secret internals', logged.output)

    def test_error_escaping_the_app_is_a_500_fault(self):
        logged = self.expect_logged_errors()
        dispatch = self.useFixture(fixtures.MockPatch(
            'cinder_ma.api.app.dispatch',
            side_effect=RuntimeError('secret internals'))).mock
        response = self.app.get(self.url('volumes'), headers=base.MEMBER,
                                status=500)
        self.assertFault(response, 500, 'computeFault')
        self.assertNotIn('secret internals', response.text)
        self.assertIn(REQUEST_ID, response.headers)
        # Not a second time by the hook; logged once, with its traceback.
        self.assertEqual(1, dispatch.call_count)
        self.assertEqual(1, logged.output.count(
            'RuntimeError: secret internals'))

    def test_accept_header_does_not_matter(self):
        for accept in ('text/html', 'application/xml', 'image/png;q=0.5',
                       'application/json', '*/*', ''):
            response = self.app.get(self.url('volumes'), headers=dict(
                base.MEMBER, Accept=accept))
            self.assertEqual('application/json', response.content_type)

    def test_names_of_the_root_controller_are_not_routes(self):
        for path in ('/index', '/version_3', '/other', '/_route',
                     '/v3/index', '/v3/other', '/v3/_route'):
            response = self.app.get(path, headers=base.MEMBER, status=404)
            self.assertFault(response, 404, 'itemNotFound')

    def test_input_pecan_cannot_read_is_answered_by_dispatch(self):
        # Pecan reads the query string and a JSON body before calling the
        # controller; where it fails, the answer is the API's own, with
        # the microversion headers.
        headers = dict(base.MEMBER, **{
            'OpenStack-API-Version': 'volume 3.50'})
        response = self.app.get(self.url('volumes') + '?name=%FF',
                                headers=headers, status=400)
        self.assertFault(response, 400, 'badRequest', 'UTF-8')
        self.assertEqual('volume 3.50',
                         response.headers['OpenStack-API-Version'])
        deep = b'{"volume": ' + b'[' * 20000 + b']' * 20000 + b'}'
        response = self.app.post(self.url('volumes'), deep, headers=headers,
                                 content_type='application/json',
                                 status=400)
        self.assertFault(response, 400, 'badRequest', 'nested deeper')
        self.assertEqual('volume 3.50',
                         response.headers['OpenStack-API-Version'])
        # The microversion is checked first, as for any request.
        response = self.app.get(
            self.url('volumes') + '?name=%FF', status=406,
            headers=dict(base.MEMBER, **{
                'OpenStack-API-Version': 'volume 3.999'}))
        self.assertFault(response, 406, 'computeFault')

    def test_undecodable_query_is_a_400_fault(self):
        response = self.app.get(self.url('volumes') + '?name=%FF%FE',
                                headers=base.MEMBER, status=400)
        self.assertFault(response, 400, 'badRequest', 'UTF-8')


class TestSetupApp(base.APITestCase):

    def test_schema_ranges_are_checked(self):
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.api.validation.check_ranges',
            side_effect=ValueError('gap')))
        self.assertRaises(ValueError, app.setup_app, self.conf)


class TestPecanAsUsed(test_base.BaseTestCase):
    """What the app undoes of Pecan's own behaviour (see cinder_ma.api.app):
    if one of these fails, Pecan changed, and the hook or the wrapper may
    have to change (or go)."""

    def _bare_pecan(self, response, hooks=()):
        class Root:
            @pecan.expose(content_type=expose.JSON)
            def index(self, req, resp):
                return response()

        return pecan.Pecan(Root(), hooks=list(hooks),
                           use_context_locals=False,
                           request_cls=webob.Request,
                           response_cls=webob.Response)

    def _empty_200(self):
        return expose.json_response(None)

    def test_pecan_turns_an_empty_200_into_a_204(self):
        response = webob.Request.blank('/').get_response(
            self._bare_pecan(self._empty_200))
        self.assertEqual(204, response.status_int)

    def test_keep_empty_200_gives_the_status_back(self):
        wrapped = app.keep_empty_200(self._bare_pecan(self._empty_200))
        req = webob.Request.blank('/')
        # What RootController notes for an empty 200.
        req.environ[app.EMPTY_200] = ('200 OK', [('Content-Length', '0')])
        response = req.get_response(wrapped)
        self.assertEqual(200, response.status_int)
        self.assertEqual([('Content-Length', '0')], response.headerlist)

    def test_keep_empty_200_leaves_other_answers_alone(self):
        def no_content():
            return expose.json_response(None, status=204)

        response = webob.Request.blank('/').get_response(
            app.keep_empty_200(self._bare_pecan(no_content)))
        self.assertEqual(204, response.status_int)
        response = webob.Request.blank('/').get_response(
            app.keep_empty_200(self._bare_pecan(
                lambda: expose.json_response({'a': 1}))))
        self.assertEqual(200, response.status_int)
        self.assertEqual({'a': 1}, response.json)

    def test_pecan_refuses_an_accept_it_cannot_match(self):
        def ok():
            return expose.json_response({})

        req = webob.Request.blank('/', headers={'Accept': 'text/html'})
        self.assertEqual(406,
                         req.get_response(self._bare_pecan(ok)).status_int)
        # Unless the hook set the content type.
        response = req.get_response(
            self._bare_pecan(ok, hooks=[app.DispatchHook()]))
        self.assertEqual(200, response.status_int)

    def test_response_pecan_answers_the_controllers_response(self):
        # Pecan calls invoke_controller by that name with the arguments
        # it found (if it stops, its own would inspect the controller at
        # every request again); the query's arguments are not passed. And
        # pecan.Pecan without context locals is still an ExplicitPecan.
        calls = []

        class Spy(app.ResponsePecan):
            def invoke_controller(self, controller, args, kwargs, state):
                calls.append((len(args), sorted(kwargs)))
                return super().invoke_controller(controller, args, kwargs,
                                                 state)

        class Root:
            @pecan.expose(content_type=expose.JSON)
            def index(self, req, resp):
                return expose.json_response({'a': 1}, status=201)

        application = Spy(Root(), use_context_locals=False,
                          request_cls=webob.Request,
                          response_cls=webob.Response)
        response = webob.Request.blank('/?req=x&b=2').get_response(
            application)
        self.assertEqual(201, response.status_int)
        self.assertEqual({'a': 1}, response.json)
        self.assertEqual([(2, [])], calls)
        self.assertIsInstance(self._bare_pecan(lambda: None),
                              pecan_core.ExplicitPecan)

    def test_pecan_reads_arguments_before_the_controller(self):
        # Which is why DispatchHook.on_error has dispatch() answer.
        called = []
        req = webob.Request.blank('/?a=%FF')
        self.assertRaises(UnicodeDecodeError, req.get_response,
                          self._bare_pecan(lambda: called.append(1)))
        self.assertEqual([], called)


class TestHostileInput(base.APITestCase):
    """Input meant to break the API: a 4xx fault with a short message,
    and nothing done."""

    def _chunked_post(self, path, body, headers):
        # A body without Content-Length, as a server hands over a chunked
        # one (webtest always sets Content-Length).
        req = webob.Request.blank(path, method='POST', headers=headers)
        req.environ['wsgi.input'] = io.BytesIO(body)
        req.environ['wsgi.input_terminated'] = True
        req.environ.pop('CONTENT_LENGTH', None)
        req.content_type = 'application/json'
        return req.get_response(app.setup_app(self.conf))

    def _assert_short_fault(self, response, code, name):
        self.assertEqual(code, response.status_int, response.body[:300])
        body = jsonutils.loads(response.body)
        self.assertEqual([name], list(body))
        self.assertEqual(code, body[name]['code'])
        self.assertLess(len(body[name]['message']), 400)

    def test_body_over_the_limit_is_a_413_fault(self):
        self.flags(group='oslo_middleware', max_request_body_size=2048)
        self.app = webtest.TestApp(app.setup_app(self.conf))
        body = {'volume': {'size': 1, 'name': 'x' * 4096}}
        response = self.app.post_json(self.url('volumes'), body,
                                      headers=base.MEMBER, status=413)
        self.assertFault(response, 413, 'overLimit')
        self.assertEqual([], self.app.get(
            self.url('volumes'), headers=base.MEMBER).json['volumes'])

    def test_chunked_body_over_the_limit_is_a_413_fault(self):
        self.flags(group='oslo_middleware', max_request_body_size=2048)
        body = jsonutils.dumps({'volume': {'size': 1, 'name': 'x' * 4096}})
        response = self._chunked_post(self.url('volumes'),
                                      body.encode('utf-8'), base.MEMBER)
        self._assert_short_fault(response, 413, 'overLimit')
        self.assertIn('too large', response.json['overLimit']['message'])
        self.create_cast.assert_not_called()
        # Under the limit, a chunked body is read.
        response = self._chunked_post(
            self.url('volumes'), b'{"volume": {"size": 1}}', base.MEMBER)
        self.assertEqual(202, response.status_int, response.body)

    def test_deep_json_is_a_400_fault(self):
        for depth in (40, 20000):
            body = b'{"volume": ' + b'[' * depth + b']' * depth + b'}'
            response = self.app.post(self.url('volumes'), body,
                                     headers=base.MEMBER, status=400,
                                     content_type='application/json')
            self.assertFault(response, 400, 'badRequest', 'nested deeper')

    def test_json_that_is_not_an_object_is_a_400_fault(self):
        for body in (b'[]', b'"volume"', b'1', b'null', b'true'):
            response = self.app.post(self.url('volumes'), body,
                                     headers=base.MEMBER, status=400,
                                     content_type='application/json')
            self.assertFault(response, 400, 'badRequest')
            response = self.app.post(
                self.url('volumes/%s/action' % self.create_volume().id),
                body, headers=base.MEMBER, status=400,
                content_type='application/json')
            self.assertFault(response, 400, 'badRequest')

    def test_huge_integers_are_a_400_fault(self):
        for size in (2 ** 64, 2 ** 31, '9' * 5000, '1' * 25):
            response = self.app.post_json(
                self.url('volumes'), {'volume': {'size': size}},
                headers=base.MEMBER, status=400)
            self.assertFault(response, 400, 'badRequest')
            self.assertLess(len(response.json['badRequest']['message']),
                            400)

    def test_microversion_of_thousands_of_digits_is_a_400_fault(self):
        for version in ('3.' + '9' * 5000, '9' * 5000 + '.0'):
            response = self.app.get(
                self.url('volumes'), status=400,
                headers=dict(base.MEMBER, **{
                    'OpenStack-API-Version': 'volume %s' % version}))
            self.assertFault(response, 400, 'badRequest', 'invalid format')
            self.assertLess(len(response.json['badRequest']['message']),
                            300)

    def test_echoed_values_are_cut(self):
        long_id = 'x' * 100000
        for response in (
                self.app.get(self.url('volumes/%s' % long_id),
                             headers=base.MEMBER, status=404),
                self.app.get(self.url('volumes?sort=%s' % long_id),
                             headers=base.MEMBER, status=400),
                self.app.get(self.url('volumes?marker=%s' % long_id),
                             headers=base.MEMBER, status=404),
                self.app.get(self.url('volumes?all_tenants=%s' % long_id),
                             headers=base.MEMBER, status=400),
                self.app.get(self.url('volumes?%s=1' % long_id),
                             headers=base.headers(version='3.31'),
                             status=400),
                self.app.post_json(self.url('volumes'),
                                   {'volume': {'size': long_id}},
                                   headers=base.MEMBER, status=400),
                self.app.post_json(
                    self.url('volumes/%s/action' % self.create_volume().id),
                    {long_id: None}, headers=base.MEMBER, status=400)):
            (fault,) = response.json.values()
            self.assertLess(len(fault['message']), 400, fault['message'])
            self.assertIn('x' * 90, fault['message'])

    def test_nul_in_the_url_is_a_400_fault(self):
        for path in ('volumes?name=a%00b', 'volumes/a%00b/metadata/k',
                     'volumes?a%00=1'):
            response = self.app.get(self.url(path), headers=base.MEMBER,
                                    status=400)
            self.assertFault(response, 400, 'badRequest', 'NUL')

    def test_unknown_and_repeated_sort_keys_are_400_faults(self):
        for sort in ('nope', 'name,name', 'name:asc,id:desc,name'):
            response = self.app.get(self.url('volumes?sort=%s' % sort),
                                    headers=base.MEMBER, status=400)
            self.assertFault(response, 400, 'badRequest')

    def test_huge_limit_is_capped(self):
        response = self.app.get(self.url('volumes?limit=%s' % ('9' * 30)),
                                headers=base.MEMBER)
        self.assertEqual([], response.json['volumes'])
        response = self.app.get(self.url('volumes?limit=%s' % ('9' * 5000)),
                                headers=base.MEMBER, status=400)
        self.assertFault(response, 400, 'badRequest', 'limit')


class TestFaultWrapper(base.APITestCase):

    def _wrapped(self, status, body, content_type, headers=()):
        def inner(environ, start_response):
            start_response(status, [('Content-Type', content_type)] +
                           list(headers))
            return [body]
        return webtest.TestApp(expose.FaultWrapper(inner))

    def test_error_pages_of_middleware_become_faults(self):
        wrapped = self._wrapped('413 Request Entity Too Large',
                                b'<html>too big</html>', 'text/html')
        response = wrapped.get('/', status=413)
        self.assertFault(response, 413, 'overLimit', 'too large')

    def test_keystonemiddleware_shape_keeps_message_and_headers(self):
        body = jsonutils.dumps({'error': {
            'code': 401, 'title': 'Unauthorized',
            'message': 'The request you have made requires '
                       'authentication.'}}).encode()
        wrapped = self._wrapped(
            '401 Unauthorized', body, 'application/json',
            [('WWW-Authenticate', 'Keystone uri="http://127.0.0.1:5000"')])
        response = wrapped.get('/', status=401)
        self.assertFault(response, 401, 'unauthorized',
                         'requires authentication')
        self.assertEqual('Keystone uri="http://127.0.0.1:5000"',
                         response.headers['WWW-Authenticate'])

    def test_faults_and_successes_pass_as_they_are(self):
        fault = expose.fault_response(404, 'gone')
        wrapped = webtest.TestApp(expose.FaultWrapper(fault))
        self.assertEqual(fault.body, wrapped.get('/', status=404).body)
        wrapped = self._wrapped('200 OK', b'not json', 'text/plain')
        self.assertEqual(b'not json', wrapped.get('/').body)


class TestNothingHalfMade(base.APITestCase):

    def test_refused_connector_calls_no_backend(self):
        volume = self.create_volume()
        url = self.url('attachments')
        headers = base.headers(roles=['member', 'reader'],
                               version=mv.MAX_VERSION)
        attachment = self.app.post_json(url, {'attachment': {
            'volume_uuid': volume.id,
            'instance_uuid': '6a1d3d4c-3f4e-4b6f-9a53-1d5f6b1a2c3d'}},
            headers=headers).json['attachment']
        before = self.app.get(url + '/' + attachment['id'],
                              headers=headers).json
        calls = list(self.rpc.calls)
        for connector in ({'host': 42}, {'host': 'h', 'wwpns': 'x'},
                          {'host': 'h', 'multipath': 'maybe'},
                          {'host': 'h', 'nested': [[[[[[[[[[[[[[[[[[[[
                              [[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]
                          ]]]]]]]]]]]]]]]]]]]]}):
            response = self.app.put_json(
                url + '/' + attachment['id'],
                {'attachment': {'connector': connector}}, headers=headers,
                status=400)
            self.assertFault(response, 400, 'badRequest')
        self.assertEqual(calls, self.rpc.calls)
        self.assertEqual(before, self.app.get(url + '/' + attachment['id'],
                                              headers=headers).json)
        # A bad connector on create reserves nothing.
        response = self.app.post_json(url, {'attachment': {
            'volume_uuid': volume.id, 'connector': {'host': ['a']}}},
            headers=headers, status=400)
        self.assertFault(response, 400, 'badRequest', 'host')
        self.assertEqual(1, len(self.app.get(
            url, headers=headers).json['attachments']))
        self.assertEqual(calls, self.rpc.calls)


class TestHealthcheck(base.APITestCase):
    """oslo.middleware's Healthcheck at /healthcheck, without auth."""

    def test_ok_without_authentication(self):
        response = self.app.get('/healthcheck', status=200)
        self.assertEqual('OK', response.text)
        self.assertTrue(response.headers[REQUEST_ID].startswith('req-'))

    def test_disabled_by_file(self):
        path = self.conf.healthcheck.disable_by_file_path
        self.assertTrue(path.startswith(self.conf.state_path), path)
        with open(path, 'w'):
            pass
        response = self.app.get('/healthcheck', status=503)
        self.assertEqual('DISABLED BY FILE', response.text)

    def test_other_paths_still_need_authentication(self):
        self.app.get('/healthcheck/x', status=401)
        self.app.get(self.url('volumes'), status=401)
