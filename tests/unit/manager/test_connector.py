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

"""Tests of the host-side connector layer (real files)."""

import inspect
import os
from unittest import mock

import fixtures
import stevedore
from stevedore import exception as stevedore_exc

from cinder_ma import exception
from cinder_ma.manager import connector
from tests import base


def connector_problems(cls):
    """What a connector class gets wrong about the interface."""
    if not (isinstance(cls, type) and issubclass(cls, connector.Connector)):
        return ['is not a Connector']
    problems = []
    if inspect.isabstract(cls):
        problems.append('abstract methods left: %s' % ', '.join(
            sorted(cls.__abstractmethods__)))
    if not cls.__doc__:
        problems.append('no docstring')
    params = inspect.signature(cls.disconnect_volume).parameters
    if 'shared_target_in_use' not in params:
        problems.append('disconnect_volume takes no shared_target_in_use')
    return problems


class ConnectorPropertiesTestCase(base.TestCase):

    def test_properties(self):
        props = connector.get_connector_properties()
        self.assertEqual({'host', 'initiator', 'platform', 'os_type',
                          'multipath'}, set(props))
        self.assertEqual('testhost', props['host'])
        self.assertIs(False, props['multipath'])
        self.assertEqual('compute1', connector.get_connector_properties(
            host='compute1')['host'])

    def test_libvirt_hosts_ask_for_x509_nbd_exports(self):
        # libvirt's QEMU presents the host's certificate, never a PSK.
        self.assertNotIn('nbd_tls', connector.get_connector_properties())
        self.conf.set_override('driver', 'libvirt', group='hypervisor')
        self.assertEqual('x509',
                         connector.get_connector_properties()['nbd_tls'])
        self.conf.set_override('driver', 'fake', group='hypervisor')
        self.assertNotIn('nbd_tls', connector.get_connector_properties())

    def test_initiator(self):
        path = os.path.join(self.state_path, 'initiatorname.iscsi')
        with open(path, 'w') as f:
            f.write('## generated\nInitiatorName=iqn.2004-10.com:node1\n')
        self.useFixture(fixtures.MonkeyPatch(
            'cinder_ma.manager.connector.INITIATOR_FILE', path))
        self.assertEqual('iqn.2004-10.com:node1',
                         connector.get_connector_properties()['initiator'])
        self.useFixture(fixtures.MonkeyPatch(
            'cinder_ma.manager.connector.INITIATOR_FILE', path + '.none'))
        self.assertIsNone(connector.get_connector_properties()['initiator'])


class DeviceInfoTestCase(base.TestCase):

    def test_with_device_copies(self):
        info = {'driver_volume_type': 'file', 'data': {'path': '/v/1'}}
        done = connector.with_device(info, {'path': '/dev/x'})
        self.assertEqual('/dev/x', done['data']['device_path'])
        self.assertNotIn('device_path', info['data'])
        self.assertEqual({'path': '/dev/x'}, connector.device_of(done))
        self.assertIsNone(connector.device_of(info))
        self.assertIsNone(connector.device_of(None))
        self.assertEqual(info, connector.with_device(info, None))


class FileConnectorTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.connectors = connector.Connectors(self.conf)
        self.path = os.path.join(self.state_path, 'volume-1')
        open(self.path, 'w').close()
        self.info = {'driver_volume_type': 'file',
                     'data': {'path': self.path, 'access_mode': 'rw'}}

    def test_connect_and_disconnect(self):
        self.assertEqual({'path': self.path},
                         self.connectors.connect_volume(self.info))
        self.connectors.disconnect_volume(self.info, {'path': self.path})
        self.connectors.disconnect_volume(self.info)
        self.assertTrue(os.path.exists(self.path))

    def test_missing_file(self):
        os.unlink(self.path)
        exc = self.assertRaises(exception.DriverError,
                                self.connectors.connect_volume, self.info)
        self.assertIn(self.path, str(exc))
        self.assertIn('does not exist on this host', str(exc))

    def test_no_path(self):
        self.assertRaises(exception.DriverError,
                          self.connectors.connect_volume,
                          {'driver_volume_type': 'file', 'data': {}})

    def test_unknown_type(self):
        exc = self.assertRaises(exception.DriverError,
                                self.connectors.connect_volume,
                                {'driver_volume_type': 'iscsi', 'data': {}})
        self.assertIn("no connector for driver_volume_type 'iscsi'",
                      str(exc))
        self.assertIn('known: file, nbd', str(exc))
        self.assertIn(connector.NAMESPACE, str(exc))
        self.assertRaises(exception.DriverError,
                          self.connectors.disconnect_volume,
                          {'data': {'path': self.path}})

    def test_not_a_dict(self):
        self.assertRaises(exception.DriverError,
                          self.connectors.connect_volume, '{"json": 1}')

    def test_instances_are_reused(self):
        self.assertIs(self.connectors.get('file'),
                      self.connectors.get('file'))


