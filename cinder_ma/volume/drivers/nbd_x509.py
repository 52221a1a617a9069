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

"""The X.509 credentials of the nbd driver's exports, for QEMU clients
started by libvirt (which cannot present a TLS pre-shared key).

libvirt gives QEMU one directory of client credentials per compute host
(``nbd_tls_x509_cert_dir`` in qemu.conf), and nbdkit 1.32 with
``--tls-verify-peer`` checks only that a client's certificate is signed
by a certificate of its ``ca-cert.pem``: it cannot look at the client's
name. So what a certificate may open is decided by who signed it:

- The backend's **root CA** (``ca-cert.pem``/``ca-key.pem`` in
  ``nbd_tls_dir``, made on first use or put there by the operator)
  signs the exports' **server certificate** and one **host authority**
  per compute host.
- A compute host's **host authority** (an intermediate CA) signs that
  host's **client certificate**. Its key is derived from the root key and
  the host's name (HKDF-SHA256), so every backend holding the same root
  CA makes the same authority, and a host's one client certificate opens
  the exports of all of them.
- An export made for an attachment of host H trusts H's host authority
  only (its ``ca-cert.pem``): H's client certificate is accepted, the
  certificate of any other host (signed by another authority) is
  refused during the TLS handshake.

The client credentials of host H (``ca-cert.pem`` with the root CA and
H's authority, ``client-cert.pem``, ``client-key.pem``) are kept in
``nbd_tls_dir/hosts/<H>/client``: that directory is what the operator
copies to H's ``nbd_tls_x509_cert_dir``.
"""

import contextlib
import datetime
import fcntl
import hashlib
import ipaddress
import os
import re
import secrets

from cryptography import exceptions as crypto_exceptions
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf import hkdf
from cryptography.hazmat.primitives import serialization
from cryptography import x509
from cryptography.x509 import oid

from cinder_ma import exception

#: Files of an nbdkit (server) or QEMU/libnbd (client) credentials
#: directory, as both name them.
CA_CERT = 'ca-cert.pem'
CA_KEY = 'ca-key.pem'
SERVER_CERT = 'server-cert.pem'
SERVER_KEY = 'server-key.pem'
CLIENT_CERT = 'client-cert.pem'
CLIENT_KEY = 'client-key.pem'
#: The host authority's certificate, in ``hosts/<host>``.
AUTHORITY_CERT = 'authority-cert.pem'

#: Days the root CA, the host authorities and every certificate they
#: sign are valid.
VALID_DAYS = 3650

#: What a compute host's name may be to name its credentials directory.
HOST_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$')

_ORGANIZATION = 'cinder_ma nbd'
_CURVE = ec.SECP256R1()
# The order of P-256, for deriving a private key from HKDF output.
_P256_ORDER = int('FFFFFFFF00000000FFFFFFFFFFFFFFFF'
                  'BCE6FAADA7179E84F3B9CAC2FC632551', 16)


def _error(reason):
    return exception.DriverError(reason='X.509 credentials: %s' % reason)


def _name(common_name, unit):
    return x509.Name([
        x509.NameAttribute(oid.NameOID.ORGANIZATION_NAME, _ORGANIZATION),
        x509.NameAttribute(oid.NameOID.ORGANIZATIONAL_UNIT_NAME, unit),
        x509.NameAttribute(oid.NameOID.COMMON_NAME, common_name[:64])])


def _common_name(host):
    # A CN holds at most 64 characters; longer host names are named by a
    # digest (the directory keeps the whole name).
    return host if len(host) <= 64 else 'sha256-%s' % (
        hashlib.sha256(host.encode('utf-8')).hexdigest()[:32])


def _write(path, data, private=False):
    tmp = path + '.tmp'
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                 0o600 if private else 0o644)
    with os.fdopen(fd, 'wb') as f:
        f.write(data)
    os.replace(tmp, path)


def _pem(cert):
    return cert.public_bytes(serialization.Encoding.PEM)


