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

"""A real Keystone in front of cinder_ma: who "the service" is, that it
stays in its user token's project, and the safe defaults of
auth_strategy = keystone (tests/functional/fixtures.py, ``Keystone``).

A compute service sends its user's token and its own service token
(keystoneauth's ServiceTokenAuthWrapper): only the service token's
``service`` role makes a request the service's.
"""

import os
import subprocess
import time
import uuid

import fixtures
import requests
from testtools import content

from tests import base
from tests.functional import fixtures as fx

CONNECTOR = {'host': 'compute-kt', 'initiator': 'iqn.2026-11.test:kt'}
VERSION = {'OpenStack-API-Version': 'volume 3.44'}


class KeystoneTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.keystone = fx.class_fixture(self, fx.Keystone)
        self.keystone.attach_logs_on_failure(self)


class TestServiceToken(KeystoneTestCase):
    """cinder-ma-all with auth_strategy = keystone."""

    def setUp(self):
        super().setUp()
        ks = self.keystone
        cls = type(self)
        if '_ids' not in cls.__dict__:
            project_a = ks.create_project()
            project_b = ks.create_project()
            cls._ids = {
                'a': project_a, 'b': project_b,
                'alice': ks.create_user(project_a),
                'bob': ks.create_user(project_b),
                # glance's own token: a *user* token with a role named
                # "service" in the project.
                'glance': ks.create_user(project_a, roles=(
                    'member', 'reader', 'service')),
                'carol': ks.create_user(project_a, roles=('reader',)),
                # A user whose only role in the project is "service".
                'svc': ks.create_user(project_a, roles=('service',)),
                'nova': ks.service_user(),
                'cinder': ks.service_user(),
            }
        self.ids = cls._ids
        self.server = fx.class_fixture(self, lambda: fx.AllInOne(config={
            'DEFAULT': {'auth_strategy': 'keystone'},
            'keystone_authtoken': ks.authtoken_config(self.ids['cinder'])}),
            key='keystone-aio')
        self.server.attach_logs_on_failure(self)

    def url(self, project, path):
        return '%s/%s' % (self.server.project_url(project), path)

    def call(self, session, method, url, body=None):
        return session.request(url, method, json=body, raise_exc=False,
                               headers=VERSION, timeout=fx.HTTP_TIMEOUT)

    def user(self, name):
        return self.keystone.session(*self.ids[name])

    def service(self, name):
        """The nova service acting with ``name``'s user token."""
        return self.keystone.service_session(self.ids[name],
                                             self.ids['nova'])

    def available_volume(self):
        alice = self.user('alice')
        response = self.call(alice, 'POST', self.url(self.ids['a'],
                                                     'volumes'),
                             {'volume': {'size': 1}})
        self.assertEqual(202, response.status_code, response.text)
        volume_id = response.json()['volume']['id']
        url = self.url(self.ids['a'], 'volumes/%s' % volume_id)
        fx.wait_for(lambda: self.call(alice, 'GET', url).json()['volume'][
            'status'] == 'available', 'volume available',
            processes=self.server.processes())
        return volume_id

    def connected_attachment(self):
        """An attachment made and completed by the service for alice."""
        volume_id = self.available_volume()
        nova = self.service('alice')
        response = self.call(nova, 'POST', self.url(self.ids['a'],
                                                    'attachments'),
                             {'attachment': {
                                 'volume_uuid': volume_id,
                                 'instance_uuid': str(uuid.uuid4()),
                                 'connector': CONNECTOR}})
        self.assertEqual(200, response.status_code, response.text)
        attachment_id = response.json()['attachment']['id']
        response = self.call(
            nova, 'POST', self.url(self.ids['a'], 'attachments/%s/action'
                                   % attachment_id), {'os-complete': {}})
        self.assertEqual(204, response.status_code, response.text)
        return volume_id, attachment_id

    def test_user_role_named_service_is_an_ordinary_user(self):
        _volume, attachment_id = self.connected_attachment()
        url = self.url(self.ids['a'], 'attachments/%s' % attachment_id)
        response = self.call(self.user('glance'), 'DELETE', url)
        self.assertEqual(409, response.status_code, response.text)
        self.assertIn('conflictingRequest', response.json())
        # The service token lifts the 409.
        response = self.call(self.service('alice'), 'DELETE', url)
        self.assertEqual(200, response.status_code, response.text)

    def echoed(self, name):
        """``name``'s own token sent as both the user and the service
        token."""
        return self.keystone.service_session(self.ids[name],
                                             self.ids[name])

    def test_service_token_grants_no_rights(self):
        volume_id, attachment_id = self.connected_attachment()
        a = self.ids['a']
        url = self.url(a, 'attachments/%s' % attachment_id)
        create = ('POST', self.url(a, 'attachments'), {'attachment': {
            'volume_uuid': volume_id, 'instance_uuid': str(uuid.uuid4())}})
        writes = (create,
                  ('PUT', url, {'attachment': {'connector': dict(
                      CONNECTOR, host='elsewhere')}}),
                  ('POST', url + '/action', {'os-complete': {}}),
                  ('DELETE', url, None))
        # A reader through nova's service token: a reader.
        reader_via_nova = self.service('carol')
        for method, path, body in writes:
            response = self.call(reader_via_nova, method, path, body)
            self.assertEqual(403, response.status_code,
                             '%s %s: %s' % (method, path, response.text))
            self.assertIn('forbidden', response.json())
        self.assertEqual(200, self.call(reader_via_nova, 'GET',
                                        url).status_code)
        # A user whose only role is "service" echoing its token: nothing.
        echoed = self.echoed('svc')
        for method, path, body in writes + (('GET', url, None),):
            response = self.call(echoed, method, path, body)
            self.assertEqual(403, response.status_code,
                             '%s %s: %s' % (method, path, response.text))
        # A member through nova's service token: the connected
        # attachment goes.
        response = self.call(self.service('alice'), 'DELETE', url)
        self.assertEqual(200, response.status_code, response.text)
        response = self.call(self.user('alice'), 'GET', url)
        self.assertEqual(404, response.status_code, response.text)

    def test_volume_types_need_a_reader(self):
        a = self.ids['a']
        for name in ('alice', 'carol'):
            response = self.call(self.user(name), 'GET',
                                 self.url(a, 'types'))
            self.assertEqual(200, response.status_code, response.text)
            self.assertTrue(response.json()['volume_types'])
        type_id = response.json()['volume_types'][0]['id']
        for session in (self.user('svc'), self.echoed('svc')):
            for path in ('types', 'types/%s' % type_id,
                         'types/%s/extra_specs' % type_id):
                response = self.call(session, 'GET', self.url(a, path))
                self.assertEqual(403, response.status_code,
                                 '%s: %s' % (path, response.text))

    def test_service_stays_in_its_user_tokens_project(self):
        volume_id, attachment_id = self.connected_attachment()
        b = self.ids['b']
        nova_for_bob = self.service('bob')
        url = self.url(b, 'attachments/%s' % attachment_id)
        for method, path, body in (
                ('GET', url, None),
                ('PUT', url, {'attachment': {'connector': dict(
                    CONNECTOR, host='elsewhere')}}),
                ('POST', url + '/action', {'os-complete': {}}),
                ('DELETE', url, None),
                ('GET', self.url(b, 'volumes/%s' % volume_id), None)):
            response = self.call(nova_for_bob, method, path, body)
            self.assertEqual(404, response.status_code,
                             '%s %s: %s' % (method, path, response.text))
            self.assertIn('itemNotFound', response.json())
        listed = self.call(nova_for_bob, 'GET', self.url(
            b, 'attachments/detail')).json()['attachments']
        self.assertEqual([], listed)
        # Untouched, for its own project's service.
        shown = self.call(self.service('alice'), 'GET', self.url(
            self.ids['a'], 'attachments/%s' % attachment_id)).json()
        self.assertEqual('attached', shown['attachment']['status'])

    def test_tokens_are_checked(self):
        response = self.call(self.user('alice'), 'GET',
                             self.url(self.ids['b'], 'volumes'))
        self.assertEqual(400, response.status_code)  # another project's URL
        self.assertIn('the URL names project %s but the token is scoped to '
                      'project %s' % (self.ids['b'], self.ids['a']),
                      response.json()['badRequest']['message'])
        response = requests.get(self.url(self.ids['a'], 'volumes'),
                                headers={'X-Auth-Token': 'forged'},
                                timeout=fx.HTTP_TIMEOUT)
        self.assertEqual(401, response.status_code)
        self.assertIn('unauthorized', response.json())


