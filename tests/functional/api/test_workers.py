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

"""API processes racing over real HTTP: ``cinder-ma-all`` with several
workers (one host), and two ``cinder-ma-api`` "hosts" of one deployment.

Each worker is a process with its own database connections and its own
in-process manager; these tests race requests that land on different
workers (or API hosts) and check that the reservation rules, the records
and the storage backend's connections hold.
"""

import concurrent.futures
import json
import threading
import time
import uuid

import requests

from tests import base
from tests import fixtures as cm_fixtures
from tests.functional import fixtures as func_fixtures

PROJECT = 'racers'
HEADERS = {
    'X-Auth-Token': 'admin:%s' % PROJECT,
    'X-Roles': 'admin,member,reader',
    'X-Service-Roles': 'service',
    'Content-Type': 'application/json',
    'Accept': 'application/json',
    'OpenStack-API-Version': 'volume 3.54',
}
RACERS = 32


class _RacesBase(base.BaseTestCase):
    """Requests to ``self.server`` (or to one of ``endpoints()``)."""

    server = None

    def endpoints(self):
        """The v3 endpoints to spread racing requests over."""
        return [self.server.endpoint]

    def request(self, method, path, body=None, session=requests,
                endpoint=None):
        response = session.request(
            method, '%s/%s%s' % (endpoint or self.server.endpoint, PROJECT,
                                 path),
            data=json.dumps(body) if body is not None else None,
            headers=HEADERS, timeout=func_fixtures.HTTP_TIMEOUT)
        return response.status_code, (response.json() if response.content
                                      else None)

    def create_shared_type(self):
        code, created = self.request('POST', '/types', {'volume_type': {
            'name': 'shared-%s' % uuid.uuid4().hex[:8],
            'extra_specs': {'multiattach': '<is> True'}}})
        self.assertEqual(200, code, created)
        return created['volume_type']['name']

    def create_volume(self, volume_type=None):
        body = {'size': 1}
        if volume_type:
            body['volume_type'] = volume_type
        code, created = self.request('POST', '/volumes', {'volume': body})
        self.assertEqual(202, code, created)
        volume_id = created['volume']['id']
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            code, shown = self.request('GET', '/volumes/%s' % volume_id)
            if shown['volume']['status'] == 'available':
                return volume_id
            time.sleep(0.05)
        self.fail('volume %s is %s' % (volume_id, shown['volume']['status']))


class LastUsersRaceMixin:
    """Issue 9.4 across processes: concurrent deletes of the last two
    attachments that share one host connection, each sent to another API
    process, end the connection on the storage backend exactly once, as
    the recording driver of the storage manager counts (never leaked by
    both counting the other, never ended twice). The same race between
    the threads of one process:
    tests/unit/manager/flows/test_disconnect_attachment.py
    (ConnectionRaceTestCase).

    Needs ``self.drivers`` (a :class:`func_fixtures.TestDrivers` whose
    environment the storage manager runs in, with the ``recording_file``
    driver).
    """

    ROUNDS = 5

    def connected_attachment(self, volume_id, connector):
        code, created = self.request('POST', '/attachments', {
            'attachment': {'volume_uuid': volume_id,
                           'instance_uuid': str(uuid.uuid4()),
                           'connector': connector}})
        self.assertEqual(200, code, created)
        attachment_id = created['attachment']['id']
        code, body = self.request(
            'POST', '/attachments/%s/action' % attachment_id,
            {'os-complete': None})
        self.assertEqual(204, code, body)
        return attachment_id

    def delete_at_once(self, attachment_ids):
        """DELETE the attachments at the same moment, each through its
        own connection to the next endpoint in turn."""
        endpoints = self.endpoints()
        barrier = threading.Barrier(len(attachment_ids))

        def delete(index):
            with requests.Session() as session:
                barrier.wait(30)
                return self.request(
                    'DELETE', '/attachments/%s' % attachment_ids[index],
                    session=session,
                    endpoint=endpoints[index % len(endpoints)])

        with concurrent.futures.ThreadPoolExecutor(len(attachment_ids)) \
                as pool:
            return list(pool.map(delete, range(len(attachment_ids))))

    def test_concurrent_deletes_of_the_last_users_end_it_once(self):
        volume_type = self.create_shared_type()
        for round_ in range(self.ROUNDS):
            volume_id = self.create_volume(volume_type)
            host = 'last-users-%s' % uuid.uuid4().hex[:8]
            connector = {'host': host, 'initiator': 'iqn.2026-11.%s' % host}
            attachments = [self.connected_attachment(volume_id, connector)
                           for _ in range(2)]
            results = self.delete_at_once(attachments)
            self.assertEqual([200, 200], [code for code, _ in results],
                             results)
            calls = [(c['call'], c['host']) for c in self.drivers.calls(
                volume_id=volume_id)]
            self.assertEqual(
                1, calls.count(('terminate_connection', host)),
                'round %d: %s' % (round_, calls))
            # Ended last: nothing connected it again.
            self.assertEqual(('terminate_connection', host), calls[-1])
            code, shown = self.request('GET', '/volumes/%s' % volume_id)
            self.assertEqual('available', shown['volume']['status'])


