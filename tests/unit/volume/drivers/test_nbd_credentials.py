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

"""Unit tests of the nbd driver's TLS credentials: the PSK key files,
the TLS choice of a record and the backend's X.509 authority (the
certificates themselves are nbd_x509's tests; their handshakes, with
nbdkit and QEMU, are in tests/functional/volume/test_nbd.py)."""

import os
import stat

from cinder_ma.conf import backend as backend_conf
from cinder_ma.volume.drivers import nbd
from cinder_ma.volume.drivers import nbd_credentials
from cinder_ma.volume.drivers import nbd_x509
from tests import base


class CredentialsTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.config = backend_conf.BackendConfig(
            self.conf, 'nbd', nbd.NBDDriver.get_driver_options())

    def test_psk_file_round_trip(self):
        identity, secret = nbd_credentials.new_psk()
        self.assertTrue(identity.startswith('cinder-ma-'))
        self.assertEqual(64, len(secret))
        self.assertNotEqual((identity, secret), nbd_credentials.new_psk())
        path = os.path.join(self.state_path, 'k.psk')
        nbd_credentials.write_psk(path, identity, secret)
        # nbdkit's --tls-psk format, readable by the manager's user only.
        with open(path) as f:
            self.assertEqual('%s:%s\n' % (identity, secret), f.read())
        self.assertEqual(0o600, stat.S_IMODE(os.stat(path).st_mode))
        self.assertEqual((identity, secret), nbd_credentials.read_psk(path))

    def test_tls_of_a_record(self):
        # Records of earlier releases name no TLS: PSK.
        self.assertEqual(nbd_credentials.TLS_PSK,
                         nbd_credentials.tls_of({'port': 1}))
        self.assertEqual(nbd_credentials.TLS_X509, nbd_credentials.tls_of(
            {'tls': nbd_credentials.TLS_X509}))

    def test_probe_address(self):
        for listen, probed in (('0.0.0.0', '127.0.0.1'), ('::', '::1'),
                               ('192.0.2.1', '192.0.2.1')):
            self.conf.set_override('nbd_listen_address', listen,
                                   group='nbd')
            self.assertEqual(probed,
                             nbd_credentials.probe_address(self.config))

    def test_x509_authority_of_the_backend(self):
        self.conf.set_override('nbd_listen_address', '0.0.0.0',
                               group='nbd')
        authority = nbd_credentials.x509_authority(self.config)
        self.assertIsInstance(authority, nbd_x509.Authority)
        # Its server certificate names the address the manager's own
        # checks connect to.
        self.assertIn('127.0.0.1', authority.server_names)
        authority.setup()
        self.assertTrue(os.path.isfile(os.path.join(
            self.state_path, 'nbd-tls', nbd_x509.CA_CERT)))
        # The module the driver's users import it from.
        self.assertIs(nbd_credentials.x509_authority, nbd.x509_authority)
