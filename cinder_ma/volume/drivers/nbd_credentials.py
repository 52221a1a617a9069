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

"""The TLS credentials of the nbd driver's exports.

An export requires either a pre-shared key of its own (TLS-PSK: an
identity and a secret in the export's key file, which nbdkit reads with
``--tls-psk`` and the connection info carries to the host), or the
X.509 client certificate of the host it is for (``nbd_tls: x509``, the
hosts whose QEMU cannot present a PSK): the backend's certificate
authorities are :mod:`cinder_ma.volume.drivers.nbd_x509`'s, built by
:func:`x509_authority` from the backend's configuration.

The PSK secret is a credential: it is never logged.
"""

import os
import secrets

from cinder_ma.volume.drivers import nbd_x509

#: The TLS credentials of an export: a pre-shared key of its own, or
#: X.509 certificates (the host's, for QEMU clients started by libvirt).
TLS_PSK = 'psk'
TLS_X509 = 'x509'
#: The connector key with which a host asks for X.509 exports.
CONNECTOR_TLS_KEY = 'nbd_tls'
#: Suffix of an X.509 export's certificates directory.
TLS_DIR_SUFFIX = '.tls'


def tls_of(record):
    """The TLS credentials an export record's export requires (records
    of earlier releases: PSK)."""
    return record.get('tls', TLS_PSK)


def new_psk():
    """A new (identity, secret) pair for a PSK export."""
    return 'cinder-ma-%s' % secrets.token_hex(8), secrets.token_hex(32)


def write_psk(path, identity, secret):
    """Write a PSK export's key file (nbdkit's ``--tls-psk`` format),
    readable by the manager's user only."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        f.write('%s:%s\n' % (identity, secret))


def read_psk(path):
    """(identity, secret) of the key file ``path``."""
    with open(path) as f:
        identity, _, secret = f.read().strip().partition(':')
    return identity, secret


def probe_address(configuration):
    """Where a storage host reaches its own exports."""
    address = configuration.nbd_listen_address
    if address in ('0.0.0.0', ''):
        return '127.0.0.1'
    if address == '::':
        return '::1'
    return address


def x509_authority(configuration):
    """The :class:`~cinder_ma.volume.drivers.nbd_x509.Authority` of the
    backend of ``configuration`` (call its ``setup()`` before use): its
    server certificate names every address clients and the manager's
    checks connect to."""
    return nbd_x509.Authority(
        configuration.nbd_tls_dir,
        [configuration.nbd_export_host, configuration.nbd_listen_address,
         probe_address(configuration)])
