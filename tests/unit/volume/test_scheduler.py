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

"""Tests of backend selection on the real (SQLite) services table."""

import logging

import fixtures

from cinder_ma.db import services as service_db
from cinder_ma import exception
from cinder_ma.volume import scheduler
from tests import base


class SelectBackendTestCase(base.DBTestCase):

    def test_most_free_pool_wins(self):
        self.make_backend('node1@a', free=10.0)
        big = self.make_backend('node2@b', free=50.0)
        placement = scheduler.select_backend(self.context, 5)
        self.assertEqual('node2@b#b', placement.host)
        self.assertEqual(big.uuid, placement.service_uuid)
        self.assertEqual('node2', scheduler.node_of(placement.host))

    def test_no_backend(self):
        exc = self.assertRaises(exception.NoValidBackend,
                                scheduler.select_backend, self.context, 1)
        self.assertIn('No storage backend is running', str(exc))
        self.assertEqual(400, exc.code)

    def test_multiattach_needs_capable_backend(self):
        self.make_backend('node1@plain', multiattach=False)
        exc = self.assertRaises(exception.NoValidBackend,
                                scheduler.select_backend,
                                self.admin_context, 1, multiattach=True)
        self.assertIn('does not support multiattach', str(exc))
        self.make_backend('node1@shared', multiattach=True, free=1.0)
        placement = scheduler.select_backend(self.context, 1,
                                             multiattach=True)
        self.assertEqual('node1@shared#shared', placement.host)

    def test_capacity_and_reserved(self):
        self.make_backend('node1@a', free=10.0, total=100.0)
        self.assertRaises(exception.NoValidBackend,
                          scheduler.select_backend, self.context, 11)
        self.make_backend('node1@r', free=20.0, total=100.0,
                          pools=[{'pool_name': 'r', 'free_capacity_gb': 20,
                                  'total_capacity_gb': 100,
                                  'reserved_percentage': 15}])
        # 20 free, but 15 of 100 are reserved: 5 left.
        placement = scheduler.select_backend(self.context, 5)
        self.assertEqual('node1@a#a', placement.host)
        exc = self.assertRaises(exception.NoValidBackend,
                                scheduler.select_backend,
                                self.admin_context, 6,
                                {'volume_backend_name': 'r'})
        self.assertIn('node1@r has no pool with 6 GiB free', str(exc))

    def test_disabled_and_frozen_backends_skipped(self):
        disabled = self.make_backend('node1@a', free=90.0)
        frozen = self.make_backend('node1@b', free=80.0)
        self.make_backend('node1@c', free=1.0)
        service_db.service_update(self.context, disabled.id,
                                  {'disabled': True})
        service_db.service_update(self.context, frozen.id, {'frozen': True})
        placement = scheduler.select_backend(self.context, 1)
        self.assertEqual('node1@c#c', placement.host)
        # The reasons name the hosts to admins only.
        exc = self.assertRaises(exception.NoValidBackend,
                                scheduler.select_backend,
                                self.admin_context, 5)
        self.assertIn('node1@a is disabled', str(exc))
        self.assertIn('node1@b is frozen', str(exc))

    def test_down_backend_skipped(self):
        self.make_backend('node1@a', heartbeat=False)
        exc = self.assertRaises(exception.NoValidBackend,
                                scheduler.select_backend,
                                self.admin_context, 1)
        self.assertIn('node1@a is down', str(exc))

    def test_hosts_are_named_to_admins_only(self):
        self.make_backend('node1@a', heartbeat=False)
        self.make_backend('node2@b', multiattach=False)
        log = self.useFixture(fixtures.FakeLogger(level=logging.INFO))
        exc = self.assertRaises(exception.NoValidBackend,
                                scheduler.select_backend, self.context, 1,
                                multiattach=True)
        self.assertEqual('No valid backend was found. %s' %
                         scheduler.PUBLIC_NO_BACKEND, str(exc))
        self.assertNotIn('node', str(exc))
        # The operator finds the reasons in the log.
        self.assertIn('node1@a is down', log.output)
        self.assertIn('node2@b does not support multiattach', log.output)
        exc = self.assertRaises(exception.NoValidBackend,
                                scheduler.select_backend,
                                self.admin_context, 1, multiattach=True)
        self.assertIn('node1@a is down', str(exc))

    def test_extra_specs_filter(self):
        self.make_backend('node1@gold', free=1.0, online_extend=True)
        self.make_backend('node1@silver', free=90.0)
        placement = scheduler.select_backend(
            self.context, 1, {'volume_backend_name': 'gold'})
        self.assertEqual('node1@gold#gold', placement.host)
        placement = scheduler.select_backend(
            self.context, 1, {'online_extend': '<is> True'})
        self.assertEqual('node1@gold#gold', placement.host)
        self.assertRaises(exception.NoValidBackend,
                          scheduler.select_backend, self.context, 1,
                          {'replication': '<is> True'})

    def test_text_extra_specs_select_backends(self):
        # The example: nothing here speaks iSCSI for NoSuchVendor.
        self.make_backend('node1@file', vendor_name='Open Source',
                          storage_protocol='file')
        self.make_backend('node2@iscsi', vendor_name='Acme',
                          storage_protocol='iSCSI', free=10.0)
        exc = self.assertRaises(
            exception.NoValidBackend, scheduler.select_backend,
            self.admin_context, 1, {'storage_protocol': 'iSCSI',
                                    'vendor_name': 'NoSuchVendor'})
        self.assertIn('node1@file reports storage_protocol=file, not iSCSI',
                      str(exc))
        self.assertIn('node2@iscsi reports vendor_name=Acme, not '
                      'NoSuchVendor', str(exc))
        for specs in ({'storage_protocol': 'iSCSI', 'vendor_name': 'Acme'},
                      {'capabilities:storage_protocol': '<in> iSC'},
                      {'vendor_name': '<or> Nobody <or> Acme'},
                      {'storage_protocol': 's!= file'}):
            self.assertEqual('node2@iscsi#iscsi', scheduler.select_backend(
                self.context, 1, specs).host, specs)
        # Other namespaces are not capabilities: left alone.
        self.assertEqual('node1@file#file', scheduler.select_backend(
            self.context, 1, {'multiattach:writers': 'one',
                              'qos:read_iops_sec': '100',
                              'volume_backend_name': 'file'}).host)
        # An unscoped key names a capability: none reports it.
        exc = self.assertRaises(exception.NoValidBackend,
                                scheduler.select_backend,
                                self.admin_context, 1, {'k': 'v'})
        self.assertIn('does not report k', str(exc))

    def test_pool_capabilities_and_numbers(self):
        self.make_backend('node1@multi', pools=[
            {'pool_name': 'slow', 'free_capacity_gb': 90,
             'total_capacity_gb': 100, 'reserved_percentage': 0,
             'disk_rpm': 7200},
            {'pool_name': 'fast', 'free_capacity_gb': 10,
             'total_capacity_gb': 100, 'reserved_percentage': 0,
             'disk_rpm': 15000}])
        self.assertEqual('node1@multi#fast', scheduler.select_backend(
            self.context, 1, {'capabilities:disk_rpm': '>= 10000'}).host)
        self.assertEqual('node1@multi#slow', scheduler.select_backend(
            self.context, 1, {'disk_rpm': '<= 10000'}).host)
        self.assertRaises(exception.NoValidBackend,
                          scheduler.select_backend, self.context, 1,
                          {'disk_rpm': '== 5400'})

    def test_availability_zone(self):
        self.make_backend('node1@a', zone='az1')
        self.assertRaises(exception.NoValidBackend,
                          scheduler.select_backend, self.context, 1,
                          availability_zone='az2')
        self.assertEqual('az1', scheduler.select_backend(
            self.context, 1, availability_zone='az1').availability_zone)


class HypervisorCapabilitiesTestCase(base.DBTestCase):

    def _manager(self, host, capabilities):
        service = service_db.service_create(self.admin_context, {
            'host': host, 'binary': scheduler.MANAGER_BINARY,
            'topic': 'cinder-ma-manager'})
        service_db.service_update(self.admin_context, service.id,
                                  {'capabilities': capabilities})

    def test_what_the_manager_of_the_node_reports(self):
        caps = {'driver': 'libvirt', 'supports_extend_volume': True}
        self._manager('compute1', {'hypervisor': caps})
        self._manager('storage1', {'hypervisor': None})
        self.assertEqual(caps, scheduler.hypervisor_capabilities(
            self.context, 'compute1'))
        self.assertEqual(caps, scheduler.hypervisor_capabilities(
            self.context, 'compute1@file#file'))
        self.assertIsNone(scheduler.hypervisor_capabilities(
            self.context, 'storage1'))
        self.assertIsNone(scheduler.hypervisor_capabilities(
            self.context, 'nowhere'))
