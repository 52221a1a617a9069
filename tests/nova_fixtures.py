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

"""A local HTTP server standing for Keystone's token API and Nova's
server external events.

The real Nova (with Keystone and Placement) runs only in the ``openstack``
gate (tests/openstack), which takes minutes to start: the unit and
functional tests talk HTTP to this server instead, so that the client's
requests (service user's token, catalog, microversion headers, request
id, timeouts) go through keystoneauth's real session and adapter.
"""

import http.server
import json
import threading
import time

import fixtures

TOKEN = 'token-of-the-nova-service-user'
REGION = 'RegionOne'


class LocalNova(fixtures.Fixture):
    """Keystone v3 (``POST /identity/v3/auth/tokens``, a catalog whose
    ``compute`` endpoint is this server) and Nova
    (``POST /compute/v2.1/os-server-external-events``) on 127.0.0.1.

    :param answer: called as ``answer(events, headers)`` for each events
        request; returns ``(status, body)``. By default every event is
        accepted (200, each with code 200), as Nova answers.
    :param delay: seconds each events request is held before its answer.
    :param keystone_status: the status of the token request (201: a
        token; anything else: refused).

    :ivar requests: ``(method, path, headers, body)`` of each request.
    """

    def __init__(self, answer=None, delay=0.0, keystone_status=201):
        super().__init__()
        self.answer = answer or accept_all
        self.delay = delay
        self.keystone_status = keystone_status

    def _setUp(self):
        self.requests = []
        fixture = self

        class Handler(http.server.BaseHTTPRequestHandler):

            def log_message(self, *args):
                pass

            def do_GET(self):
                fixture._record(self, None)
                self._send(404, {'itemNotFound': {'code': 404,
                                                  'message': 'not here'}})

            def do_POST(self):
                length = int(self.headers.get('Content-Length') or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b'null')
                except ValueError:
                    body = raw
                fixture._record(self, body)
                if self.path == '/identity/v3/auth/tokens':
                    self._send(fixture.keystone_status,
                               fixture._token_body(),
                               {'X-Subject-Token': TOKEN})
                elif self.path == '/compute/v2.1/os-server-external-events':
                    if fixture.delay:
                        time.sleep(fixture.delay)
                    status, answer = fixture.answer(
                        (body or {}).get('events') or [],
                        dict(self.headers))
                    self._send(status, answer)
                else:
                    self._send(404, {'itemNotFound': {
                        'code': 404, 'message': 'no ' + self.path}})

            def _send(self, status, body, headers=None):
                data = (body if isinstance(body, bytes)
                        else json.dumps(body).encode())
                try:
                    self.send_response(status)
                    self.send_header('Content-Type', 'application/json')
                    self.send_header('Content-Length', str(len(data)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    # The client gave up (its timeout).
                    pass

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        thread = threading.Thread(target=self.server.serve_forever,
                                  daemon=True)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)
        self.url = 'http://127.0.0.1:%d' % self.server.server_address[1]
        self.auth_url = self.url + '/identity/v3'
        self.compute_url = self.url + '/compute/v2.1'

    def _record(self, handler, body):
        self.requests.append((handler.command, handler.path,
                              dict(handler.headers), body))

    def _token_body(self):
        if self.keystone_status != 201:
            return {'error': {'code': self.keystone_status,
                              'message': 'The request you have made '
                                         'requires authentication.',
                              'title': 'Unauthorized'}}
        return {'token': {
            'methods': ['password'],
            'expires_at': '2099-01-01T00:00:00.000000Z',
            'issued_at': '2026-01-01T00:00:00.000000Z',
            'user': {'id': 'cinder-user-id', 'name': 'cinder',
                     'domain': {'id': 'default', 'name': 'Default'}},
            'project': {'id': 'service-project-id', 'name': 'service',
                        'domain': {'id': 'default', 'name': 'Default'}},
            'roles': [{'id': 'r1', 'name': 'service'}],
            'catalog': [{
                'type': 'compute', 'name': 'nova', 'id': 'compute-id',
                'endpoints': [{'id': 'e1', 'interface': 'public',
                               'region': REGION, 'region_id': REGION,
                               'url': self.compute_url}]}],
        }}

    def options(self, **overrides):
        """``[nova]`` options of a service user of this server."""
        values = {'auth_type': 'v3password', 'auth_url': self.auth_url,
                  'username': 'cinder', 'password': 'secret',
                  'user_domain_name': 'Default',
                  'project_name': 'service',
                  'project_domain_name': 'Default',
                  'region_name': REGION, 'timeout': 5}
        values.update(overrides)
        return values

    def events(self):
        """The events of every events request, in order."""
        return [event for method, path, _h, body in self.requests
                if path.endswith('/os-server-external-events')
                for event in (body or {}).get('events') or []]

    def events_requests(self):
        return [(headers, body) for method, path, headers, body
                in self.requests
                if path.endswith('/os-server-external-events')]


def accept_all(events, headers):
    """Nova's answer when every instance exists: 200, code 200 each."""
    return 200, {'events': [dict(event, status='completed', code=200)
                            for event in events]}
