"""``cinder-ma-all`` with several API workers, over real HTTP.

Each worker is a process with its own database connections and its own
in-process manager; these tests race requests that land on different
workers and check that the reservation rules and the records hold.
"""

import concurrent.futures
import json
import time
import uuid

import requests
import testtools

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


class WorkersTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.server = func_fixtures.class_fixture(
            self, lambda: func_fixtures.AllInOne({'api': {'workers': 3}}),
            key='all-in-one')
        self.server.attach_logs_on_failure(self)

    def request(self, method, path, body=None, session=requests):
        response = session.request(
            method, '%s/%s%s' % (self.server.endpoint, PROJECT, path),
            data=json.dumps(body) if body is not None else None,
            headers=HEADERS, timeout=func_fixtures.HTTP_TIMEOUT)
        return response.status_code, (response.json() if response.content
                                      else None)

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
        self.assertIn('is not multiattach and is already attached',
                      refusal['badRequest']['message'])
        code, listed = self.request('GET', '/attachments?volume_id=%s' %
                                    volume_id)
        self.assertEqual(1, len(listed['attachments']))
        code, shown = self.request('GET', '/volumes/%s' % volume_id)
        # A reservation only (no connector): Cinder's "reserved".
        self.assertEqual('reserved', shown['volume']['status'])

    def test_every_racer_wins_on_a_shareable_volume(self):
        code, created = self.request('POST', '/types', {'volume_type': {
            'name': 'shared-%s' % uuid.uuid4().hex[:8],
            'extra_specs': {'multiattach': '<is> True'}}})
        self.assertEqual(200, code, created)
        volume_id = self.create_volume(created['volume_type']['name'])
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
