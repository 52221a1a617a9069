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

"""A network storage driver: volumes as raw files served over NBD.

The reference for a real target. Volumes are sparse raw files in
``nbd_volumes_dir`` on the storage host. Each connection gets its own NBD
export: one ``nbdkit`` process, run and supervised by the storage
manager, listening on ``nbd_listen_address`` at a port of
``[nbd_port_min, nbd_port_max]``, read-only (``nbdkit --readonly``) for a
``ro`` connection, and reachable only with its own TLS-PSK credentials
(``--tls=require --tls-psk``): the export name is checked as well, but it
is not what keeps other clients out.

A host whose connector asks for X.509 (``nbd_tls: x509``: the managers
running the libvirt hypervisor driver, whose QEMU cannot present a PSK)
gets instead an export requiring the client certificate of that host
(``--tls-certificates --tls-verify-peer``, the export trusting that
host's authority alone; see :mod:`cinder_ma.volume.drivers.nbd_x509`),
named ``volume-<id>.<random>`` so that a client of an earlier export of
the host cannot open a later one on the same port.

A connection is one attachment's (``per_attachment_connections``): the
manager names the attachment, and the export, its port and its key are
that attachment's alone, so that one attachment can be cut off without
touching the others of its host (fencing, standby promotion).
:meth:`NBDDriver.terminate_connection` with the attachment's id stops
its export at once: the nbdkit process exits, dropping its open
connections, and the key it required is forgotten, so the old client can
neither go on nor come back. A new connection of the same attachment
(after fencing, or when a standby becomes the writer) ends the earlier
one first and gets a new key (its port is the lowest free one of the
range, usually the old one: the key, not the port, keeps the old client
out).

Managers older than RPC API 1.5 name no attachment: the connection is
then the host's, one per volume, connecting host
(``connector['host']``) and access mode, shared by the attachments of
that host, and the manager calls :meth:`NBDDriver.terminate_connection`
(without an attachment id) when the last of them goes, which stops the
host's exports of the volume made that way.

The exports are recorded in ``nbd_exports_dir``, served by nbdkit
daemons that outlive the manager and adopted when it starts again (see
:mod:`cinder_ma.volume.drivers.nbd_exports`); their credentials are
:mod:`cinder_ma.volume.drivers.nbd_credentials`'s, and a snapshot holds
their writes while it copies the volume
(:mod:`cinder_ma.volume.drivers.nbd_pause`).

``connection_info``::

    {'driver_volume_type': 'nbd',
     'data': {'host': '192.0.2.10', 'port': 10809,
              'export': 'volume-<id>', 'access_mode': 'rw' | 'ro',
              'volume_id': '<id>',
              'tls_psk_identity': '<identity>',
              'tls_psk_secret': '<hex key>'}}

or, for an X.509 export, ``'tls_x509': True`` instead of the two PSK
keys (the host presents its own certificate; nothing secret is sent).

The PSK secret is a credential: it is never logged (the flows' logging
listener masks ``connection_info``; the driver's modules log only ids
and ports).
"""

import hashlib
import os
import re
import secrets
import shutil

from oslo_config import cfg
from oslo_config import types
from oslo_log import log as logging

from cinder_ma import exception
from cinder_ma.volume.drivers import base
from cinder_ma.volume.drivers import file as file_driver
from cinder_ma.volume.drivers import nbd_credentials
from cinder_ma.volume.drivers import nbd_exports
from cinder_ma.volume.drivers import nbd_pause

LOG = logging.getLogger(__name__)

