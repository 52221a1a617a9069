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

"""Unit tests of the nbd driver's exports that need no nbdkit (the probe
runs the real nbdinfo, libnbd-bin, against sockets of the test): the
nbdkit command line, nbdkit's GnuTLS configuration and environment, and
the handshake check (the daemons themselves are proven with real nbdkit
in tests/functional/volume/test_nbd.py)."""

import os
import socket
import time
from unittest import mock

import fixtures

from cinder_ma.conf import backend as backend_conf
from cinder_ma import exception
from cinder_ma.volume.drivers import base as driver_base
from cinder_ma.volume.drivers import nbd
from cinder_ma.volume.drivers import nbd_exports
from tests import base


class ExportsMixinTestCase(base.TestCase):
    """Through the driver, which provides the mixin's configuration."""

    def setUp(self):
        super().setUp()
        self.config = backend_conf.BackendConfig(
            self.conf, 'nbd', nbd.NBDDriver.get_driver_options())
        self.driver = nbd.NBDDriver(configuration=self.config,
                                    host='testhost@nbd')
        self.volume = driver_base.VolumeRef.for_volume(
            '0b0c6d9e-7a4a-4c55-9a0a-1d1b2b3c4d5e', 1,
            host='testhost@nbd#nbd')

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

    def test_gnutls_config_refuses_chacha20(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        path = os.path.join(self.driver.exports_dir, nbd_exports.GNUTLS_CONFIG)
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
        path = os.path.join(self.driver.exports_dir, nbd_exports.GNUTLS_CONFIG)
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
            os.path.join(self.driver.exports_dir, nbd_exports.GNUTLS_CONFIG)))
        self.assertNotIn('GNUTLS_SYSTEM_PRIORITY_FILE',
                         self.driver._environment())

    def test_spawn_passes_the_environment(self):
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        self.driver.create_volume(self.volume)
        record = {'volume_id': self.volume.id,
                  'volume_name': self.volume.name, 'host': 'h',
                  'access_mode': 'rw', 'export': self.volume.name,
                  'port': 10900}
        with mock.patch.object(nbd_exports.subprocess, 'Popen',
                               side_effect=OSError(2, 'No such file')) as p:
            self.assertRaises(exception.DriverError, self.driver._spawn,
                              'k', record)
        self.assertEqual(
            os.path.join(self.driver.exports_dir, nbd_exports.GNUTLS_CONFIG),
            p.call_args.kwargs['env']['GNUTLS_SYSTEM_PRIORITY_FILE'])
