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

"""The multi-process deployment: ``cinder-ma-api`` and
``cinder-ma-manager`` as separate processes, over RabbitMQ, on a
PostgreSQL database that ``cinder-ma-manage db sync`` migrated.

Skipped when PostgreSQL or RabbitMQ is down, failed instead under
``CINDER_MA_REQUIRE_SERVICES=1``.
"""

import os
import time

import requests

from tests import base
from tests.functional import fixtures as func_fixtures

PROJECT = 'demo'
TOKEN = 'alice:%s' % PROJECT
GIB = 1024 ** 3
WAIT = 30


class _DeploymentTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.admin_url = func_fixtures.require_deployment_services(self)

    def request(self, method, path, body=None):
        return requests.request(
            method, self.deployment.project_url(PROJECT) + path, json=body,
            headers={'X-Auth-Token': TOKEN, 'X-Roles': 'member,reader',
                     'OpenStack-API-Version': 'volume 3.54'},
            timeout=func_fixtures.HTTP_TIMEOUT)

    def volume(self, volume_id):
        """The volume's view, or None once it is not found."""
        response = self.request('GET', '/volumes/' + volume_id)
        if response.status_code == 404:
            return None
        self.assertEqual(200, response.status_code, response.text)
        return response.json()['volume']

    def wait_for_volume(self, volume_id, statuses):
        """The volume once its status left ``statuses`` (None: gone)."""
        deadline = time.monotonic() + WAIT
        volume = self.volume(volume_id)
        while (volume is not None and volume['status'] in statuses and
               time.monotonic() < deadline):
            time.sleep(0.05)
            volume = self.volume(volume_id)
        return volume

    def create_volume(self, size=1, **fields):
        fields['size'] = size
        response = self.request('POST', '/volumes', {'volume': fields})
        self.assertEqual(202, response.status_code, response.text)
        volume = response.json()['volume']
        self.assertEqual('creating', volume['status'])
        return volume

    def volume_path(self, volume_id):
        return os.path.join(self.deployment.volumes_dir,
                            'volume-' + volume_id)


class MultiProcessTestCase(_DeploymentTestCase):
    """One deployment shared by the tests of the class."""

    def setUp(self):
        super().setUp()
        self.deployment = func_fixtures.class_fixture(
            self, lambda: func_fixtures.Deployment(self.admin_url),
            key='deployment')
        self.deployment.attach_logs_on_failure(self)

    def test_services_are_up(self):
        services = {(s['binary'], s['host']): s
                    for s in self.deployment.services()}
        backend = services[('cinder-volume',
                            self.deployment.backend_host)]
        self.assertEqual(('up', 'enabled', 'nova'),
                         (backend['state'], backend['status'],
                          backend['zone']))
        manager = services[('cinder-ma-manager', self.deployment.host)]
        self.assertEqual('up', manager['state'])
        # Only this deployment's node: the database is its own.
        self.assertEqual({self.deployment.host,
                          self.deployment.backend_host},
                         {host for _binary, host in services})
        filtered = self.deployment.services(binary='cinder-ma-volume')
        self.assertEqual([self.deployment.backend_host],
                         [s['host'] for s in filtered])

    def test_volume_lifecycle(self):
        created = self.create_volume(size=2, name='remote')
        volume = self.wait_for_volume(created['id'], ('creating',))
        self.assertEqual('available', volume['status'])
        self.assertEqual(2, volume['size'])
        self.assertEqual('remote', volume['name'])
        # The manager process made a sparse file of the volume's size in
        # its state directory.
        path = self.volume_path(volume['id'])
        stat = os.stat(path)
        self.assertEqual(2 * GIB, stat.st_size)
        self.assertLess(stat.st_blocks * 512, GIB)
        listed = self.request('GET', '/volumes/detail').json()['volumes']
        self.assertIn((volume['id'], 'available'),
                      [(v['id'], v['status']) for v in listed])

        response = self.request('DELETE', '/volumes/' + volume['id'])
        self.assertEqual(202, response.status_code, response.text)
        self.assertIsNone(self.wait_for_volume(volume['id'],
                                               ('available', 'deleting')))
        self.assertFalse(os.path.exists(path))

    def test_concurrent_creates(self):
        created = [self.create_volume(name='c%d' % i) for i in range(5)]
        for volume in created:
            volume = self.wait_for_volume(volume['id'], ('creating',))
            self.assertEqual('available', volume['status'])
            self.assertTrue(os.path.exists(self.volume_path(volume['id'])))
        for volume in created:
            self.request('DELETE', '/volumes/' + volume['id'])
        for volume in created:
            self.assertIsNone(self.wait_for_volume(
                volume['id'], ('available', 'deleting')))
            self.assertFalse(os.path.exists(self.volume_path(volume['id'])))


class ManagerDownTestCase(_DeploymentTestCase):
    """A deployment of its own: the test kills its manager."""

    def setUp(self):
        super().setUp()
        self.deployment = self.useFixture(
            func_fixtures.Deployment(self.admin_url))
        self.deployment.attach_logs_on_failure(self)

    def test_create_fails_cleanly_without_manager(self):
        kept = self.create_volume(name='kept')
        self.assertEqual('available', self.wait_for_volume(
            kept['id'], ('creating',))['status'])

        # A crash: the manager and its worker get SIGKILL.
        self.deployment.manager.kill()
        self.deployment.wait_for_services(
            'down', timeout=self.deployment.service_down_time + 10)

        # No backend: as Cinder, an 'error' volume (never 'creating'),
        # deleted at once.
        response = self.request('POST', '/volumes',
                                {'volume': {'size': 1, 'name': 'lost'}})
        self.assertEqual(202, response.status_code, response.text)
        lost = response.json()['volume']
        self.assertEqual('error', lost['status'])
        listed = self.request('GET', '/volumes/detail').json()['volumes']
        self.assertEqual({(kept['id'], 'available'), (lost['id'], 'error')},
                         {(v['id'], v['status']) for v in listed})
        response = self.request('DELETE', '/volumes/' + lost['id'])
        self.assertEqual(202, response.status_code, response.text)

        # A delete meanwhile waits in the manager's queue...
        response = self.request('DELETE', '/volumes/' + kept['id'])
        self.assertEqual(202, response.status_code, response.text)
        self.assertEqual('deleting', self.volume(kept['id'])['status'])
        # ... and is carried out once the manager is back.
        self.deployment.start_manager()
        self.deployment.wait_for_services('up')
        self.assertIsNone(self.wait_for_volume(kept['id'], ('deleting',)))
        self.assertFalse(os.path.exists(self.volume_path(kept['id'])))
        created = self.create_volume(name='again')
        self.assertEqual('available', self.wait_for_volume(
            created['id'], ('creating',))['status'])
