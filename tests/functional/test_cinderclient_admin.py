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

"""python-cinderclient's admin commands against ``cinder-ma-all``: QoS
specs (create, keys, associate, list, delete) and what they give an
attachment's connection_info, services (enable, disable with a reason,
freeze, thaw) and hosts.
"""

import uuid

from cinderclient import client as cinder_client
from cinderclient.contrib import noauth
from cinderclient import exceptions as cinder_exc
from keystoneauth1 import session as ks_session

from tests.functional import fixtures as func_fixtures
from tests.functional import test_cinderclient as base


class AdminCinderClientTestCase(base._AllInOneTestCase):

    def setUp(self):
        super().setUp()
        self.admin = base.cinder(self.server, user='admin', project='admin',
                                 roles=None)

    def _service(self):
        """The admin's client with a service token (the compute service
        that may delete a connected attachment)."""
        auth = noauth.CinderNoAuthPlugin('admin', 'admin',
                                         endpoint=self.server.endpoint)
        session = ks_session.Session(
            auth=auth, additional_headers={'X-Service-Roles': 'service'})
        return cinder_client.Client(base.VERSION, session=session)

    def _backend(self):
        services = self.admin.services.list(binary='cinder-volume')
        self.assertEqual(1, len(services))
        return services[0]

    def test_qos_specs(self):
        qos = self.admin.qos_specs.create(
            func_fixtures.unique('qos'),
            {'consumer': 'front-end', 'read_iops_sec': '2000'})
        self.addCleanup(self.admin.qos_specs.delete, qos.id, force=True)
        self.assertEqual('front-end', qos.consumer)
        self.assertEqual({'read_iops_sec': '2000'}, qos.specs)
        self.admin.qos_specs.set_keys(qos.id, {'total_bytes_sec': '1048576'})
        self.admin.qos_specs.unset_keys(qos.id, ['read_iops_sec'])
        self.assertEqual({'total_bytes_sec': '1048576'},
                         self.admin.qos_specs.get(qos.id).specs)
        self.assertIn(qos.id, [q.id for q in self.admin.qos_specs.list()])

        vtype = self.admin.volume_types.create(func_fixtures.unique('qt'))
        self.addCleanup(self.admin.volume_types.delete, vtype.id)
        self.admin.qos_specs.associate(qos.id, vtype.id)
        associations = self.admin.qos_specs.get_associations(qos.id)
        self.assertEqual([(vtype.id, 'volume_type')],
                         [(a.id, a.association_type) for a in associations])
        # In use: deleting needs force.
        self.assertRaises(cinder_exc.BadRequest,
                          self.admin.qos_specs.delete, qos.id)

        # Every attachment of a volume of the type gets the front-end
        # specs in its connection_info.
        volume = self.admin.volumes.create(1, volume_type=vtype.name)
        volume = base.wait_for_volume(self.admin, volume.id)
        self.assertEqual('available', volume.status)
        self.addCleanup(base.wait_until_gone, self.admin, volume.id)
        self.addCleanup(self.admin.volumes.delete, volume.id)
        attachment = self.admin.attachments.create(
            volume.id, {'host': 'compute1', 'initiator': None},
            str(uuid.uuid4()), 'rw')
        self.addCleanup(self._service().attachments.delete,
                        attachment['id'])
        info = attachment['connection_info']
        specs = info.get('qos_specs', (info.get('data') or {}).get(
            'qos_specs'))
        self.assertEqual({'total_bytes_sec': '1048576'}, specs)

        self.admin.qos_specs.disassociate(qos.id, vtype.id)
        self.assertEqual([], self.admin.qos_specs.get_associations(qos.id))

    def test_services_enable_disable(self):
        backend = self._backend()
        self.assertEqual('enabled', backend.status)
        self.addCleanup(self.admin.services.enable, backend.host,
                        'cinder-volume')
        self.admin.services.disable_log_reason(backend.host, 'cinder-volume',
                                               'maintenance')
        backend = self._backend()
        self.assertEqual(('disabled', 'maintenance'),
                         (backend.status, backend.disabled_reason))
        # Nothing is placed on a disabled backend: as in Cinder, the
        # volume is 'error' (and deleted as any).
        volume = self.admin.volumes.create(1)
        self.assertEqual('error', volume.status)
        self.admin.volumes.delete(volume.id)
        self.assertIsNone(base.wait_until_gone(self.admin, volume.id))
        self.admin.services.enable(backend.host, 'cinder-volume')
        self.assertEqual('enabled', self._backend().status)
        # Filtered by the node's name: the node's services.
        node = backend.host.split('@')[0]
        services = self.admin.services.list(host=node)
        self.assertEqual({'cinder-volume', 'cinder-ma-manager'},
                         {s.binary for s in services})

    def test_freeze_thaw(self):
        volume = self.admin.volumes.create(1)
        volume = base.wait_for_volume(self.admin, volume.id)
        self.addCleanup(base.wait_until_gone, self.admin, volume.id)
        self.addCleanup(self.admin.volumes.delete, volume.id)
        backend = self._backend()
        self.addCleanup(self.admin.services.thaw_host, backend.host)
        self.admin.services.freeze_host(backend.host)
        backend = self._backend()
        self.assertTrue(backend.frozen)
        self.assertEqual('disabled', backend.status)
        exc = self.assertRaises(cinder_exc.BadRequest,
                                self.admin.volumes.extend, volume.id, 2)
        self.assertIn('frozen', exc.message)
        exc = self.assertRaises(cinder_exc.BadRequest,
                                self.admin.volumes.delete, volume.id)
        self.assertIn('frozen', exc.message)
        self.admin.services.thaw_host(backend.host)
        self.assertFalse(self._backend().frozen)

    def test_hosts(self):
        resp, body = self.admin.client.get('/os-hosts')
        self.assertEqual(200, resp.status_code)
        self.assertIn('cinder-volume',
                      {h['service'] for h in body['hosts']})
        host = self._backend().host
        resp, body = self.admin.client.get('/os-hosts/' + host)
        self.assertEqual('(total)', body['host'][0]['resource']['project'])