def _key_pem(key):
    return key.private_bytes(serialization.Encoding.PEM,
                             serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _load_cert(path):
    with open(path, 'rb') as f:
        return x509.load_pem_x509_certificate(f.read())


def _load_key(path):
    with open(path, 'rb') as f:
        return serialization.load_pem_private_key(f.read(), password=None)


def _signed_by(cert, issuer):
    try:
        cert.verify_directly_issued_by(issuer)
    except (ValueError, TypeError, crypto_exceptions.InvalidSignature):
        return False
    return True


def _still_valid(cert, margin_days=30):
    return cert.not_valid_after_utc - datetime.timedelta(
        days=margin_days) > datetime.datetime.now(datetime.UTC)


def _certificate(subject, public_key, issuer_cert, issuer_key, ca=False,
                 purpose=None, names=()):
    """A certificate of ``public_key`` for ``subject`` signed by
    ``issuer_key`` (self-signed when ``issuer_cert`` is None)."""
    now = datetime.datetime.now(datetime.UTC)
    issuer = subject if issuer_cert is None else issuer_cert.subject
    builder = (x509.CertificateBuilder()
               .subject_name(subject)
               .issuer_name(issuer)
               .public_key(public_key)
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
               .add_extension(x509.BasicConstraints(
                   ca=ca, path_length=None if issuer_cert is None and ca
                   else 0 if ca else None), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(
                   public_key), critical=False))
    if issuer_cert is not None:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(
                issuer_cert.public_key()), critical=False)
    if ca:
        usage = dict(key_cert_sign=True, crl_sign=True,
                     digital_signature=False, key_encipherment=False)
    else:
        # QEMU's checks of a certificate want both.
        usage = dict(key_cert_sign=False, crl_sign=False,
                     digital_signature=True, key_encipherment=True)
    builder = builder.add_extension(x509.KeyUsage(
        content_commitment=False, data_encipherment=False,
        key_agreement=False, encipher_only=False, decipher_only=False,
        **usage), critical=True)
    if purpose is not None:
        builder = builder.add_extension(
            x509.ExtendedKeyUsage([purpose]), critical=False)
    if names:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(list(names)), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _general_name(address):
    try:
        return x509.IPAddress(ipaddress.ip_address(address))
    except ValueError:
        return x509.DNSName(address)