nbd_opts = [
    cfg.StrOpt('nbd_volumes_dir',
               default='$state_path/nbd-volumes',
               help='Directory holding the volume files of a backend using '
                    'the "nbd" driver (local to the storage host).'),
    cfg.StrOpt('nbd_exports_dir',
               default='$state_path/nbd-exports',
               help='Directory where the "nbd" driver records its exports '
                    '(the credentials included, readable by the manager\'s '
                    'user only). It must survive a restart of the host '
                    'for exports to come back with their credentials.'),
    cfg.HostAddressOpt('nbd_listen_address',
                       default='127.0.0.1',
                       help='Address the NBD exports listen on.'),
    cfg.HostAddressOpt('nbd_export_host',
                       help='Address hosts connect to, put in the '
                            'connection info. Defaults to '
                            'nbd_listen_address.'),
    cfg.PortOpt('nbd_port_min',
                default=10809,
                help='Lowest TCP port of an NBD export.'),
    cfg.PortOpt('nbd_port_max',
                default=10999,
                help='Highest TCP port of an NBD export; the range bounds '
                     'how many connections the backend can serve at '
                     'once.'),
    cfg.StrOpt('nbdkit_path',
               default='nbdkit',
               help='The nbdkit program (with its file plugin and '
                    'exportname filter, Debian package nbdkit).'),
    cfg.IntOpt('nbd_supervise_interval',
               default=5, min=1, max=3600,
               help='Seconds between two checks that every export\'s '
                    'nbdkit process is alive (a dead one is restarted).'),
    cfg.ListOpt('nbd_tls_disabled_ciphers',
                item_type=types.String(regex=r'^[A-Z0-9][A-Z0-9-]*$'),
                default=['CHACHA20-POLY1305'],
                help='GnuTLS ciphers the NBD exports refuse. With GnuTLS\'s '
                     'default priority on both ends, QEMU and libnbd '
                     'clients agree with nbdkit on ChaCha20-Poly1305, '
                     'which costs about three times the CPU per byte of '
                     'AES-128-GCM on CPUs with AES instructions; refused, '
                     'every client settles on AES-128-GCM (a client that '
                     'allows only refused ciphers cannot connect). nbdkit '
                     'gets the list as '
                     '"tls-disabled-cipher" overrides in a GnuTLS '
                     'configuration file of its own '
                     '(GNUTLS_SYSTEM_PRIORITY_FILE), which it reads '
                     'instead of the host\'s system-wide one. An empty '
                     'list leaves nbdkit with the host\'s GnuTLS '
                     'configuration.'),
    cfg.StrOpt('nbd_tls_dir',
               default='$state_path/nbd-tls',
               help='Directory of the X.509 credentials of the exports '
                    'made for hosts that ask for them (connector '
                    '"nbd_tls": "x509", which cinder_ma managers running '
                    'the libvirt hypervisor driver send: libvirt\'s QEMU '
                    'cannot present a TLS pre-shared key). It holds the '
                    'backend\'s root CA (ca-cert.pem and ca-key.pem, '
                    'made when missing; put the same pair on every '
                    'storage host whose exports one compute host uses), '
                    'the exports\' server certificate, and per compute '
                    'host an authority derived from the root CA and '
                    'that host\'s client credentials, in '
                    'hosts/<host>/client: the files the host\'s '
                    'nbd_tls_x509_cert_dir (libvirt\'s qemu.conf) must '
                    'hold. Readable by the manager\'s user only.'),
    cfg.IntOpt('nbd_start_timeout',
               default=10, min=1, max=300,
               help='Seconds an nbdkit process may take to start '
                    'listening.'),
    cfg.StrOpt('nbdinfo_path',
               default='nbdinfo',
               help='The nbdinfo program (Debian package libnbd-bin), '
                    'with which the manager checks, when it starts, that '
                    'an export it finds running completes an NBD '
                    'handshake with the export\'s key.'),
    cfg.IntOpt('nbd_probe_interval',
               default=60, min=0, max=86400,
               help='Seconds between two checks, by the running manager, '
                    'that each export completes an NBD handshake with its '
                    'key (nbdinfo); an export that runs but fails two '
                    'checks in a row (hung) is replaced by a new nbdkit '
                    'process on the same port with the same key, so that '
                    'its clients, which would wait for ever on a hung '
                    'server, reconnect. 0 checks only when the manager '
                    'starts.'),
    cfg.IntOpt('nbd_snapshot_drain_timeout',
               default=10, min=1, max=300,
               help='Seconds a snapshot of an exported volume waits for the '
                    'requests in flight on each of its exports to complete '
                    'once the export is paused; an export that does not '
                    'drain within them fails the snapshot (every export is '
                    'resumed at once).'),
    cfg.IntOpt('nbd_probe_timeout',
               default=10, min=1, max=300,
               help='Seconds the check of a running export (connect, TLS '
                    'and NBD handshakes) may take; an export that does '
                    'not answer within them is replaced by a new nbdkit '
                    'process on the same port with the same key.'),
]

