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

"""The nbd driver's X.509 credentials (the TLS handshakes themselves,
with nbdkit and QEMU, are in tests/functional/volume/test_nbd.py)."""

import ipaddress
import os
import shutil
import stat

from cryptography import exceptions
from cryptography import x509
from cryptography.x509 import oid

from cinder_ma import exception
from cinder_ma.volume.drivers import nbd_x509
from tests import base


def _certs(path):
    with open(path, 'rb') as f:
        return x509.load_pem_x509_certificates(f.read())


class AuthorityTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.directory = os.path.join(self.state_path, 'tls')
        self.authority = nbd_x509.Authority(
            self.directory, ['192.0.2.10', 'storage-1.example', None,
                             '192.0.2.10'])
        self.authority.setup()

    def path(self, *parts):
        return os.path.join(self.directory, *parts)

    def test_root_ca_and_server_certificate(self):
        self.assertEqual(0o700, stat.S_IMODE(os.stat(self.directory).st_mode))
        for name in (nbd_x509.CA_KEY, nbd_x509.SERVER_KEY):
            self.assertEqual(0o600,
                             stat.S_IMODE(os.stat(self.path(name)).st_mode))
        [root] = _certs(self.path(nbd_x509.CA_CERT))
        self.assertTrue(root.extensions.get_extension_for_class(
            x509.BasicConstraints).value.ca)
        [server] = _certs(self.path(nbd_x509.SERVER_CERT))
        server.verify_directly_issued_by(root)
        names = server.extensions.get_extension_for_class(
            x509.SubjectAlternativeName).value
        self.assertEqual([ipaddress.ip_address('192.0.2.10')],
                         names.get_values_for_type(x509.IPAddress))
        self.assertEqual(['storage-1.example'],
                         names.get_values_for_type(x509.DNSName))
        self.assertEqual([oid.ExtendedKeyUsageOID.SERVER_AUTH], list(
            server.extensions.get_extension_for_class(
                x509.ExtendedKeyUsage).value))

    def test_setup_keeps_the_root_and_renews_the_server_certificate(self):
        with open(self.path(nbd_x509.CA_CERT), 'rb') as f:
            root = f.read()
        with open(self.path(nbd_x509.SERVER_CERT), 'rb') as f:
            server = f.read()
        self.authority.setup()
        with open(self.path(nbd_x509.SERVER_CERT), 'rb') as f:
            self.assertEqual(server, f.read())
        # Clients now connect to another address: a new server
        # certificate naming it, from the same root CA.
        moved = nbd_x509.Authority(self.directory, ['198.51.100.7'])
        moved.setup()
        with open(self.path(nbd_x509.CA_CERT), 'rb') as f:
            self.assertEqual(root, f.read())
        [cert] = _certs(self.path(nbd_x509.SERVER_CERT))
        self.assertEqual([ipaddress.ip_address('198.51.100.7')],
                         cert.extensions.get_extension_for_class(
                             x509.SubjectAlternativeName).value
                         .get_values_for_type(x509.IPAddress))

    def test_half_a_root_ca_is_refused(self):
        os.unlink(self.path(nbd_x509.CA_KEY))
        exc = self.assertRaises(exception.DriverError, self.authority.setup)
        self.assertIn(nbd_x509.CA_KEY, str(exc))

    def test_host_client_credentials(self):
        self.authority.ensure_host('compute-1')
        client = self.authority.client_dir('compute-1')
        self.assertEqual(self.path('hosts', 'compute-1', 'client'), client)
        self.assertEqual(
            0o600, stat.S_IMODE(os.stat(os.path.join(
                client, nbd_x509.CLIENT_KEY)).st_mode))
        root, authority = _certs(os.path.join(client, nbd_x509.CA_CERT))
        authority.verify_directly_issued_by(root)
        self.assertTrue(authority.extensions.get_extension_for_class(
            x509.BasicConstraints).value.ca)
        [cert] = _certs(os.path.join(client, nbd_x509.CLIENT_CERT))
        cert.verify_directly_issued_by(authority)
        self.assertEqual('compute-1', cert.subject.get_attributes_for_oid(
            oid.NameOID.COMMON_NAME)[0].value)
        self.assertEqual([oid.ExtendedKeyUsageOID.CLIENT_AUTH], list(
            cert.extensions.get_extension_for_class(
                x509.ExtendedKeyUsage).value))
        # Made once: the host keeps its credentials.
        with open(os.path.join(client, nbd_x509.CLIENT_CERT), 'rb') as f:
            pem = f.read()
        self.authority.ensure_host('compute-1')
        with open(os.path.join(client, nbd_x509.CLIENT_CERT), 'rb') as f:
            self.assertEqual(pem, f.read())

    def test_export_trusts_its_host_only(self):
        export = os.path.join(self.state_path, 'export.tls')
        self.authority.export_dir(export, 'compute-1')
        self.authority.ensure_host('compute-2')
        [trusted] = _certs(os.path.join(export, nbd_x509.CA_CERT))
        [one] = _certs(os.path.join(self.authority.client_dir('compute-1'),
                                    nbd_x509.CLIENT_CERT))
        [two] = _certs(os.path.join(self.authority.client_dir('compute-2'),
                                    nbd_x509.CLIENT_CERT))
        one.verify_directly_issued_by(trusted)
        self.assertRaises(ValueError, two.verify_directly_issued_by, trusted)
        self.assertEqual(0o600, stat.S_IMODE(os.stat(
            os.path.join(export, nbd_x509.SERVER_KEY)).st_mode))

    def test_backends_sharing_a_root_make_the_same_host_authority(self):
        # Another storage host with a copy of the root CA (and nothing
        # else): its exports for compute-1 trust the certificate this
        # one issued to compute-1.
        other = os.path.join(self.state_path, 'other-tls')
        os.makedirs(other)
        for name in (nbd_x509.CA_CERT, nbd_x509.CA_KEY):
            shutil.copy(self.path(name), os.path.join(other, name))
        second = nbd_x509.Authority(other, ['192.0.2.11'])
        second.setup()
        export = os.path.join(self.state_path, 'export.tls')
        second.export_dir(export, 'compute-1')
        self.authority.ensure_host('compute-1')
        [trusted] = _certs(os.path.join(export, nbd_x509.CA_CERT))
        [cert] = _certs(os.path.join(self.authority.client_dir('compute-1'),
                                     nbd_x509.CLIENT_CERT))
        cert.verify_directly_issued_by(trusted)

    def test_other_roots_make_other_authorities(self):
        other = nbd_x509.Authority(os.path.join(self.state_path, 'o'), [])
        other.setup()
        export = os.path.join(self.state_path, 'export.tls')
        other.export_dir(export, 'compute-1')
        self.authority.ensure_host('compute-1')
        [trusted] = _certs(os.path.join(export, nbd_x509.CA_CERT))
        [cert] = _certs(os.path.join(self.authority.client_dir('compute-1'),
                                     nbd_x509.CLIENT_CERT))
        self.assertRaises(exceptions.InvalidSignature,
                          cert.verify_directly_issued_by, trusted)

    def test_long_host_names_fit_a_common_name(self):
        host = 'c' * 100 + '.example'
        self.authority.ensure_host(host)
        [cert] = _certs(os.path.join(self.authority.client_dir(host),
                                     nbd_x509.CLIENT_CERT))
        name = cert.subject.get_attributes_for_oid(
            oid.NameOID.COMMON_NAME)[0].value
        self.assertTrue(name.startswith('sha256-'))

    def test_bad_host_names_refused(self):
        for bad in ('', '../etc', 'a/b', '.hidden', 'a b', None):
            self.assertRaises(exception.DriverError,
                              self.authority.ensure_host, bad)
