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

"""The API app on a real HTTP server, and python-cinderclient clients of it."""

import socketserver
import threading
from wsgiref import simple_server

import fixtures

from tests.unit.api import base as api_base


class _QuietHandler(simple_server.WSGIRequestHandler):

    def log_message(self, format, *args):
        pass


class _ThreadingServer(socketserver.ThreadingMixIn,
                       simple_server.WSGIServer):
    daemon_threads = True


class ServedApp(fixtures.Fixture):
    """The app on a real HTTP server on a free loopback port, for tests
    that drive it with a real client such as python-cinderclient.

    The standard library's threaded WSGI server: it answers HTTP/1.0 (no
    connection outlives its request) and stops at once on cleanup.

    :ivar url: ``http://127.0.0.1:<port>``.
    """

    def __init__(self, application):
        super().__init__()
        self.application = application

    def _setUp(self):
        server = simple_server.make_server(
            '127.0.0.1', 0, self.application,
            server_class=_ThreadingServer, handler_class=_QuietHandler)
        thread = threading.Thread(target=server.serve_forever,
                                  kwargs={'poll_interval': 0.05},
                                  daemon=True)
        thread.start()
        self.addCleanup(server.server_close)
        self.addCleanup(thread.join, 10)
        self.addCleanup(server.shutdown)
        self.url = 'http://127.0.0.1:%d' % server.server_port


def cinderclient_for(url, version, project=api_base.PROJECT, user='fake-user',
                     roles=('member', 'reader'), service_roles=()):
    """A python-cinderclient v3 client of the served app at ``version``,
    with Cinder's own noauth plugin (roles go as ``X-Roles``)."""
    from cinderclient import api_versions
    from cinderclient import client as cinder_client
    from cinderclient.contrib import noauth
    from keystoneauth1 import session as ks_session

    auth = noauth.CinderNoAuthPlugin(user, project, endpoint=url + '/v3')
    extra = {'X-Roles': ','.join(roles)}
    if service_roles:
        extra['X-Service-Roles'] = ','.join(service_roles)
    session = ks_session.Session(auth=auth, additional_headers=extra)
    return cinder_client.Client(api_versions.APIVersion(version),
                                session=session)
