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

"""Tests of the manager service: drivers, services rows, RPC, heartbeat
(real SQLite, real files, local RPC).
"""

import threading
import time
from unittest import mock

import fixtures
from oslo_config import cfg
import oslo_messaging as messaging
from oslo_serialization import jsonutils

from cinder_ma import context
from cinder_ma import coordination
from cinder_ma.db import services as service_db
from cinder_ma import exception
from cinder_ma.hypervisor.drivers import fake as fake_hv
from cinder_ma.manager import rpcapi
from cinder_ma.manager import service as manager_service
from cinder_ma import rpc
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures


class ManagerServiceTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))
        self.flags(enabled_backends=['file'],
                   storage_availability_zone='zone1')
        self.flags(group='hypervisor', driver='fake')
        self.ctxt = context.get_admin_context()

    def _start(self, **kw):
        svc = manager_service.ManagerService(**kw)
        svc.start()
        self.addCleanup(svc.stop)
        return svc

    def _row(self, host, binary):
        return service_db.service_get_by_host_and_binary(self.ctxt, host,
                                                         binary)

    def test_start_registers_services_rows(self):
        svc = self._start()
        self.assertEqual('testhost', svc.host)
        row = self._row('testhost@file', 'cinder-ma-volume')
        self.assertEqual('cinder-ma-manager', row.topic)
        self.assertEqual('zone1', row.availability_zone)
        self.assertTrue(row.uuid)
        self.assertTrue(service_db.service_is_up(row))
        caps = jsonutils.loads(row.capabilities)
        pool, = caps.pop('pools')
        self.assertEqual({'pool_name': 'file', 'reserved_percentage': 0},
                         {k: pool[k] for k in ('pool_name',
                                               'reserved_percentage')})
        self.assertGreater(pool['total_capacity_gb'], 0)
        self.assertGreaterEqual(pool['free_capacity_gb'], 0)
        self.assertEqual({'volume_backend_name': 'file', 'driver': 'file',
                          'vendor_name': 'Open Source',
                          'driver_version': '1.0.0',
                          'storage_protocol': 'file', 'multiattach': True,
                          'shared_targets': False, 'online_extend': True,
                          'per_attachment_connections': False,
                          'snapshots': True, 'clone': True,
                          'consistent_snapshots': False},
                         caps)
        row = self._row('testhost', 'cinder-ma-manager')
        self.assertEqual('cinder-ma-manager', row.topic)
        self.assertTrue(service_db.service_is_up(row))
        self.assertEqual({'hypervisor': {'driver': 'fake',
                                         'supports_multiattach': True,
                                         'reports_instance_owner': True,
                                         'supports_extend_volume': True,
                                         'supports_reconnect': True},
                          'rpc_api_version': '1.9'},
                         jsonutils.loads(row.capabilities))

    def test_hypervisor_options_registered(self):
        class WithOptions(fake_hv.FakeDriver):
            """A hypervisor driver with an option."""

            @classmethod
            def get_driver_options(cls):
                return [cfg.StrOpt('acme_socket', default='/run/acme.sock',
                                   help='Socket of the Acme hypervisor.')]

        self.useFixture(fixtures.MockPatchObject(
            manager_service, '_load_plugin', return_value=WithOptions))
        name, driver = manager_service.load_hypervisor(self.conf, 'testhost')
        self.assertEqual('fake', name)
        self.assertIsInstance(driver, WithOptions)
        self.assertEqual('/run/acme.sock', self.conf.hypervisor.acme_socket)
        self.assertEqual({'hypervisor': {'driver': 'fake',
                                         'supports_multiattach': True,
                                         'reports_instance_owner': True,
                                         'supports_extend_volume': True,
                                         'supports_reconnect': True},
                          'rpc_api_version': '1.9'},
                         manager_service.hypervisor_capabilities(name,
                                                                 driver))

    def test_manager_gets_the_hypervisor_and_connectors(self):
        svc = self._start()
        self.assertIs(svc.hypervisor, svc.manager.hypervisor)
        self.assertIs(self.conf, svc.manager.connectors.conf)
        self.assertEqual('1.9', svc.manager.target.version)

    def test_no_hypervisor(self):
        self.flags(group='hypervisor', driver=None)
        svc = self._start()
        self.assertIsNone(svc.hypervisor)
        self.assertEqual(
            {'hypervisor': None, 'rpc_api_version': '1.9'},
            jsonutils.loads(
                self._row('testhost', 'cinder-ma-manager').capabilities))

    def test_restart_reuses_rows(self):
        svc = self._start()
        uuid = self._row('testhost@file', 'cinder-ma-volume').uuid
        svc.stop()
        self._start()
        self.assertEqual(2, len(service_db.service_get_all(self.ctxt)))
        self.assertEqual(uuid,
                         self._row('testhost@file', 'cinder-ma-volume').uuid)

    def test_serves_rpc_while_running(self):
        svc = self._start()
        client = rpc.get_client(messaging.Target(
            topic=rpcapi.ManagerAPI.TOPIC, version='1.0')).prepare(
                server='testhost')
        self.assertRaises(exception.VolumeNotFound, client.call,
                          self.context, 'create_volume', volume_id='nope')
        svc.stop()
        self.assertRaises(exception.ManagerUnavailable, client.call,
                          self.context, 'create_volume', volume_id='nope')

    def test_stop_stops_the_coordinator(self):
        svc = self._start()
        # A flow of the process takes a connection lock...
        coordination.COORDINATOR.release(
            coordination.COORDINATOR.acquire('a-lock'))
        self.assertTrue(coordination.COORDINATOR.started)
        # ...and the service's stop releases the backend.
        svc.stop()
        self.assertFalse(coordination.COORDINATOR.started)

    def test_missing_volume_driver(self):
        self.flags(enabled_backends=['file', 'bad'])
        self.conf.register_opts(manager_service.backend_conf.opts,
                                group='bad')
        self.flags(group='bad', volume_driver='nope')
        svc = manager_service.ManagerService()
        exc = self.assertRaises(exception.DriverNotFound, svc.start)
        self.assertEqual('No driver named nope in entry point namespace '
                         'cinder_ma.volume.drivers; is the package '
                         'providing it installed?', str(exc))
        self.assertEqual([], service_db.service_get_all(self.ctxt))
        self.assertRaises(exception.DriverNotFound,
                          manager_service.check_drivers, self.conf)

    def test_missing_hypervisor_driver(self):
        self.flags(group='hypervisor', driver='nope')
        svc = manager_service.ManagerService()
        exc = self.assertRaises(exception.DriverNotFound, svc.start)
        self.assertIn('cinder_ma.hypervisor.drivers', str(exc))
        self.assertRaises(exception.DriverNotFound,
                          manager_service.check_drivers, self.conf)

    def test_check_drivers(self):
        manager_service.check_drivers(self.conf)

    def test_plugin_that_is_not_a_driver(self):
        self.useFixture(fixtures.MockPatch(
            'stevedore.DriverManager', return_value=mock.Mock(driver=dict)))
        exc = self.assertRaises(exception.DriverError,
                                manager_service.check_drivers, self.conf)
        self.assertIn('is not a VolumeDriver', str(exc))

    def test_plugin_that_cannot_be_imported(self):
        def _manager(namespace, name, invoke_on_load,
                     on_load_failure_callback):
            entrypoint = mock.Mock(value='acme.driver:Acme')
            entrypoint.name = name
            on_load_failure_callback(None, entrypoint,
                                     ImportError('No module named acme'))

        self.useFixture(fixtures.MockPatch('stevedore.DriverManager',
                                           side_effect=_manager))
        exc = self.assertRaises(exception.DriverError,
                                manager_service.check_drivers, self.conf)
        self.assertIn('cannot load cinder_ma.volume.drivers driver file '
                      '(acme.driver:Acme): No module named acme', str(exc))

    def test_driver_setup_failure_refuses_start(self):
        blocker = self.state_path + '/blocker'
        open(blocker, 'w').close()
        self.flags(group='backend_defaults',
                   file_volumes_dir=blocker + '/sub')
        svc = manager_service.ManagerService()
        exc = self.assertRaises(exception.DriverError, svc.start)
        self.assertIn('file_volumes_dir', str(exc))

    def test_report_state_refreshes_heartbeat(self):
        svc = self._start()
        before = self._row('testhost@file', 'cinder-ma-volume').heartbeat_at
        time.sleep(0.01)
        svc.report_state()
        after = self._row('testhost@file', 'cinder-ma-volume').heartbeat_at
        self.assertGreater(after, before)

    def test_stats_failure_skips_heartbeat(self):
        svc = self._start()
        before = self._row('testhost@file', 'cinder-ma-volume').heartbeat_at
        manager_before = self._row('testhost',
                                   'cinder-ma-manager').heartbeat_at
        self.useFixture(fixtures.MockPatchObject(
            svc.backends['file'].driver, 'get_stats',
            side_effect=exception.DriverError(reason='array offline')))
        time.sleep(0.01)
        svc.report_state()
        self.assertEqual(before, self._row('testhost@file',
                                           'cinder-ma-volume').heartbeat_at)
        self.assertGreater(self._row('testhost',
                                     'cinder-ma-manager').heartbeat_at,
                           manager_before)

    def test_heartbeat_outage_is_logged_when_it_starts_and_ends(self):
        svc = self._start()
        logger = self.useFixture(fixtures.FakeLogger(
            name='cinder_ma.manager.service'))
        down = self.useFixture(fixtures.MockPatchObject(
            service_db, 'service_update',
            side_effect=exception.CinderMAException('database down'))).mock
        for _ in range(3):
            svc.report_state()
        self.assertEqual(
            1, logger.output.count('Could not report the state of '
                                   'cinder-ma-manager testhost'))
        down.side_effect = None
        svc.report_state()
        svc.report_state()
        self.assertEqual(1, logger.output.count(
            'State of cinder-ma-manager testhost reported again'))

    def test_start_says_whether_nova_is_told_of_extends(self):
        for options, expected in (
                ({}, 'Nova is not told of extends: [nova] auth_type is '
                     'unset'),
                ({'auth_type': 'no-such-plugin'},
                 '[nova] cannot be used, so Nova will not be told of '
                 'extends (the attachments will say so): The plugin '
                 'no-such-plugin could not be found')):
            # (Not a plugin with options of its own: keystoneauth
            # registers them on the process's CONF, for good.)
            logger = self.useFixture(fixtures.FakeLogger(
                name='cinder_ma.manager.service'))
            for name, value in options.items():
                self.flags(group='nova', **{name: value})
            svc = self._start()
            self.assertIn(expected, logger.output)
            svc.stop()
        # Loaded (nothing is sent before an extend): nothing to say.
        self.flags(group='nova', auth_type='none',
                   endpoint_override='http://127.0.0.1:1/compute/v2.1')
        logger = self.useFixture(fixtures.FakeLogger(
            name='cinder_ma.manager.service'))
        self._start()
        self.assertNotIn('nova', logger.output.lower())

    def test_deleted_row_is_registered_again(self):
        svc = self._start()
        row = self._row('testhost@file', 'cinder-ma-volume')
        service_db.service_update(self.ctxt, row.id, {'deleted': True})
        svc.report_state()
        again = self._row('testhost@file', 'cinder-ma-volume')
        self.assertNotEqual(row.id, again.id)

    def test_report_loop(self):
        self.flags(group='manager', report_interval=1)
        self._start()
        before = self._row('testhost', 'cinder-ma-manager').heartbeat_at
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            now = self._row('testhost', 'cinder-ma-manager').heartbeat_at
            if now > before:
                break
            time.sleep(0.05)
        self.assertGreater(now, before)

    def test_wait_blocks_until_stop(self):
        svc = self._start()
        waited = threading.Event()

        def _wait():
            svc.wait()
            waited.set()

        threading.Thread(target=_wait, daemon=True).start()
        self.assertFalse(waited.wait(0.1))
        svc.stop()
        self.assertTrue(waited.wait(10))

    def test_backend_capabilities_defaults(self):
        svc = self._start()
        backend = svc.backends['file']
        self.useFixture(fixtures.MockPatchObject(
            backend.driver, 'get_stats', return_value={
                'pools': [{'total_capacity_gb': 10,
                           'free_capacity_gb': 5}],
                'vendor_name': 'Acme', 'extra': 1}))
        caps = manager_service.backend_capabilities(backend)
        self.assertEqual('Acme', caps['vendor_name'])
        self.assertEqual(1, caps['extra'])
        self.assertEqual([{'pool_name': 'file', 'total_capacity_gb': 10,
                           'free_capacity_gb': 5,
                           'reserved_percentage': 0}], caps['pools'])