class WorkersTestCase(LastUsersRaceMixin, _RacesBase):
    """cinder-ma-all with three workers: one host, its lock files."""

    def setUp(self):
        super().setUp()
        self.drivers = func_fixtures.class_fixture(
            self, func_fixtures.TestDrivers, key='drivers')
        self.server = func_fixtures.class_fixture(
            self, lambda: func_fixtures.AllInOne(
                {'api': {'workers': 3},
                 'file': {'volume_driver': 'recording_file'}},
                env=self.drivers.env),
            key='all-in-one')
        self.server.attach_logs_on_failure(self)

    def race_attachments(self, volume_id):
        def attach(_):
            # A connection of its own per racer: the kernel hands them to
            # the workers in turn.
            with requests.Session() as session:
                return self.request('POST', '/attachments', {'attachment': {
                    'volume_uuid': volume_id,
                    'instance_uuid': str(uuid.uuid4())}}, session=session)

        with concurrent.futures.ThreadPoolExecutor(RACERS) as pool:
            return list(pool.map(attach, range(RACERS)))

    def test_three_workers(self):
        self.assertEqual(3, len(cm_fixtures.child_pids(
            self.server.process.proc.pid)))

    def test_one_winner_on_a_volume_that_is_not_shareable(self):
        volume_id = self.create_volume()
        results = self.race_attachments(volume_id)
        codes = sorted(code for code, _body in results)
        self.assertEqual([200] + [400] * (RACERS - 1), codes, results)
        refusal = next(body for code, body in results if code == 400)
        self.assertIn('is not multiattach and is already held by',
                      refusal['badRequest']['message'])
        code, listed = self.request('GET', '/attachments?volume_id=%s' %
                                    volume_id)
        self.assertEqual(1, len(listed['attachments']))
        code, shown = self.request('GET', '/volumes/%s' % volume_id)
        # A reservation only (no connector): Cinder's "reserved".
        self.assertEqual('reserved', shown['volume']['status'])

    def test_every_racer_wins_on_a_shareable_volume(self):
        volume_id = self.create_volume(self.create_shared_type())
        results = self.race_attachments(volume_id)
        self.assertEqual([200] * RACERS, [code for code, _ in results],
                         results)
        code, listed = self.request('GET', '/attachments?volume_id=%s' %
                                    volume_id)
        self.assertEqual(RACERS, len(listed['attachments']))
        # Connect and complete them all, racing again, then detach them.
        connector = {'host': 'racer-host', 'initiator': 'iqn.racer'}

        def cycle(attachment):
            with requests.Session() as session:
                path = '/attachments/%s' % attachment['attachment']['id']
                update = self.request('PUT', path, {'attachment': {
                    'connector': connector}}, session=session)[0]
                complete = self.request('POST', path + '/action',
                                        {'os-complete': None},
                                        session=session)[0]
                delete = self.request('DELETE', path, session=session)[0]
                return update, complete, delete

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            outcomes = list(pool.map(cycle, [body for _, body in results]))
        self.assertEqual([(200, 204, 200)] * RACERS, outcomes)
        code, shown = self.request('GET', '/volumes/%s' % volume_id)
        self.assertEqual('available', shown['volume']['status'])
        self.assertEqual([], shown['volume']['attachments'])


class TwoAPIHostsTestCase(LastUsersRaceMixin, _RacesBase):
    """Two cinder-ma-api processes as on two hosts (state directories,
    so lock files, of their own), one PostgreSQL database, RabbitMQ, and
    the storage manager with the recording driver; the connection locks
    on a Redis ``[coordination] backend_url`` (a namespace of the test's
    own). Without that shared backend, each API host would only lock
    against itself (tests/functional/test_coordination.py shows the
    difference on the lock alone; this race, run here without it, leaked
    the connection within ten rounds)."""

    ROUNDS = 8

    def setUp(self):
        super().setUp()
        admin_url = func_fixtures.require_deployment_services(self)
        redis = self.useFixture(cm_fixtures.RedisNamespace(self))
        self.drivers = self.useFixture(func_fixtures.TestDrivers())
        self.server = self.useFixture(func_fixtures.Deployment(
            admin_url, env=self.drivers.env, api_hosts=2, config={
                'file': {'volume_driver': 'recording_file'},
                'coordination': {'backend_url': redis.url}}))
        self.server.attach_logs_on_failure(self)

    def endpoints(self):
        return [url + '/v3' for url in self.server.api_urls]
