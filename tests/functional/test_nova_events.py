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

"""Nova told of an extend: ``cinder-ma-api`` and the manager of the
storage node as separate processes over RabbitMQ and PostgreSQL, with
``[nova]`` pointing at a local HTTP server standing for Keystone's token
API and Nova's ``os-server-external-events``
(:class:`tests.nova_fixtures.LocalNova`).

When it gets the event, the stand-in does what Nova's compute does with
it: it reads the volume back from cinder_ma's API (the size it resizes
the instance's disk to), and it asks for ``os-extend_volume_completion``
(3.71) as a Nova that implemented it would. The real Nova 34 (which reads
the size and does not call the completion) runs in the ``openstack``
gate, tests/openstack.

Skipped when PostgreSQL or RabbitMQ is down, failed instead under
``CINDER_MA_REQUIRE_SERVICES=1``.
"""

import time
import uuid

import requests
import sqlalchemy as sa

from tests import base
from tests.functional import fixtures as func_fixtures
from tests import nova_fixtures

WAIT = 60
FAILURE_REASON = 'cinder-ma-recovery:failure_reason'
#: [nova] timeout of the manager, seconds.
NOVA_TIMEOUT = 2
CONNECTOR = {'host': 'compute-nova', 'initiator': 'iqn.2026-11.test:nova'}


class NovaEventsTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        admin_url = func_fixtures.require_deployment_services(self)
        self.seen = []
        self.nova = self.useFixture(nova_fixtures.LocalNova(self.answer))
        self.deployment = self.useFixture(func_fixtures.Deployment(
            admin_url, config={'nova': self.nova.options(
                timeout=NOVA_TIMEOUT)}))
        self.deployment.attach_logs_on_failure(self)
        self.refused = set()
        self.engine = sa.create_engine(self.deployment.database.url)
        self.addCleanup(self.engine.dispose)

    def claim_of(self, volume_id):
        """The claim of a manager's flow on the volume's row, if any."""
        with self.engine.connect() as conn:
            return conn.execute(sa.text(
                'SELECT claimed_by FROM volumes WHERE id = :id'),
                {'id': volume_id}).scalar()

    def request(self, method, path, body=None, status=None,
                version='3.71'):
        response = requests.request(
            method, self.deployment.project_url(
                func_fixtures.ADMIN_PROJECT) + path, json=body,
            headers={'X-Auth-Token': func_fixtures.ADMIN_TOKEN,
                     'OpenStack-API-Version': 'volume ' + version,
                     'Cinder-MA-Extensions': 'cinder-ma-recovery'},
            timeout=func_fixtures.HTTP_TIMEOUT)
        if status is not None:
            self.assertEqual(status, response.status_code, response.text)
        return response

    def answer(self, events, headers):
        """Nova's API and compute: each instance reads the volume (and
        asks for the 3.71 completion); the servers of ``refused`` are not
        found (207)."""
        answered = []
        for event in events:
            try:
                volume = self.request('GET', '/volumes/' + event['tag'],
                                      status=200).json()['volume']
                completion = self.request(
                    'POST', '/volumes/%s/action' % event['tag'],
                    {'os-extend_volume_completion': {'error': False}})
            except requests.RequestException:
                # A request held past the test's end.
                return 503, {}
            self.seen.append((event['server_uuid'], volume['size'],
                              volume['status'], completion.status_code,
                              completion.text))
            code = 404 if event['server_uuid'] in self.refused else 200
            answered.append(dict(event, code=code, status=(
                'failed' if code != 200 else 'completed')))
        status = 200 if all(e['code'] == 200 for e in answered) else 207
        return status, {'events': answered}

    def wait(self, path, key, done):
        deadline = time.monotonic() + WAIT
        while True:
            resource = self.request('GET', path, status=200).json()[key]
            if done(resource) or time.monotonic() > deadline:
                return resource
            time.sleep(0.1)

    def eventually(self, read, done):
        """``read()`` once ``done`` of it (or after WAIT seconds)."""
        deadline = time.monotonic() + WAIT
        while True:
            value = read()
            if done(value) or time.monotonic() > deadline:
                return value
            time.sleep(0.1)

    def nova_volume(self):
        """A shareable volume attached to two instances by Nova (its
        attachments API calls: create with a connector, complete)."""
        vtype = self.request('POST', '/types', {'volume_type': {
            'name': func_fixtures.unique('shared'),
            'extra_specs': {'multiattach': '<is> True'}}},
            status=200).json()['volume_type']
        volume = self.request('POST', '/volumes', {'volume': {
            'size': 1, 'volume_type': vtype['id']}},
            status=202).json()['volume']
        volume = self.wait('/volumes/' + volume['id'], 'volume',
                           lambda v: v['status'] != 'creating')
        self.assertEqual('available', volume['status'])
        servers = {}
        for name in ('a', 'b'):
            server = str(uuid.uuid4())
            attachment = self.request('POST', '/attachments', {
                'attachment': {'volume_uuid': volume['id'],
                               'instance_uuid': server,
                               'connector': CONNECTOR}},
                status=200).json()['attachment']
            self.request('POST', '/attachments/%s/action' % attachment['id'],
                         {'os-complete': {}}, status=204)
            servers[name] = (server, attachment['id'])
        return volume, servers

    def extend(self, volume, size, requests):
        """Extend, then wait for Nova's ``requests``-th events request and
        for the manager's flow to end (its claim on the volume given up):
        Nova is told once the volume has its new size and status, as
        Cinder does."""
        self.request('POST', '/volumes/%s/action' % volume['id'],
                     {'os-extend': {'new_size': size}}, status=202)
        self.eventually(lambda: len(self.nova.events_requests()),
                        lambda n: n >= requests)
        self.eventually(lambda: self.claim_of(volume['id']),
                        lambda claim: claim is None)
        return self.request('GET', '/volumes/' + volume['id'],
                            status=200).json()['volume']

    def reason(self, attachment_id):
        return self.request('GET', '/attachments/' + attachment_id,
                            status=200).json()['attachment'][FAILURE_REASON]

    def test_nova_told_refusing_and_not_answering(self):
        volume, servers = self.nova_volume()
        (server_a, att_a), (server_b, att_b) = servers['a'], servers['b']

        # Nova is told once the volume has its new size and is in-use
        # again: each instance reads 2 GiB. Nothing waits for a
        # completion, which is a 400 as in Cinder.
        extended = self.extend(volume, 2, requests=1)
        self.assertEqual((2, 'in-use', None),
                         (extended['size'], extended['status'],
                          extended[FAILURE_REASON]))
        [(headers, body)] = self.nova.events_requests()
        headers = {name.lower(): value for name, value in headers.items()}
        self.assertEqual('compute 2.51', headers['openstack-api-version'])
        self.assertEqual(nova_fixtures.TOKEN, headers['x-auth-token'])
        self.assertEqual(
            sorted([{'name': 'volume-extended', 'server_uuid': server,
                     'tag': volume['id']} for server in (server_a,
                                                         server_b)],
                   key=lambda e: e['server_uuid']),
            body['events'])
        self.assertEqual({server_a, server_b},
                         {seen[0] for seen in self.seen})
        for _server, size, status, code, text in self.seen:
            self.assertEqual((2, 'in-use', 400), (size, status, code))
            self.assertIn('is not being extended', text)
        self.assertEqual([None, None], [self.reason(att_a),
                                        self.reason(att_b)])

        # Nova does not find one of the servers: the extend stands, and
        # that attachment and the volume say so.
        self.refused = {server_b}
        extended = self.extend(volume, 3, requests=2)
        self.assertEqual((3, 'in-use'),
                         (extended['size'], extended['status']))
        self.assertIsNone(self.reason(att_a))
        self.assertIn('extend to 3 GiB not told to Nova for instance %s: '
                      'Nova refused the volume-extended event: code 404'
                      % server_b, self.reason(att_b))
        self.assertIn(att_b, extended[FAILURE_REASON])

        # Nova does not answer: the extend ends after [nova] timeout, and
        # both attachments say so; the next extend Nova hears clears it.
        self.refused = set()
        self.nova.delay = NOVA_TIMEOUT + 4
        started = time.monotonic()
        self.request('POST', '/volumes/%s/action' % volume['id'],
                     {'os-extend': {'new_size': 4}}, status=202)
        self.eventually(lambda: len(self.nova.events_requests()),
                        lambda n: n >= 3)
        self.eventually(lambda: self.claim_of(volume['id']),
                        lambda claim: claim is None)
        # Cut short by the timeout (with room for a loaded machine).
        self.assertLess(time.monotonic() - started, NOVA_TIMEOUT + 4)
        extended = self.request('GET', '/volumes/' + volume['id'],
                                status=200).json()['volume']
        self.assertEqual((4, 'in-use'),
                         (extended['size'], extended['status']))
        for att in (att_a, att_b):
            self.assertIn('extend to 4 GiB not told to Nova', self.reason(att))
            self.assertIn('timed out', self.reason(att))
        self.nova.delay = 0
        # (The 3rd request, held, counts: this is the 4th.)
        extended = self.extend(volume, 5, requests=4)
        self.assertEqual((5, 'in-use', None),
                         (extended['size'], extended['status'],
                          extended[FAILURE_REASON]))
        self.assertEqual([None, None], [self.reason(att_a),
                                        self.reason(att_b)])