class NBDConnectorTestCase(base.TestCase):
    """The host needs nothing for NBD: the hypervisor connects itself."""

    def setUp(self):
        super().setUp()
        self.connectors = connector.Connectors(self.conf)
        self.info = {'driver_volume_type': 'nbd',
                     'data': {'host': '192.0.2.10', 'port': 10811,
                              'export': 'volume-1', 'access_mode': 'ro'}}

    def test_connect_and_disconnect(self):
        device = self.connectors.connect_volume(self.info)
        self.assertEqual({'path': 'nbd://192.0.2.10:10811/volume-1'},
                         device)
        self.connectors.disconnect_volume(self.info, device)
        self.connectors.disconnect_volume(self.info)

    def test_ipv6_host(self):
        self.info['data']['host'] = '2001:db8::1'
        self.assertEqual(
            {'path': 'nbd://[2001:db8::1]:10811/volume-1'},
            self.connectors.connect_volume(self.info))

    def test_incomplete(self):
        del self.info['data']['export']
        exc = self.assertRaises(exception.DriverError,
                                self.connectors.connect_volume, self.info)
        self.assertIn('export', str(exc))


class PluginTestCase(base.TestCase):
    """Connectors of other packages, by entry point."""

    class AcmeConnector(connector.Connector):
        """Connects to Acme arrays."""

        def connect_volume(self, connection_info):
            return {'path': '/dev/acme0'}

        def disconnect_volume(self, connection_info, device_info=None,
                              shared_target_in_use=False):
            pass

    def _register(self, plugin):
        def manager(namespace, name, invoke_on_load):
            self.assertEqual(connector.NAMESPACE, namespace)
            if name != 'acme':
                raise stevedore_exc.NoMatches(name)
            return mock.Mock(driver=plugin)

        self.useFixture(fixtures.MockPatch('stevedore.DriverManager',
                                           side_effect=manager))

    def test_entry_point(self):
        self._register(self.AcmeConnector)
        connectors = connector.Connectors(self.conf)
        self.assertEqual({'path': '/dev/acme0'}, connectors.connect_volume(
            {'driver_volume_type': 'acme', 'data': {}}))
        self.assertRaises(exception.DriverError, connectors.connect_volume,
                          {'driver_volume_type': 'other', 'data': {}})

    def test_entry_point_that_is_not_a_connector(self):
        self._register(dict)
        exc = self.assertRaises(exception.DriverError,
                                connector.Connectors(self.conf).get, 'acme')
        self.assertIn('not a Connector', str(exc))

    def test_explicit_classes_do_not_load_plugins(self):
        self._register(self.AcmeConnector)
        connectors = connector.Connectors(
            self.conf, classes={'acme2': self.AcmeConnector})
        self.assertRaises(exception.DriverError, connectors.get, 'acme')
        self.assertIsInstance(connectors.get('acme2'), self.AcmeConnector)

    def test_connector_without_device_is_disconnected(self):
        disconnected = []

        class Broken(self.AcmeConnector):
            """Returns no device."""

            def connect_volume(self, connection_info):
                return {}

            def disconnect_volume(self, connection_info, device_info=None,
                                  shared_target_in_use=False):
                disconnected.append(connection_info)

        connectors = connector.Connectors(self.conf,
                                          classes={'acme': Broken})
        info = {'driver_volume_type': 'acme', 'data': {}}
        self.assertRaises(exception.DriverError, connectors.connect_volume,
                          info)
        self.assertEqual([info], disconnected)


class ComplianceTestCase(base.TestCase):
    """Every in-tree and registered connector follows the interface."""

    def test_every_connector(self):
        failures = []
        for name, cls in sorted(connector.CONNECTORS.items()):
            failures.extend('%s: %s' % (name, p)
                            for p in connector_problems(cls))
        mgr = stevedore.ExtensionManager(
            connector.NAMESPACE, invoke_on_load=False,
            on_load_failure_callback=lambda _m, ep, exc: failures.append(
                '%s: cannot be loaded: %s' % (ep.name, exc)))
        for ext in mgr:
            failures.extend('%s: %s' % (ext.name, p)
                            for p in connector_problems(ext.plugin))
        self.assertEqual([], failures)

    def test_problems_are_found(self):
        class Half(connector.Connector):
            def connect_volume(self, connection_info):
                pass

        self.assertEqual(['is not a Connector'], connector_problems(dict))
        problems = connector_problems(Half)
        self.assertIn('no docstring', problems)
        self.assertTrue(any(p.startswith('abstract methods left')
                            for p in problems))
