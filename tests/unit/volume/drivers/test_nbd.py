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

"""Unit tests of the NBD driver that need no nbdkit: options, setup,
records, connections and their TLS choices (the data path itself is
proven with real nbdkit and qemu-io in
tests/functional/volume/test_nbd.py; the exports' daemons, credentials
and pauses in the test modules of nbd_exports, nbd_process,
nbd_credentials and nbd_pause)."""

import os
import stat

from cinder_ma.conf import backend as backend_conf
from cinder_ma import exception
from cinder_ma.volume.drivers import base as driver_base
from cinder_ma.volume.drivers import nbd
from tests import base


class NBDDriverTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.config = backend_conf.BackendConfig(
            self.conf, 'nbd', nbd.NBDDriver.get_driver_options())
        self.driver = nbd.NBDDriver(configuration=self.config,
                                    host='testhost@nbd')
        self.volume = driver_base.VolumeRef.for_volume(
            '0b0c6d9e-7a4a-4c55-9a0a-1d1b2b3c4d5e', 1,
            host='testhost@nbd#nbd')

    def test_capabilities(self):
        caps = nbd.NBDDriver.capabilities
        self.assertTrue(caps.multiattach)
        self.assertFalse(caps.shared_targets)
        # The file grows under its exports; clients see the new size
        # when they (re)connect, and the manager resizes the disks of
        # the attachments it made.
        self.assertTrue(caps.online_extend)
        # One export per attachment: each can be fenced alone.
        self.assertTrue(caps.per_attachment_connections)
        self.assertEqual('nbd', nbd.NBDDriver.storage_protocol)

    def test_export_keys(self):
        self.assertEqual(
            '%s.att-a1b2' % self.volume.id,
            self.driver._attachment_key(self.volume.id, 'a1b2'))
        # Without an attachment (a manager older than 1.5): the host's.
        self.assertEqual(
            '%s.%s.ro' % (self.volume.id, nbd._host_tag('h')),
            self.driver._key(self.volume.id, 'h', 'ro'))
        for bad in ('../x', 'a/b', '', 'a' * 65, '.hidden'):
            self.assertRaises(exception.DriverError,
                              self.driver._attachment_key, self.volume.id,
                              bad)

    def test_setup_makes_private_exports_dir(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        path = os.path.join(self.state_path, 'nbd-exports')
        self.assertEqual(path, self.driver.exports_dir)
        self.assertEqual(0o700, stat.S_IMODE(os.stat(path).st_mode))
        self.assertTrue(os.path.isdir(
            os.path.join(self.state_path, 'nbd-volumes')))

    def test_setup_refuses_inverted_port_range(self):
        self.conf.set_override('nbd_port_min', 11000, group='nbd')
        self.conf.set_override('nbd_port_max', 10000, group='nbd')
        exc = self.assertRaises(exception.DriverError, self.driver.do_setup)
        self.assertIn('nbd_port_min', str(exc))

    def test_volume_files(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        self.driver.create_volume(self.volume)
        path = os.path.join(self.state_path, 'nbd-volumes',
                            self.volume.name)
        self.assertEqual(driver_base.GiB, os.stat(path).st_size)
        self.driver.extend_volume(self.volume, 2)
        self.assertEqual(2 * driver_base.GiB, os.stat(path).st_size)
        pools = self.driver.get_stats()['pools']
        self.assertEqual('nbd', pools[0]['pool_name'])
        self.driver.delete_volume(self.volume)
        self.assertFalse(os.path.exists(path))

    def test_list_connections_lists_the_records(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        self.assertEqual([], self.driver.list_connections())
        # What initialize_connection records before nbdkit starts (the
        # daemon itself is the functional tests' business).
        records = [
            (self.driver._attachment_key(self.volume.id, 'att-1'),
             {'volume_id': self.volume.id, 'volume_name': self.volume.name,
              'host': 'node-a', 'access_mode': 'rw', 'export': 'e',
              'port': 10809, 'attachment_id': 'att-1'}),
            (self.driver._key(self.volume.id, 'node-b', 'ro'),
             {'volume_id': self.volume.id, 'volume_name': self.volume.name,
              'host': 'node-b', 'access_mode': 'ro', 'export': 'e',
              'port': 10810, 'tls': nbd.TLS_X509})]
        for key, record in records:
            self.driver._write_secret_files(key, record, 'id', 'secret')
        self.assertEqual(
            sorted([{'volume_id': self.volume.id, 'host': 'node-a',
                     'access_mode': 'rw', 'port': 10809,
                     'attachment_id': 'att-1'},
                    {'volume_id': self.volume.id, 'host': 'node-b',
                     'access_mode': 'ro', 'port': 10810}],
                   key=lambda c: c['port']),
            sorted(self.driver.list_connections(),
                   key=lambda c: c['port']))
        self.driver._remove_files(records[0][0])
        self.assertEqual(['node-b'], [
            c['host'] for c in self.driver.list_connections()])

    def test_setup_makes_the_root_ca(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        tls_dir = os.path.join(self.state_path, 'nbd-tls')
        self.assertEqual(0o700, stat.S_IMODE(os.stat(tls_dir).st_mode))
        for name in ('ca-cert.pem', 'ca-key.pem', 'server-cert.pem',
                     'server-key.pem'):
            self.assertTrue(os.path.isfile(os.path.join(tls_dir, name)))

    def test_connector_tls_choices(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        self.driver.create_volume(self.volume)
        exc = self.assertRaises(
            exception.DriverError, self.driver.initialize_connection,
            self.volume, {'host': 'h', 'nbd_tls': 'kerberos'}, 'rw',
            attachment_id='a1')
        self.assertIn('nbd_tls', str(exc))
        # A host name that cannot name its credentials is refused before
        # anything is exported.
        exc = self.assertRaises(
            exception.DriverError, self.driver.initialize_connection,
            self.volume, {'host': '../h', 'nbd_tls': 'x509'}, 'rw',
            attachment_id='a1')
        self.assertIn('credentials', str(exc))
        self.assertEqual({}, self.driver._records())

    def test_connection_info_of_an_x509_export(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        record = {'volume_id': self.volume.id, 'port': 10900,
                  'access_mode': 'rw', 'export': 'volume-x.ab',
                  'tls': nbd.TLS_X509}
        data = self.driver._connection_info(record, None, None)['data']
        self.assertIs(True, data['tls_x509'])
        self.assertNotIn('tls_psk_identity', data)
        self.assertNotIn('tls_psk_secret', data)
        del record['tls']
        data = self.driver._connection_info(record, 'i', 's')['data']
        self.assertNotIn('tls_x509', data)
        self.assertEqual('s', data['tls_psk_secret'])

    def test_setup_refuses_missing_nbdinfo(self):
        self.conf.set_override('nbdinfo_path', '/nonexistent/nbdinfo',
                               group='nbd')
        exc = self.assertRaises(exception.DriverError, self.driver.do_setup)
        self.assertIn('nbdinfo_path', str(exc))

    def test_gnutls_config_rejects_bad_cipher_names(self):
        self.assertRaises(
            ValueError, self.conf.set_override, 'nbd_tls_disabled_ciphers',
            ['AES-128-GCM\n[priorities]'], group='nbd')

    def test_missing_nbdkit_is_a_driver_error(self):
        self.conf.set_override('nbdkit_path', '/nonexistent/nbdkit',
                               group='nbd')
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        self.driver.create_volume(self.volume)
        exc = self.assertRaises(
            exception.DriverError, self.driver.initialize_connection,
            self.volume, {'host': 'h'}, 'rw')
        self.assertIn('nbdkit', str(exc))
        # Nothing is left recorded.
        self.assertEqual([], [n for n in os.listdir(self.driver.exports_dir)
                              if n not in ('.lock', nbd.GNUTLS_CONFIG)])

    def test_connector_without_host(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        self.assertRaises(exception.DriverError,
                          self.driver.initialize_connection,
                          self.volume, {}, 'rw')
        self.driver.terminate_connection(self.volume, {})
        # Ending an attachment's export that does not exist is no error.
        self.driver.terminate_connection(self.volume, {},
                                         attachment_id='a1')

    def test_secret_is_masked_in_logs(self):
        from oslo_utils import strutils
        text = str({'data': {'tls_psk_secret': 'abcdef0123'}})
        self.assertNotIn('abcdef0123', strutils.mask_password(text))
