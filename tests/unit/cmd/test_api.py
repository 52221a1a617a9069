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

import socket
import threading
import urllib.request

import fixtures
from oslo_serialization import jsonutils

from cinder_ma import rpc
from cinder_ma.cmd import api as api_cmd
from tests import base
from tests.unit.cmd import test_manage


class ApiCommandTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.cmd = self.useFixture(test_manage.CommandFixture())
        self.addCleanup(rpc.cleanup)
        self.flags(group='api', port=0)
        self.flags(auth_strategy='noauth')

    def test_serves_the_app(self):
        seen = []

        def _serve(server):
            thread = threading.Thread(target=server.run, daemon=True)
            thread.start()
            try:
                url = api_cmd.server_url(server)
                with urllib.request.urlopen(url + '/v3', timeout=10) as r:
                    seen.append(r.status)
                self.assertTrue(rpc.initialized())
                self.assertFalse(rpc.is_local())
            finally:
                server.close()
                thread.join(10)

        self.useFixture(fixtures.MockPatch(
            'cinder_ma.cmd.api.run_server', side_effect=_serve))
        self.assertEqual(0, api_cmd.main(['cinder-ma-api']))
        self.assertEqual([200], seen)
        self.assertFalse(rpc.initialized())

    def test_load_app_freezes_the_heap_once_built(self):
        calls = []
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.api.app.setup_app',
            side_effect=lambda: calls.append('setup_app') or 'app'))
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.cmd.freeze_heap',
            side_effect=lambda: calls.append('freeze_heap')))
        self.assertEqual('app', api_cmd.load_app())
        self.assertEqual(['setup_app', 'freeze_heap'], calls)

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


class EmbeddedServerRefusalsTestCase(base.TestCase):
    """Requests waitress refuses before the application sees them are
    answered with Cinder's faults (a real server on loopback)."""

    def setUp(self):
        super().setUp()
        self.flags(group='api', port=0)
        self.flags(group='oslo_middleware', max_request_body_size=1024)
        seen = self.seen = []

        def application(environ, start_response):
            seen.append(environ['PATH_INFO'])
            start_response('200 OK', [('Content-Type', 'text/plain')])
            return [environ['wsgi.input'].read()]

        self.server = api_cmd.create_server(application, self.conf)
        thread = threading.Thread(target=self.server.run, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(self.server.close)
        self.address = (self.server.effective_host,
                        self.server.effective_port)

    def _send(self, raw):
        with socket.create_connection(self.address, timeout=10) as sock:
            sock.sendall(raw)
            sock.shutdown(socket.SHUT_WR)
            answer = b''
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
        head, _sep, body = answer.partition(b'\r\n\r\n')
        status = int(head.split(b' ', 2)[1])
        return status, head.decode('latin-1'), body

    def _assert_fault(self, raw, code, name):
        status, head, body = self._send(raw)
        self.assertEqual(code, status, head)
        self.assertIn('Content-Type: application/json', head)
        fault = jsonutils.loads(body)
        self.assertEqual([name], list(fault))
        self.assertEqual(code, fault[name]['code'])
        self.assertLess(len(fault[name]['message']), 400)

    def test_malformed_requests_are_faults(self):
        for raw in (
                b'GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n',
                b'GET / HTTP/1.1\r\nHost: x\r\nBad\x01Header: 1\r\n\r\n',
                b'GARBAGE\r\n\r\n',
                b'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n'
                b'Content-Length: 2\r\n\r\nab',
                b'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
                b'POST / HTTP/1.1\r\nHost: x\r\n'
                b'Transfer-Encoding: chunked\r\n\r\nzz\r\n'):
            self._assert_fault(raw, 400, 'badRequest')
        self.assertEqual([], self.seen)
        # A transfer coding waitress does not know (its 501, RFC 9112,
        # 6.1) is the client's fault too: a 400, never a 5xx.
        self._assert_fault(b'GET / HTTP/1.1\r\nHost: x\r\n'
                           b'Transfer-Encoding: gzip\r\n\r\n',
                           400, 'badRequest')

    def test_bodies_over_the_limit_are_413_faults(self):
        chunk = b'a' * 600
        chunked = (b'POST / HTTP/1.1\r\nHost: x\r\n'
                   b'Transfer-Encoding: chunked\r\n\r\n' +
                   (b'%x\r\n%s\r\n' % (len(chunk), chunk)) * 3 +
                   b'0\r\n\r\n')
        self._assert_fault(chunked, 413, 'overLimit')
        self._assert_fault(b'POST / HTTP/1.1\r\nHost: x\r\n'
                           b'Content-Length: 5000\r\n\r\n' + b'a' * 5000,
                           413, 'overLimit')
        self.assertEqual([], self.seen)
        # At the limit, the application gets the body.
        status, _head, body = self._send(
            b'POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n'
            b'Content-Length: 1024\r\n\r\n' + b'b' * 1024)
        self.assertEqual((200, b'b' * 1024), (status, body))