#: The GnuTLS configuration file nbdkit reads, in ``nbd_exports_dir``

#: The driver_volume_type of the connections.
PROTOCOL = 'nbd'

# Names of the modules of the driver's roles that the driver uses and
# that other code (cinder-ma-manage, tools, tests) imports from here.
GNUTLS_CONFIG = nbd_exports.GNUTLS_CONFIG
TLS_PSK = nbd_credentials.TLS_PSK
TLS_X509 = nbd_credentials.TLS_X509
CONNECTOR_TLS_KEY = nbd_credentials.CONNECTOR_TLS_KEY
TLS_DIR_SUFFIX = nbd_credentials.TLS_DIR_SUFFIX
x509_authority = nbd_credentials.x509_authority

# What an attachment id may be to name an export's files.
_ID_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$')


def _host_tag(host):
    """A file-name-safe tag of a connector's host name."""
    return hashlib.sha256(host.encode('utf-8')).hexdigest()[:16]


class NBDDriver(nbd_exports.ExportsMixin, nbd_pause.PauseMixin,
                base.VolumeDriver):
    """Raw volume files served over NBD, one nbdkit export per
    connection, with TLS-PSK credentials each."""

    capabilities = base.Capabilities(multiattach=True,
                                     shared_targets=False,
                                     online_extend=True,
                                     per_attachment_connections=True,
                                     snapshots=True,
                                     clone=True,
                                     consistent_snapshots=True)
    vendor_name = 'Open Source'
    driver_version = '1.0.0'
    storage_protocol = PROTOCOL

    def __init__(self, configuration, host):
        super().__init__(configuration, host)
        self._files = file_driver.FileDriver(
            _FilesConfig(configuration), host)

    @classmethod
    def get_driver_options(cls):
        return list(nbd_opts)

    @staticmethod
    def _key(volume_id, host, mode):
        """The key of a host's export (a connection made without an
        attachment id)."""
        return '%s.%s.%s' % (volume_id, _host_tag(host), mode)

    @staticmethod
    def _attachment_key(volume_id, attachment_id):
        """The key of one attachment's export."""
        if not _ID_RE.match(str(attachment_id)):
            raise exception.DriverError(
                reason='attachment id %r cannot name an export' % (
                    attachment_id,))
        return '%s.att-%s' % (volume_id, attachment_id)

    # Setup and supervision

    def do_setup(self):
        self._files.do_setup()
        path = self.exports_dir
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
            os.chmod(path, 0o700)
        except OSError as exc:
            raise exception.DriverError(
                reason='cannot create nbd_exports_dir %s: %s' % (
                    path, exc.strerror))
        cfg_ = self.configuration
        if cfg_.nbd_port_min > cfg_.nbd_port_max:
            raise exception.DriverError(
                reason='nbd_port_min (%d) is above nbd_port_max (%d)' % (
                    cfg_.nbd_port_min, cfg_.nbd_port_max))
        if shutil.which(cfg_.nbdinfo_path) is None:
            raise exception.DriverError(
                reason='nbdinfo_path %s is not a program (libnbd-bin): '
                       'the driver checks with it that the exports it '
                       'finds running serve' % cfg_.nbdinfo_path)
        self._write_gnutls_config()
        self._authority = x509_authority(cfg_)
        self._authority.setup()
        self._restore_exports()
        self._start_supervisor()

    def _connection_info(self, record, identity, secret):
        cfg_ = self.configuration
        data = {'host': cfg_.nbd_export_host or cfg_.nbd_listen_address,
                'port': record['port'],
                'export': record['export'],
                'access_mode': record['access_mode'],
                'volume_id': record['volume_id']}
        if nbd_credentials.tls_of(record) == TLS_X509:
            # The host presents its own certificate (nbd_tls_dir/hosts/
            # <host>/client); nothing secret travels here.
            data['tls_x509'] = True
        else:
            data['tls_psk_identity'] = identity
            data['tls_psk_secret'] = secret
        return {'driver_volume_type': PROTOCOL, 'data': data}

    # The driver interface

    def create_volume(self, volume):
        self._files.create_volume(volume)

    def delete_volume(self, volume):
        with self._locked():
            for key in [k for k, r in self._records().items()
                        if r['volume_id'] == volume.id]:
                self._stop_export(key)
        self._files.delete_volume(volume)

    def extend_volume(self, volume, new_size):
        """Grow the volume's file, also while it is exported: nbdkit
        reads a file's size when a client connects, so a client connected
        before sees the old size (and cannot write past it) until it
        reconnects; one that connects after sees the new size."""
        self._files.extend_volume(volume, new_size)

    def create_snapshot(self, snapshot):
        """A copy of the volume's file (see the file driver) that is one
        point in time for every export of the volume (see
        :meth:`_paused`).

        :returns: how long the exports were paused, in seconds (0.0 for a
            volume without exports), or None when an export could not be
            paused (one started without the pause filter, by an older
            release: the snapshot is then crash-consistent only).
        """
        with self._paused(snapshot.volume.id, 'snapshot %s' % snapshot.id
                          ) as pause:
            self._files.create_snapshot(snapshot)
        return pause['seconds']

    def delete_snapshot(self, snapshot):
        self._files.delete_snapshot(snapshot)

    def create_volume_from_snapshot(self, volume, snapshot):
        self._files.create_volume_from_snapshot(volume, snapshot)

    def create_cloned_volume(self, volume, source):
        """A copy of the source's file, one point in time for all of its
        exports, as a snapshot."""
        with self._paused(source.id, 'clone %s' % volume.id):
            self._files.create_cloned_volume(volume, source)

    def revert_to_snapshot(self, volume, snapshot):
        """The volume's file replaced by a copy of the snapshot's; the
        volume has no attachment, and the exports left of earlier
        connections are stopped first (they would serve the old
        file)."""
        with self._locked():
            for key in [k for k, r in self._records().items()
                        if r['volume_id'] == volume.id]:
                self._stop_export(key)
        self._files.revert_to_snapshot(volume, snapshot)

    def initialize_connection(self, volume, connector, attach_mode,
                              attachment_id=None):
        """Start the export of ``volume`` for the attachment
        ``attachment_id`` in ``attach_mode`` (a new one, with a new key,
        ending the attachment's earlier export); without an attachment id,
        start (or reuse) the export of the host of ``connector`` in that
        mode.

        The export requires the TLS credentials the connector asks for
        (``nbd_tls``): 'psk' (the default), a key of the export's own,
        sent in the connection info; or 'x509', the client certificate of
        the connector's host (made by this backend's CA, see
        :mod:`~cinder_ma.volume.drivers.nbd_x509`)."""
        self.validate_attach_mode(attach_mode)
        host = connector.get('host')
        if not host:
            raise exception.DriverError(
                reason='the connector names no host')
        tls = connector.get(CONNECTOR_TLS_KEY) or TLS_PSK
        if tls not in (TLS_PSK, TLS_X509):
            raise exception.DriverError(
                reason='the connector asks for %s %r; the nbd driver '
                       'serves %s' % (CONNECTOR_TLS_KEY, tls,
                                      ' or '.join((TLS_PSK, TLS_X509))))
        if tls == TLS_X509:
            # Refused here, before an export is made, when the host's
            # name cannot name its credentials.
            self._authority.host_dir(host)
        if attachment_id is not None:
            key = self._attachment_key(volume.id, attachment_id)
        else:
            key = self._key(volume.id, host, attach_mode)
        with self._locked():
            record = self._records().get(key)
            if (record is not None and attachment_id is None and
                    nbd_credentials.tls_of(record) == tls):
                self._ensure(key, record)
                identity, secret = self._read_psk(key, record)
                return self._connection_info(record, identity, secret)
            if record is not None and attachment_id is None:
                # The host now asks for other credentials (its hypervisor
                # driver changed): its export of the volume is made again.
                self._stop_export(key)
                LOG.info('Stopped the NBD export of volume %s for host %s '
                         '(TLS %s): the host asks for TLS %s', volume.id,
                         host, nbd_credentials.tls_of(record), tls)
            elif record is not None:
                # The attachment connects again (reconnected after being
                # fenced, or promoted): its earlier access ends first.
                self._stop_export(key)
                LOG.info('Stopped the earlier NBD export of attachment %s '
                         'of volume %s (port %d)', attachment_id, volume.id,
                         record['port'])
            return self._start_export(volume, key, host, attach_mode,
                                      attachment_id, tls)

    def _start_export(self, volume, key, host, attach_mode, attachment_id,
                      tls=TLS_PSK):
        if tls == TLS_X509:
            identity = secret = None
            # The host's certificate opens every export made for the
            # host: a name of this export's own keeps a client of an
            # earlier export of the host (one fenced, reconnecting on its
            # own) out of whatever export now has its port.
            export = '%s.%s' % (volume.name, secrets.token_hex(8))
        else:
            identity, secret = nbd_credentials.new_psk()
            export = volume.name
        last_error = None
        for port in self._free_ports():
            record = {'volume_id': volume.id,
                      'volume_name': volume.name,
                      'host': host, 'access_mode': attach_mode,
                      'export': export, 'port': port}
            if tls == TLS_X509:
                record['tls'] = TLS_X509
            if attachment_id is not None:
                record['attachment_id'] = attachment_id
            self._write_secret_files(key, record, identity, secret)
            try:
                self._ensure(key, record)
            except exception.DriverError as exc:
                # Most likely the port is taken by another program; try
                # the next one.
                last_error = exc
                self._remove_files(key)
                if not os.path.isfile(self._files.path_of(volume.name)):
                    raise
                continue
            LOG.info('Exported volume %s over NBD on port %d for %s (%s, '
                     'TLS %s%s)',
                     volume.id, port,
                     'attachment %s' % attachment_id if attachment_id
                     else 'host %s' % host, attach_mode,
                     tls, ' certificate of host %s' % host
                     if tls == TLS_X509 else '')
            return self._connection_info(record, identity, secret)
        raise exception.DriverError(
            reason='no free NBD port in %d-%d for volume %s%s' % (
                self.configuration.nbd_port_min,
                self.configuration.nbd_port_max, volume.id,
                ': %s' % last_error if last_error else ''))

    def terminate_connection(self, volume, connector, attachment_id=None):
        """Stop the export of the attachment ``attachment_id`` at once
        (its open connections are dropped, its key is forgotten); without
        an attachment id, the exports of ``volume`` made for the host of
        ``connector`` (both access modes)."""
        if attachment_id is not None:
            key = self._attachment_key(volume.id, attachment_id)
            with self._locked():
                if key in self._exports or os.path.exists(
                        self._export_path(key, '.json')):
                    self._stop_export(key)
                    LOG.info('Stopped the NBD export of attachment %s of '
                             'volume %s', attachment_id, volume.id)
            return
        host = (connector or {}).get('host')
        if not host:
            return
        with self._locked():
            for mode in base.ACCESS_MODES:
                key = self._key(volume.id, host, mode)
                if key in self._exports or os.path.exists(
                        self._export_path(key, '.json')):
                    self._stop_export(key)
                    LOG.info('Stopped the NBD export of volume %s for '
                             'host %s (%s)', volume.id, host, mode)

    def get_stats(self):
        return self._files.get_stats()

    def list_connections(self):
        """The recorded exports, for audits: ``{'volume_id', 'host'}``
        (the connector's host) each, with the ``attachment_id`` of an
        attachment's own export, its ``access_mode`` and ``port``."""
        found = []
        for _key, record in sorted(self._records().items()):
            connection = {'volume_id': record['volume_id'],
                          'host': record['host'],
                          'access_mode': record['access_mode'],
                          'port': record['port']}
            if record.get('attachment_id'):
                connection['attachment_id'] = record['attachment_id']
            found.append(connection)
        return found


class _FilesConfig:
    """The backend's configuration as the file driver it delegates the
    volume files to reads it."""

    def __init__(self, configuration):
        self._configuration = configuration

    @property
    def file_volumes_dir(self):
        return self._configuration.nbd_volumes_dir

    def __getattr__(self, key):
        if key.startswith('_'):
            raise AttributeError(key)
        return getattr(self._configuration, key)
