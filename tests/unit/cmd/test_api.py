"""Tests of cinder-ma-api."""

import threading
import urllib.request

import fixtures

from cinder_ma.cmd import api as api_cmd
from cinder_ma import rpc
from tests import base
from tests.unit.cmd import test_manage


class ApiCommandTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.cmd = self.useFixture(test_manage.CommandFixture())
        self.addCleanup(rpc.cleanup)
        self.flags(group='api', port=0)

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
