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

"""cinder-ma-api's embedded server, serving on a loopback port (the rest of
cinder_ma/cmd/api.py is tested in tests/unit/cmd/test_api.py)."""

import socket
import threading
import urllib.request

import fixtures
from oslo_serialization import jsonutils

from cinder_ma.cmd import api as api_cmd
from cinder_ma import rpc
from tests import base
from tests.unit.cmd import test_api as unit_test_api


class ApiCommandTestCase(unit_test_api.ApiCommandTestBase):

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
