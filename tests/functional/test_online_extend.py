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

"""Online extend of a shared volume across processes: ``cinder-ma-api``,
the manager of the storage node and the managers of two compute hosts
(``[hypervisor] driver = fake``) as separate processes, over RabbitMQ and
PostgreSQL. The manager of the backend calls the compute managers over
the broker (RPC 1.6); a compute manager that is killed is reported at
once (down), one that is frozen after the RPC timeout.

Skipped when PostgreSQL or RabbitMQ is down, failed instead under
``CINDER_MA_REQUIRE_SERVICES=1``.
"""

import configparser
import os
import signal
import time
import uuid

import kombu
import requests
import testtools

from tests import base
from tests import fixtures as cm_fixtures
from tests.functional import fixtures as func_fixtures

GIB = 1024 ** 3
WAIT = 60
#: [DEFAULT] rpc_response_timeout of these processes.
RPC_TIMEOUT = 5
#: [manager] service_down_time of these processes.
DOWN_TIME = 8
FAILURE_REASON = 'cinder-ma-recovery:failure_reason'


class OnlineExtendAcrossHostsTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        admin_url = func_fixtures.require_deployment_services(self)
        # A frozen manager still looks up for DOWN_TIME seconds: time for
        # the call to be sent to it and to time out.
        self.deployment = self.useFixture(func_fixtures.Deployment(
            admin_url, service_down_time=DOWN_TIME, config={'DEFAULT': {
                'rpc_response_timeout': RPC_TIMEOUT}}))
        self.deployment.attach_logs_on_failure(self)
        self.computes = {}
        for name in ('a', 'b'):
            host = func_fixtures.unique('compute-' + name)
            self.computes[name] = (host, self.start_compute(host))
        self.addOnException(self._compute_logs)
        for host, _process in self.computes.values():
            func_fixtures.wait_for(
                lambda h=host: self.deployment.service_states().get(
                    ('cinder-ma-manager', h)) == 'up',
                'compute manager %s up' % host)

    def _compute_logs(self, exc_info):
        for host, process in self.computes.values():
            self.addDetail(host, testtools.content.text_content(
                process.describe()))

    def start_compute(self, host):
        """A manager running only the fake hypervisor driver, as ``host``,
        on the deployment's database and broker."""
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(self.deployment.config_file)
        sections = {name: dict(parser[name]) for name in parser.sections()}
        defaults = dict(parser.defaults())
        defaults.update(host=host, enabled_backends='',
                        state_path=os.path.join(self.deployment.directory,
                                                host))
        sections = dict({'DEFAULT': defaults}, **sections)
        sections.pop(self.deployment.BACKEND, None)
        sections['hypervisor'] = {'driver': 'fake'}
        path = func_fixtures.write_config(
            os.path.join(self.deployment.directory, host + '.conf'),
            sections)
        self.addCleanup(self._delete_queue, host)
        return self.useFixture(func_fixtures.Process(
            host, func_fixtures.command('cinder-ma-manager') + [
                '--config-file', path], self.deployment.directory))

    def _delete_queue(self, host):
        url = cm_fixtures.RABBIT_URL.replace('rabbit://', 'amqp://', 1)
        with kombu.Connection(url, connect_timeout=5) as conn:
            conn.channel().queue_delete('%s.%s' % (
                func_fixtures.MANAGER_TOPIC, host))

    def request(self, method, path, body=None, status=None):
        response = requests.request(
            method, self.deployment.project_url(
                func_fixtures.ADMIN_PROJECT) + path, json=body,
            headers={'X-Auth-Token': func_fixtures.ADMIN_TOKEN,
                     'OpenStack-API-Version': 'volume 3.54',
                     'Cinder-MA-Extensions': 'cinder-ma-recovery'},
            timeout=func_fixtures.HTTP_TIMEOUT)
        if status is not None:
            self.assertEqual(status, response.status_code, response.text)
        return response

    def wait(self, path, key, done):
        """The resource at ``path`` once ``done(resource)``."""
        deadline = time.monotonic() + WAIT
        while True:
            resource = self.request('GET', path, status=200).json()[key]
            if done(resource) or time.monotonic() > deadline:
                return resource
            time.sleep(0.1)

    def shared_volume(self):
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
        attachments = {}
        for name, (host, _process) in sorted(self.computes.items()):
            created = self.request('POST', '/attachments', {'attachment': {
                'volume_uuid': volume['id'],
                'instance_uuid': str(uuid.uuid4()),
                'cinder-ma-manager-attach:instance_host': host,
                'mode': 'rw'}}, status=200).json()['attachment']
            attachments[name] = self.wait(
                '/attachments/' + created['id'], 'attachment',
                lambda a: a['status'] not in ('reserved', 'attaching'))
            self.assertEqual('attached', attachments[name]['status'],
                             attachments[name])
        return volume, attachments

    def extend(self, volume, size):
        self.request('POST', '/volumes/%s/action' % volume['id'],
                     {'os-extend': {'new_size': size}}, status=202)
        return self.wait('/volumes/' + volume['id'], 'volume',
                         lambda v: v['status'] != 'extending')

    def reason(self, attachment):
        return self.request('GET', '/attachments/' + attachment['id'],
                            status=200).json()['attachment'][FAILURE_REASON]

    def test_every_host_then_one_killed_then_one_frozen(self):
        volume, attachments = self.shared_volume()
        path = os.path.join(self.deployment.volumes_dir,
                            'volume-' + volume['id'])

        extended = self.extend(volume, 2)
        self.assertEqual((2, 'in-use', None),
                         (extended['size'], extended['status'],
                          extended[FAILURE_REASON]))
        self.assertEqual(2 * GIB, os.stat(path).st_size)
        self.assertEqual([None, None],
                         [self.reason(a) for _n, a in
                          sorted(attachments.items())])
        shown = self.request('GET', '/attachments/' + attachments['a']['id'],
                             status=200).json()['attachment']
        self.assertEqual(2, shown['connection_info']['volume_size'])

        # compute-b's manager dies; once it shows down, the extend does
        # not wait for it.
        host_b, process_b = self.computes['b']
        process_b.kill()
        func_fixtures.wait_for(
            lambda: self.deployment.service_states().get(
                ('cinder-ma-manager', host_b)) == 'down',
            'compute manager %s down' % host_b)
        started = time.monotonic()
        extended = self.extend(volume, 3)
        self.assertLess(time.monotonic() - started, RPC_TIMEOUT)
        self.assertEqual((3, 'in-use'), (extended['size'],
                                         extended['status']))
        self.assertEqual(3 * GIB, os.stat(path).st_size)
        self.assertIsNone(self.reason(attachments['a']))
        self.assertIn('on host %s: The manager for %s did not answer: it '
                      'is down' % (host_b, host_b),
                      self.reason(attachments['b']))
        self.assertIn(attachments['b']['id'], extended[FAILURE_REASON])

        # compute-a's manager freezes while it still looks up: the call
        # fails after the RPC timeout, and the extend ends then.
        host_a, process_a = self.computes['a']
        os.killpg(process_a.proc.pid, signal.SIGSTOP)
        self.addCleanup(os.killpg, process_a.proc.pid, signal.SIGCONT)
        started = time.monotonic()
        extended = self.extend(volume, 4)
        elapsed = time.monotonic() - started
        os.killpg(process_a.proc.pid, signal.SIGCONT)
        self.assertEqual(4, extended['size'])
        self.assertGreaterEqual(elapsed, RPC_TIMEOUT - 1)
        self.assertLess(elapsed, RPC_TIMEOUT + 15)
        self.assertIn('on host %s: The manager for %s did not answer: no '
                      'answer to resize_attachment within %d s' % (
                          host_a, host_a, RPC_TIMEOUT),
                      self.reason(attachments['a']))
