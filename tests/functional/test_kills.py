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

"""Proof by killing, continued (see :mod:`tests.functional.test_faults`):
an API worker SIGKILLed with the claim of its request written and not yet
handed over to a manager, and the manager of an ``nbd`` backend
SIGKILLed at every step of the fence, reconnect and promote flows.

The processes are real (``cinder-ma-api`` with two forked workers,
``cinder-ma-manager``) on PostgreSQL and RabbitMQ, held where they are
killed by the test-only hold points of :mod:`cinder_ma.holds`. Skipped
when those services (or, for the nbd backend, nbdkit, qemu-io and
nbdinfo) are missing, failed instead under
``CINDER_MA_REQUIRE_SERVICES=1``.
"""

import os
import signal
import threading
import uuid

import fixtures
import requests

from cinder_ma import holds
from tests.functional import fixtures as func_fixtures
from tests.functional import test_faults

CONSUMER = test_faults.CONSUMER


def _config(**sections):
    """FAULT_CONFIG (short leases, a reconcile pass a second) with a
    short RPC timeout (a request whose manager was killed mid-call is
    answered 503 within seconds), plus ``sections``."""
    config = {section: dict(values)
              for section, values in test_faults.FAULT_CONFIG.items()}
    config['DEFAULT']['rpc_response_timeout'] = 5
    for section, values in sections.items():
        config.setdefault(section, {}).update(values)
    return config


class _KillBase(test_faults._FaultBase):

    def setUp(self):
        super().setUp()
        self.holds = self.useFixture(fixtures.TempDir()).path
        self.spec_file = os.path.join(self.holds, 'spec')
        self.env = func_fixtures.environ(**{holds.ENV: self.spec_file})

    def hold_at(self, directory, points):
        """Hold the processes at ``points`` ({point: index}) from now on;
        returns the markers they write there."""
        os.makedirs(directory, exist_ok=True)
        with open(self.spec_file, 'w') as f:
            f.write('%s;%s' % (directory, ','.join(
                '%s:%d' % item for item in sorted(points.items()))))
        return ['held-%s-%d' % item for item in sorted(points.items())]

    def in_thread(self, answers, key, method, path, body=None, **kwargs):
        """``request`` in a thread, its status (or exception) into
        ``answers[key]``."""
        def run():
            try:
                answers[key] = self.request(method, path, body,
                                            **kwargs).status_code
            except requests.RequestException as exc:
                answers[key] = exc
        thread = threading.Thread(target=run)
        thread.start()
        return thread

    def connect(self, volume_id, connector=CONSUMER, mode=None):
        """A consumer's attachment, connected and completed; its id."""
        attachment = {'volume_uuid': volume_id,
                      'instance_uuid': str(uuid.uuid4()),
                      'connector': connector}
        if mode:
            attachment['mode'] = mode
        response = self.request('POST', '/attachments',
                                {'attachment': attachment}, service=True)
        self.assertEqual(200, response.status_code, response.text)
        attachment_id = response.json()['attachment']['id']
        self.assertEqual(204, self.request(
            'POST', '/attachments/%s/action' % attachment_id,
            {'os-complete': None}, service=True).status_code)
        return attachment_id

    def attachments_of(self, volume_id):
        response = self.request('GET', '/attachments?volume_id=' + volume_id)
        self.assertEqual(200, response.status_code, response.text)
        return [a['id'] for a in response.json()['attachments']]


class APIWorkerKilledTestCase(_KillBase):
    """``cinder-ma-api`` with two workers beside a manager: the worker
    serving a one-step create (``POST /attachments`` with a connector)
    and a delete of a consumer's attachment is SIGKILLed where each has
    written its claim on the attachment (the reservation with its connect
    pending; 'detaching') and not yet asked the manager of the volume's
    backend to take it over. The API runs no flow: its only state is that
    claim, which expires; the reconcile loop of the manager then releases
    the reservation (whose client never learned of it) and finishes the
    delete. The API's launcher replaces the worker."""

    def setUp(self):
        super().setUp()
        admin_url = func_fixtures.require_deployment_services(self)
        self.server = self.useFixture(func_fixtures.Deployment(
            admin_url, config=_config(api={'workers': 2}), env=self.env))
        self.server.attach_logs_on_failure(self)

    def test_killed_with_the_claim_written(self):
        created, deleted = self.create_volume(), self.create_volume()
        for volume_id in (created, deleted):
            self.assertEqual('available', self.settled(
                self.volume, volume_id)['status'])
        attachment_id = self.connect(deleted)
        markers = self.hold_at(self.holds, {'api_create_attachment': 0,
                                            'api_delete_attachment': 0})
        answers = {}
        threads = [
            self.in_thread(answers, 'create', 'POST', '/attachments',
                           {'attachment': {
                               'volume_uuid': created,
                               'instance_uuid': str(uuid.uuid4()),
                               'connector': CONSUMER}}, service=True),
            self.in_thread(answers, 'delete', 'DELETE',
                           '/attachments/' + attachment_id, service=True)]
        pids = self.wait_for_holds(self.holds, markers, [self.server.api])
        # Workers, not the launcher.
        self.assertNotIn(self.server.api.proc.pid, pids)
        # The claims are written: the reservation exists, the delete is
        # recorded.
        self.assertEqual(1, len(self.attachments_of(created)))
        self.assertEqual('detaching',
                         self.attachment(attachment_id)['status'])
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        for thread in threads:
            thread.join()
        # Neither was answered: the connection dropped with the worker.
        for key in ('create', 'delete'):
            self.assertIsInstance(answers[key], requests.RequestException,
                                  answers)
        os.unlink(self.spec_file)
        # Released and finished by the manager once the claims expired.
        self.assertIsNone(self.settled(self.attachment, attachment_id))
        for volume_id in (created, deleted):
            self.assertEqual('available', self.settled(
                self.volume, volume_id)['status'])
        self.assertEqual([], self.attachments_of(created))
        self.assertTrue(self.server.api.running())
        # The API serves on (a replaced worker, the other one), and the
        # volumes take attachments again.
        self.detach_consumer(self.connect(created))
        self.audit()

    def detach_consumer(self, attachment_id):
        self.assertEqual(200, self.request(
            'DELETE', '/attachments/' + attachment_id,
            service=True).status_code)
        self.assertIsNone(self.settled(self.attachment, attachment_id))