class Authority:
    """The root CA of one nbd backend (in ``directory``) and what it
    issues.

    :param directory: ``nbd_tls_dir``.
    :param server_names: the addresses and host names clients connect
        to (the server certificate's subject alternative names).
    """

    def __init__(self, directory, server_names):
        self.directory = os.path.abspath(directory)
        self.server_names = sorted({n for n in server_names if n})

    def _path(self, *parts):
        return os.path.join(self.directory, *parts)

    @contextlib.contextmanager
    def _locked(self):
        """One process at a time makes credentials in the directory (the
        manager's workers, ``cinder-ma-manage nbd credentials``): a key
        and its certificate are two files."""
        fd = os.open(self._path('.lock'), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def setup(self):
        """Make the directory, the root CA (unless there is one) and a
        server certificate for :attr:`server_names` (unless the one there
        names them, is signed by the root CA and is not about to
        expire)."""
        try:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            os.chmod(self.directory, 0o700)
        except OSError as exc:
            raise _error('cannot create nbd_tls_dir %s: %s' % (
                self.directory, exc.strerror))
        with self._locked():
            self._setup()

    def _setup(self):
        cert_path, key_path = self._path(CA_CERT), self._path(CA_KEY)
        if os.path.exists(cert_path) != os.path.exists(key_path):
            raise _error('%s holds only one of %s and %s' % (
                self.directory, CA_CERT, CA_KEY))
        if not os.path.exists(cert_path):
            key = ec.generate_private_key(_CURVE)
            # A name of its own: roots made by different backends are
            # told apart by name, not only by key.
            cert = _certificate(
                _name('root CA %s' % secrets.token_hex(8), 'root CA'),
                key.public_key(), None, key, ca=True)
            _write(key_path, _key_pem(key), private=True)
            _write(cert_path, _pem(cert))
        try:
            self._root_cert = _load_cert(cert_path)
            self._root_key = _load_key(key_path)
        except (OSError, ValueError) as exc:
            raise _error('cannot read the root CA of %s: %s' % (
                self.directory, exc))
        self._ensure_server()

    def _ensure_server(self):
        cert_path, key_path = self._path(SERVER_CERT), self._path(SERVER_KEY)
        wanted = {_general_name(n) for n in self.server_names}
        try:
            cert = _load_cert(cert_path)
            _load_key(key_path)
            names = set(cert.extensions.get_extension_for_class(
                x509.SubjectAlternativeName).value)
            if (names == wanted and _signed_by(cert, self._root_cert) and
                    _still_valid(cert)):
                return
        except (OSError, ValueError, x509.ExtensionNotFound):
            pass
        key = ec.generate_private_key(_CURVE)
        cert = _certificate(
            _name(self.server_names[0] if self.server_names else 'nbd',
                  'server'),
            key.public_key(), self._root_cert, self._root_key,
            purpose=oid.ExtendedKeyUsageOID.SERVER_AUTH,
            names=[_general_name(n) for n in self.server_names])
        _write(key_path, _key_pem(key), private=True)
        _write(cert_path, _pem(cert))

    # Host authorities

    def _host_key(self, host):
        """The private key of ``host``'s authority: derived from the root
        key and the host's name, the same on every backend holding the
        same root CA."""
        secret = self._root_key.private_bytes(
            serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption())
        okm = hkdf.HKDF(algorithm=hashes.SHA256(), length=48, salt=None,
                        info=b'cinder_ma nbd host authority\0' +
                        host.encode('utf-8')).derive(secret)
        scalar = int.from_bytes(okm, 'big') % (_P256_ORDER - 1) + 1
        return ec.derive_private_key(scalar, _CURVE)

    def host_dir(self, host):
        """``nbd_tls_dir/hosts/<host>``.

        :raises DriverError: the host's name cannot name a directory.
        """
        if not isinstance(host, str) or not HOST_RE.match(host):
            raise _error('host name %r cannot name a credentials '
                         'directory' % (host,))
        return self._path('hosts', host)

    def client_dir(self, host):
        """The directory of ``host``'s client credentials (what its
        ``nbd_tls_x509_cert_dir`` must hold)."""
        return os.path.join(self.host_dir(host), 'client')

    def ensure_host(self, host):
        """Make ``host``'s authority and client credentials unless they
        are there (and signed by the root CA and by that authority).

        :returns: the host authority's certificate (PEM).
        """
        directory = self.host_dir(host)
        with self._locked():
            return self._ensure_host(host, directory)

    def _ensure_host(self, host, directory):
        client = self.client_dir(host)
        os.makedirs(client, mode=0o700, exist_ok=True)
        key = self._host_key(host)
        subject = _name(_common_name(host), 'host authority')
        authority_path = os.path.join(directory, AUTHORITY_CERT)
        authority = None
        try:
            authority = _load_cert(authority_path)
        except (OSError, ValueError):
            pass
        if (authority is None or authority.subject != subject or
                authority.public_key() != key.public_key() or
                not _signed_by(authority, self._root_cert) or
                not _still_valid(authority)):
            authority = _certificate(subject, key.public_key(),
                                     self._root_cert, self._root_key,
                                     ca=True)
            _write(authority_path, _pem(authority))
        cert_path = os.path.join(client, CLIENT_CERT)
        key_path = os.path.join(client, CLIENT_KEY)
        try:
            cert = _load_cert(cert_path)
            _load_key(key_path)
            current = _signed_by(cert, authority) and _still_valid(cert)
        except (OSError, ValueError):
            current = False
        if not current:
            client_key = ec.generate_private_key(_CURVE)
            cert = _certificate(
                _name(_common_name(host), 'client'), client_key.public_key(),
                authority, key, purpose=oid.ExtendedKeyUsageOID.CLIENT_AUTH)
            _write(key_path, _key_pem(client_key), private=True)
            _write(cert_path, _pem(cert))
        # The client's trust: the root CA (it signs the server
        # certificate) and the host's authority (QEMU checks that its own
        # certificate chains to a CA of this file).
        _write(os.path.join(client, CA_CERT),
               _pem(self._root_cert) + _pem(authority))
        return _pem(authority)

    def export_dir(self, path, host):
        """Write the credentials of an nbdkit export for an attachment
        of ``host`` into the directory ``path`` (nbdkit's
        ``--tls-certificates``): the server certificate and key, and as
        ``ca-cert.pem`` the authority of ``host`` alone."""
        directory = self.host_dir(host)
        with self._locked():
            authority = self._ensure_host(host, directory)
            os.makedirs(path, mode=0o700, exist_ok=True)
            with open(self._path(SERVER_CERT), 'rb') as f:
                _write(os.path.join(path, SERVER_CERT), f.read())
            with open(self._path(SERVER_KEY), 'rb') as f:
                _write(os.path.join(path, SERVER_KEY), f.read(),
                       private=True)
            _write(os.path.join(path, CA_CERT), authority)