class TestSafeDefaults(KeystoneTestCase):

    def test_keystone_without_a_section_refuses_to_start(self):
        directory = self.useFixture(fixtures.TempDir()).path
        config = fx.write_config(os.path.join(directory, 'api.conf'), {
            'DEFAULT': {'state_path': directory,
                        'transport_url': 'rabbit://guest:guest@127.0.0.1:1/'},
            'api': {'host_ip': '127.0.0.1', 'port': fx.free_port()}})
        result = subprocess.run(
            fx.command('cinder-ma-api') + ['--config-file', config],
            cwd=directory, env=fx.environ(), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=fx.START_TIMEOUT,
            check=False)
        self.assertEqual(1, result.returncode, result.stderr)
        self.assertIn('auth_strategy = keystone needs [keystone_authtoken] '
                      'www_authenticate_uri, auth_type', result.stderr)

    def test_unreachable_keystone_is_a_503_fault(self):
        ks = self.keystone
        config = ks.authtoken_config(ks.service_user())
        closed = 'http://127.0.0.1:%d/v3' % fx.free_port()
        config.update(auth_url=closed, www_authenticate_uri=closed,
                      http_connect_timeout=2)
        server = self.useFixture(fx.AllInOne(config={
            'DEFAULT': {'auth_strategy': 'keystone'},
            'keystone_authtoken': config}))
        token = ks.admin_session().get_token()
        started = time.monotonic()
        response = requests.get(server.project_url('x') + '/volumes',
                                headers={'X-Auth-Token': token},
                                timeout=fx.HTTP_TIMEOUT)
        self.addDetail('seconds', content.text_content(
            '%.1f' % (time.monotonic() - started)))
        self.assertEqual(503, response.status_code, response.text)
        self.assertEqual(503, response.json()['serviceUnavailable']['code'])
