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

"""Unit tests of the NBD driver that need no nbdkit (the probe runs the
real nbdinfo, libnbd-bin, against sockets of the test): options, setup,
records and the nbdkit command line (the data path itself is proven with
real nbdkit and qemu-io in tests/functional/volume/test_nbd.py)."""

import os
import socket
import stat
import threading
import time
from unittest import mock

import fixtures

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

    def test_command_read_only_and_tls(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        record = {'volume_id': self.volume.id,
                  'volume_name': self.volume.name, 'host': 'h',
                  'access_mode': 'ro', 'export': self.volume.name,
                  'port': 10900}
        cmd = self.driver._command('k', record, '/v')
        # A daemon (no --foreground), found by its pidfile.
        self.assertNotIn('--foreground', cmd)
        self.assertNotIn('--exit-with-parent', cmd)
        self.assertEqual(os.path.join(self.driver.exports_dir, 'k.pid'),
                         cmd[cmd.index('--pidfile') + 1])
        self.assertIn('--readonly', cmd)
        self.assertIn('--tls=require', cmd)
        self.assertIn('--tls-psk=%s' % os.path.join(
            self.driver.exports_dir, 'k.psk'), cmd)
        self.assertIn('exportname-strict=true', cmd)
        record['access_mode'] = 'rw'
        self.assertNotIn('--readonly',
                         self.driver._command('k', record, '/v'))

    def test_command_of_an_x509_export(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        record = {'volume_id': self.volume.id,
                  'volume_name': self.volume.name, 'host': 'compute-1',
                  'access_mode': 'rw', 'export': self.volume.name + '.ab',
                  'port': 10900, 'tls': nbd.TLS_X509}
        cmd = self.driver._command('k', record, '/v')
        self.assertIn('--tls=require', cmd)
        self.assertIn('--tls-certificates=%s' % os.path.join(
            self.driver.exports_dir, 'k.tls'), cmd)
        # Only the certificate of the export's host completes the
        # handshake (k.tls/ca-cert.pem is that host's authority).
        self.assertIn('--tls-verify-peer', cmd)
        self.assertFalse([a for a in cmd if a.startswith('--tls-psk')])
        self.assertIn('exportname=%s.ab' % self.volume.name, cmd)
        self.assertIn('exportname-strict=true', cmd)
        self.assertEqual(
            os.path.join(self.driver.exports_dir, 'k.tls'),
            self.driver._export('k', record, 1).credentials)

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

    def _probe_record(self, port):
        record = {'volume_id': self.volume.id,
                  'volume_name': self.volume.name, 'host': 'h',
                  'access_mode': 'rw', 'export': self.volume.name,
                  'port': port}
        self.driver._write_secret_files('k', record, 'cinder-ma-x',
                                        '00' * 32)
        return record

    def test_probe_of_a_closed_port(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        with socket.socket() as sock:
            sock.bind(('127.0.0.1', 0))
            port = sock.getsockname()[1]
        self.assertFalse(self.driver.serves('k', self._probe_record(port)))

    def test_probe_of_a_port_that_never_answers_times_out(self):
        # A hung export: the kernel accepts the connection, nothing
        # answers (the real nbdinfo is the client).
        self.conf.set_override('nbd_probe_timeout', 1, group='nbd')
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        sock = socket.socket()
        self.addCleanup(sock.close)
        sock.bind(('127.0.0.1', 0))
        sock.listen()
        record = self._probe_record(sock.getsockname()[1])
        started = time.monotonic()
        self.assertFalse(self.driver.serves('k', record))
        self.assertLess(time.monotonic() - started, 10)

    def test_probe_address(self):
        for listen, probed in (('0.0.0.0', '127.0.0.1'), ('::', '::1'),
                               ('192.0.2.1', '192.0.2.1')):
            self.conf.set_override('nbd_listen_address', listen,
                                   group='nbd')
            self.assertEqual(probed, self.driver._probe_address())

    def test_gnutls_config_refuses_chacha20(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        path = os.path.join(self.driver.exports_dir, nbd.GNUTLS_CONFIG)
        with open(path) as f:
            lines = f.read().splitlines()
        self.assertEqual('[overrides]', lines[1])
        self.assertEqual(['tls-disabled-cipher = CHACHA20-POLY1305'],
                         lines[2:])
        env = self.driver._environment()
        self.assertEqual(path, env['GNUTLS_SYSTEM_PRIORITY_FILE'])
        self.assertEqual(os.environ['PATH'], env['PATH'])

    def test_gnutls_config_lists_every_cipher(self):
        self.conf.set_override('nbd_tls_disabled_ciphers',
                               ['CHACHA20-POLY1305', 'AES-128-CCM'],
                               group='nbd')
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        path = os.path.join(self.driver.exports_dir, nbd.GNUTLS_CONFIG)
        with open(path) as f:
            lines = f.read().splitlines()
        self.assertEqual(['tls-disabled-cipher = CHACHA20-POLY1305',
                          'tls-disabled-cipher = AES-128-CCM'], lines[2:])

    def test_gnutls_config_empty_list_leaves_host_config(self):
        self.driver.do_setup()
        self.driver.stop_supervisor()
        self.conf.set_override('nbd_tls_disabled_ciphers', [], group='nbd')
        self.useFixture(fixtures.EnvironmentVariable(
            'GNUTLS_SYSTEM_PRIORITY_FILE'))
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        self.assertFalse(os.path.exists(
            os.path.join(self.driver.exports_dir, nbd.GNUTLS_CONFIG)))
        self.assertNotIn('GNUTLS_SYSTEM_PRIORITY_FILE',
                         self.driver._environment())

    def test_gnutls_config_rejects_bad_cipher_names(self):
        self.assertRaises(
            ValueError, self.conf.set_override, 'nbd_tls_disabled_ciphers',
            ['AES-128-GCM\n[priorities]'], group='nbd')

    def test_spawn_passes_the_environment(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        self.driver.create_volume(self.volume)
        record = {'volume_id': self.volume.id,
                  'volume_name': self.volume.name, 'host': 'h',
                  'access_mode': 'rw', 'export': self.volume.name,
                  'port': 10900}
        with mock.patch.object(nbd.subprocess, 'Popen',
                               side_effect=OSError(2, 'No such file')) as p:
            self.assertRaises(exception.DriverError, self.driver._spawn,
                              'k', record)
        self.assertEqual(
            os.path.join(self.driver.exports_dir, nbd.GNUTLS_CONFIG),
            p.call_args.kwargs['env']['GNUTLS_SYSTEM_PRIORITY_FILE'])

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


class PauseControl:
    """A stand-in for the pause filter's control socket: acknowledges
    'p' and 'r' (unless ``silent``) and records what it was sent."""

    def __init__(self, path, silent=False):
        self.seen = []
        self.silent = silent
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(1)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        connection, _ = self.server.accept()
        with connection:
            while True:
                command = connection.recv(1)
                if not command:
                    return
                self.seen.append(command)
                if not self.silent:
                    connection.sendall(command.upper())

    def close(self):
        self.server.close()


class NBDSnapshotTestCase(base.TestCase):
    """Snapshots pause every export of the volume, bounded, and resume
    them whatever happens."""

    def setUp(self):
        super().setUp()
        self.config = backend_conf.BackendConfig(
            self.conf, 'nbd', nbd.NBDDriver.get_driver_options())
        self.conf.set_override('nbd_snapshot_drain_timeout', 1,
                               group='backend_defaults')
        self.driver = nbd.NBDDriver(configuration=self.config,
                                    host='testhost@nbd')
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        self.volume = driver_base.VolumeRef.for_volume(
            '0b0c6d9e-7a4a-4c55-9a0a-1d1b2b3c4d5e', 1,
            host='testhost@nbd#nbd')
        self.driver.create_volume(self.volume)
        self.snapshot = driver_base.SnapshotRef.for_snapshot(
            '11111111-2222-4333-8444-555555555555', self.volume, 1)
        self.key = self.volume.id + '.att-a1'
        self.useFixture(fixtures.MockPatchObject(
            self.driver, '_records',
            return_value={self.key: {'volume_id': self.volume.id}}))

    def _snapshot_path(self):
        return os.path.join(self.driver._files.volumes_dir,
                            self.snapshot.name)

    def test_command_has_the_pause_filter(self):
        record = {'volume_id': self.volume.id, 'access_mode': 'rw',
                  'export': self.volume.name, 'port': 10900}
        cmd = self.driver._command(self.key, record, '/v')
        self.assertIn('--filter=pause', cmd)
        self.assertIn('pause-control=%s' % self.driver._control_path(
            self.key), cmd)

    def test_exports_are_paused_for_the_copy(self):
        control = PauseControl(self.driver._control_path(self.key))
        self.addCleanup(control.close)
        paused = self.driver.create_snapshot(self.snapshot)
        control.thread.join(5)
        self.assertEqual([b'p', b'r'], control.seen)
        self.assertIsInstance(paused, float)
        self.assertTrue(os.path.exists(self._snapshot_path()))

    def test_an_export_that_does_not_drain_fails_the_snapshot(self):
        control = PauseControl(self.driver._control_path(self.key),
                               silent=True)
        self.addCleanup(control.close)
        exc = self.assertRaises(exception.DriverError,
                                self.driver.create_snapshot, self.snapshot)
        self.assertIn('nbd_snapshot_drain_timeout', str(exc))
        self.assertFalse(os.path.exists(self._snapshot_path()))

    def test_an_export_without_pause_control_is_crash_consistent(self):
        self.assertIsNone(self.driver.create_snapshot(self.snapshot))
        self.assertTrue(os.path.exists(self._snapshot_path()))

    def test_a_volume_without_exports(self):
        self.driver._records.return_value = {}
        self.assertEqual(0.0, self.driver.create_snapshot(self.snapshot))

    def test_a_clone_pauses_the_source_exports(self):
        control = PauseControl(self.driver._control_path(self.key))
        self.addCleanup(control.close)
        clone = driver_base.VolumeRef.for_volume(
            '11111111-2222-4333-8444-666666666666', 1)
        self.driver.create_cloned_volume(clone, self.volume)
        control.thread.join(5)
        self.assertEqual([b'p', b'r'], control.seen)
        self.assertTrue(os.path.exists(os.path.join(
            self.driver._files.volumes_dir, clone.name)))
