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

"""The Nova client: keystoneauth's real session and adapter, read from a
real ``[nova]`` section, over HTTP to a local server standing for
Keystone's token API and Nova's external events
(:class:`tests.nova_fixtures.LocalNova`).

Nova itself is not run here: it needs Keystone, Placement, a message
queue and minutes to start; the real Nova 34 receives these events in the
``openstack`` gate (tests/openstack), which the lead builds.
requests-mock is not in test-requirements.txt, hence the server.
"""

import os
import socket
import time

from oslo_config import cfg
from oslo_context import context as oslo_context

from cinder_ma.conf import nova as nova_conf
from cinder_ma.manager import nova
from tests import base
from tests import nova_fixtures

VOLUME = '6f1ee4a7-4a44-4bbd-9a4b-0bd5e7b1c1f7'
SERVER_A = '0a0b3b8e-5c60-4f7c-a3c3-98a1d1cbb0a1'
SERVER_B = '1b1c4c9f-6d71-4a8d-b4d4-a9b2e2dcc1b2'


class NovaAPITestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.context = oslo_context.RequestContext(
            global_request_id='req-6e1ee4a7-4a44-4bbd-9a4b-0bd5e7b1c1f7')

    def api(self, local=None, **options):
        """A NovaAPI on a configuration read from a file whose ``[nova]``
        section holds ``options`` (those of ``local``'s service user
        first)."""
        values = dict(local.options() if local else {}, **options)
        path = os.path.join(self.state_path, 'nova-%d.conf' % id(values))
        with open(path, 'w') as f:
            f.write('[nova]\n')
            for key, value in values.items():
                f.write('%s = %s\n' % (key, value))
        conf = cfg.ConfigOpts()
        nova_conf.register_opts(conf)
        conf(['--config-file', path], project='cinder_ma',
             default_config_files=[])
        return nova.NovaAPI(conf)

    def test_not_configured_without_auth_type(self):
        api = self.api()
        self.assertFalse(api.configured)
        # The defaults: Nova's catalog entry, every request bounded.
        group = api.conf.nova
        self.assertEqual(('compute', ['public'], 30),
                         (group.service_type, group.valid_interfaces,
                          group.timeout))

    def test_events_sent_as_the_service_user(self):
        local = self.useFixture(nova_fixtures.LocalNova())
        api = self.api(local)
        self.assertTrue(api.configured)
        outcome = api.extend_volume(self.context, [SERVER_A, SERVER_B],
                                    VOLUME)
        self.assertEqual({SERVER_A: None, SERVER_B: None}, outcome)
        # A token for the service user, then one request with both events
        # to the compute endpoint of the catalog, at microversion 2.51.
        token_request = local.requests[0]
        self.assertEqual(('POST', '/identity/v3/auth/tokens'),
                         token_request[:2])
        self.assertEqual(
            'cinder',
            token_request[3]['auth']['identity']['password']['user']['name'])
        [(headers, body)] = local.events_requests()
        headers = {name.lower(): value for name, value in headers.items()}
        self.assertEqual({'events': [
            {'name': 'volume-extended', 'server_uuid': SERVER_A,
             'tag': VOLUME},
            {'name': 'volume-extended', 'server_uuid': SERVER_B,
             'tag': VOLUME}]}, body)
        self.assertEqual(nova_fixtures.TOKEN, headers['x-auth-token'])
        self.assertEqual('compute 2.51', headers['openstack-api-version'])
        self.assertEqual('2.51', headers['x-openstack-nova-api-version'])
        self.assertEqual(self.context.global_request_id,
                         headers['x-openstack-request-id'])

        # The token is reused by the next extend.
        api.extend_volume(self.context, [SERVER_A], VOLUME)
        self.assertEqual(1, sum(1 for r in local.requests
                                if r[1].endswith('/auth/tokens')))

    def test_endpoint_override(self):
        local = self.useFixture(nova_fixtures.LocalNova())
        api = self.api(local, endpoint_override=local.compute_url,
                       region_name='elsewhere')
        self.assertEqual({SERVER_A: None},
                         api.extend_volume(self.context, [SERVER_A], VOLUME))

    def test_partial_answer(self):
        def answer(events, headers):
            # Nova's 207: one server unknown.
            return 207, {'events': [
                dict(events[0], status='completed', code=200),
                dict(events[1], status='failed', code=404)]}

        local = self.useFixture(nova_fixtures.LocalNova(answer))
        outcome = self.api(local).extend_volume(
            self.context, [SERVER_A, SERVER_B], VOLUME)
        self.assertEqual(
            {SERVER_A: None,
             SERVER_B: 'Nova refused the volume-extended event: code 404, '
                       'status failed'}, outcome)

    def test_no_instance_found(self):
        def answer(events, headers):
            return 404, {'itemNotFound': {
                'code': 404, 'message': 'No instances found for any event'}}

        local = self.useFixture(nova_fixtures.LocalNova(answer))
        outcome = self.api(local).extend_volume(self.context, [SERVER_A],
                                                VOLUME)
        self.assertEqual(
            'Nova answered 404 to the volume-extended event: '
            '{"itemNotFound": {"code": 404, "message": "No instances found '
            'for any event"}}', outcome[SERVER_A])

    def test_forbidden_and_server_errors(self):
        for status, body in ((403, {'forbidden': {'code': 403,
                                                  'message': 'Policy'}}),
                             (500, b'<html>oops</html>')):
            local = self.useFixture(nova_fixtures.LocalNova(
                lambda events, headers, s=status, b=body: (s, b)))
            outcome = self.api(local).extend_volume(
                self.context, [SERVER_A], VOLUME)
            self.assertIn('Nova answered %d to the volume-extended event'
                          % status, outcome[SERVER_A])

    def test_keystone_refuses_the_service_user(self):
        local = self.useFixture(nova_fixtures.LocalNova(
            keystone_status=401))
        outcome = self.api(local).extend_volume(self.context, [SERVER_A],
                                                VOLUME)
        self.assertIn('Nova could not be told', outcome[SERVER_A])
        self.assertEqual([], local.events_requests())

    def test_nova_does_not_answer_in_time(self):
        local = self.useFixture(nova_fixtures.LocalNova(delay=3))
        started = time.monotonic()
        outcome = self.api(local, timeout=0.5).extend_volume(
            self.context, [SERVER_A], VOLUME)
        self.assertLess(time.monotonic() - started, 2.5)
        self.assertIn('Nova could not be told', outcome[SERVER_A])
        self.assertIn('timed out', outcome[SERVER_A].lower())

    def test_nothing_listening(self):
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', 0))
            port = sock.getsockname()[1]
        api = self.api(auth_type='v3password',
                       auth_url='http://127.0.0.1:%d/identity/v3' % port,
                       username='cinder', password='secret',
                       user_domain_name='Default', project_name='service',
                       project_domain_name='Default', timeout=2)
        outcome = api.extend_volume(self.context, [SERVER_A], VOLUME)
        self.assertIn('Nova could not be told', outcome[SERVER_A])

    def test_misconfigured_plugin(self):
        api = self.api(auth_type='no-such-plugin')
        self.assertTrue(api.configured)
        outcome = api.extend_volume(self.context, [SERVER_A], VOLUME)
        self.assertIn('Nova could not be told', outcome[SERVER_A])
