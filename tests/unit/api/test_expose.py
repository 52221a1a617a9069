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

"""Tests of the expose decorator and of fault bodies."""

import sys

from oslo_db import exception as db_exc
import oslo_messaging as messaging
from sqlalchemy import exc as sa_exc
import webob
import webob.exc

from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma import exception
from tests import base
from tests.unit import test_rpc


def _call(result=None, error=None, status=200):
    @expose.expose(status=status)
    def handler(req):
        if error is not None:
            raise error
        return result
    return handler(webob.Request.blank('/'))


class TestExpose(base.BaseTestCase):

    def test_json_result(self):
        response = _call({'a': 1})
        self.assertEqual(200, response.status_int)
        self.assertEqual('application/json', response.content_type)
        self.assertEqual({'a': 1}, response.json)

    def test_status_and_empty_body(self):
        response = _call(None, status=202)
        self.assertEqual(202, response.status_int)
        self.assertEqual(b'', response.body)

    def test_response_passes_through(self):
        original = webob.Response(status=204)
        self.assertIs(original, _call(original))

    def test_datetimes_like_cinder(self):
        import datetime
        response = _call({'t': datetime.datetime(2026, 11, 21, 20, 0)})
        self.assertEqual({'t': '2026-11-21T20:00:00.000000'},
                         response.json)


class TestVersionGate(base.BaseTestCase):

    def _call(self, version, **gate):
        @expose.expose(status=202, **gate)
        def handler(req):
            return {'served': True}
        req = webob.Request.blank('/')
        req.api_version = mv.APIVersionRequest(version)
        return handler(req)

    def test_inside_the_range(self):
        for version in ('3.27', '3.30', '3.40'):
            response = self._call(version, min_version='3.27',
                                  max_version='3.40')
            self.assertEqual(202, response.status_int)

    def test_outside_is_cinders_404(self):
        for version in ('3.0', '3.26', '3.41'):
            response = self._call(version, min_version='3.27',
                                  max_version='3.40')
            self.assertEqual(404, response.status_int)
            self.assertEqual(
                {'itemNotFound': {
                    'code': 404,
                    'message': 'API version %s is not supported on this '
                               'method.' % version}}, response.json)

    def test_ungated_needs_no_version(self):
        self.assertEqual(200, _call({'a': 1}).status_int)

    def test_gate_is_recorded(self):
        @expose.expose(min_version='3.44')
        def handler(req):
            return None
        self.assertEqual('3.44', handler.min_version)
        self.assertIsNone(handler.max_version)


class TestFaults(base.BaseTestCase):

    def _fault(self, error):
        response = _call(error=error)
        (name, body), = response.json.items()
        return response.status_int, name, body['code'], body['message']

    def test_cinder_ma_exceptions(self):
        for error, code, name in (
                (exception.InvalidInput(reason='no'), 400, 'badRequest'),
                (exception.PolicyNotAuthorized(action='x'), 403,
                 'forbidden'),
                (exception.VolumeNotFound(volume_id='v'), 404,
                 'itemNotFound'),
                (exception.Conflict(reason='busy'), 409,
                 'conflictingRequest'),
                (exception.VersionNotAcceptable(version='9'), 406,
                 'computeFault')):
            self.assertEqual((code, name, code, str(error)),
                             self._fault(error))

    def test_remote_exception_shows_no_traceback(self):
        remote = test_rpc.rebuilt(exception.VolumeNotFound(volume_id='v'))
        self.assertEqual((404, 'itemNotFound', 404,
                          'Volume v could not be found.'),
                         self._fault(remote))

    def test_webob_errors(self):
        self.assertEqual(
            (400, 'badRequest', 400, 'bad thing'),
            self._fault(webob.exc.HTTPBadRequest(explanation='bad thing')))
        self.assertEqual(
            (415, 'badMediaType', 415, 'nope'),
            self._fault(webob.exc.HTTPUnsupportedMediaType(
                explanation='nope')))
        status, name, code, message = self._fault(
            webob.exc.HTTPMethodNotAllowed(headers={'Allow': 'GET'}))
        self.assertEqual((405, 'badMethod'), (status, name))

    def test_server_errors_hide_their_message(self):
        logged = self.expect_logged_errors()
        for error in (RuntimeError('internal detail'),
                      exception.DriverError(reason='internal detail'),
                      KeyError('internal detail')):
            status, name, code, message = self._fault(error)
            self.assertEqual((500, 'computeFault', 500), (status, name,
                                                          code))
            self.assertNotIn('internal detail', message)
        # The operator's log has them, with their tracebacks.
        self.assertEqual(3, logged.output.count('Traceback'))
        self.assertIn("KeyError: 'internal detail'", logged.output)

    def test_service_unavailable(self):
        status, name, code, message = self._fault(
            exception.ManagerUnavailable(host='node7', reason='secret'))
        self.assertEqual((503, 'serviceUnavailable'), (status, name))
        self.assertNotIn('secret', message)
        self.assertIn('node7', message)

    def test_outages_are_503(self):
        for error in (db_exc.DBConnectionError('db down'),
                      sa_exc.OperationalError('SELECT 1', {}, 'refused'),
                      messaging.MessagingTimeout('no answer'),
                      messaging.MessageDeliveryFailure('broker down')):
            status, name, code, message = self._fault(error)
            self.assertEqual((503, 'serviceUnavailable', 503),
                             (status, name, code))
            self.assertIn('try again later', message)

    def test_outages_are_logged_once_per_interval(self):
        log = expose._OutageLog(interval=3600)
        self.assertTrue(log.log('DBConnectionError', 'down'))
        for _ in range(100):
            self.assertFalse(log.log('DBConnectionError', 'down'))
        self.assertTrue(log.log('MessagingTimeout', 'slow'))


class TestFaultWrapper(base.BaseTestCase):

    def test_success_passes_through(self):
        def ok(environ, start_response):
            start_response('200 OK', [('Content-Type', 'text/plain'),
                                      ('X-A', 'b')])
            return [b'fine']
        response = webob.Request.blank('/').get_response(
            expose.FaultWrapper(ok))
        self.assertEqual('200 OK', response.status)
        self.assertEqual(b'fine', response.body)
        self.assertEqual('b', response.headers['X-A'])

    def test_start_response_deferred_or_write(self):
        def deferred(environ, start_response):
            write = start_response('404 Not Found',
                                   [('Content-Type', 'text/html')])
            write(b'<html>')
            yield b'gone</html>'
        response = webob.Request.blank('/').get_response(
            expose.FaultWrapper(deferred))
        self.assertEqual(404, response.status_int)
        self.assertIn('itemNotFound', response.json)

    def test_exc_info_becomes_a_fault(self):
        def failing(environ, start_response):
            try:
                raise ValueError('inner')
            except ValueError:
                start_response('500 Internal Server Error',
                               [('Content-Type', 'text/plain')],
                               sys.exc_info())
            return [b'']
        logged = self.expect_logged_errors()
        response = webob.Request.blank('/').get_response(
            expose.FaultWrapper(failing))
        self.assertEqual(500, response.status_int)
        self.assertIn('computeFault', response.json)
        self.assertIn('ValueError: inner', logged.output)

    def test_exception_becomes_a_fault(self):
        def broken(environ, start_response):
            raise RuntimeError('boom')
        logged = self.expect_logged_errors()
        response = webob.Request.blank('/').get_response(
            expose.FaultWrapper(broken))
        self.assertEqual(500, response.status_int)
        self.assertIn('computeFault', response.json)
        self.assertNotIn('boom', response.text)
        self.assertIn('RuntimeError: boom', logged.output)
