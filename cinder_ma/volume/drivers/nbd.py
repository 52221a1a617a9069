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

The driver records every export in ``nbd_exports_dir`` (a JSON record,
the PSK file nbdkit reads and nbdkit's pidfile, readable by the manager's
user only). nbdkit runs as a daemon (it forks into the background and
writes its pidfile once it listens), in a session of its own: it is not
a child of the manager's process, not in its process group, and nothing
ties it to the manager's lifetime, so that a stop, a crash or an upgrade
of the manager leaves every export serving and its clients connected.
When the manager starts again :meth:`NBDDriver.do_setup` goes through the
records: an export whose nbdkit still runs is adopted only if it really
serves, that is if ``nbdinfo`` completes an NBD handshake with the
export's own key within ``nbd_probe_timeout`` seconds; otherwise that
process is stopped (by the pid of its pidfile, checked against its
command line) and the export is started again on the same port with the
same key, as is one whose process is gone (a reboot of the host), so
that the hosts' clients reconnect with the connection info they hold.
While the manager runs, a supervisor thread restarts an export whose
nbdkit process died. Exports are stopped only by the pid of their
pidfile, never by a program name.

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
listener masks ``connection_info``; this module logs only ids and ports).
"""

import contextlib
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.parse

from oslo_config import cfg
from oslo_config import types
from oslo_log import log as logging

from cinder_ma import exception
from cinder_ma.volume.drivers import base
from cinder_ma.volume.drivers import file as file_driver
from cinder_ma.volume.drivers import nbd_x509

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
#: (see ``nbd_tls_disabled_ciphers``).
GNUTLS_CONFIG = 'gnutls.conf'

#: The driver_volume_type of the connections.
PROTOCOL = 'nbd'

#: Seconds an nbdkit process gets to exit after SIGTERM before it is
#: killed (see :meth:`NBDDriver._kill`).
STOP_GRACE = 1.0

#: The longest path of a Unix socket (sockaddr_un's sun_path, less its
#: NUL).
MAX_SOCKET_PATH = 107
#: The TLS credentials of an export: a pre-shared key of its own, or
#: X.509 certificates (the host's, for QEMU clients started by libvirt).
TLS_PSK = 'psk'
TLS_X509 = 'x509'
#: The connector key with which a host asks for X.509 exports.
CONNECTOR_TLS_KEY = 'nbd_tls'
#: Suffix of an X.509 export's certificates directory.
TLS_DIR_SUFFIX = '.tls'

# What an attachment id may be to name an export's files.
_ID_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$')


def _host_tag(host):
    """A file-name-safe tag of a connector's host name."""
    return hashlib.sha256(host.encode('utf-8')).hexdigest()[:16]


def _alive(pid):
    """Whether process ``pid`` runs (a zombie, which exited and waits for
    its parent to reap it, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open('/proc/%d/stat' % pid) as f:
            # "pid (comm) state ...": comm may hold spaces and parens.
            state = f.read().rpartition(')')[2].split()[0]
    except (OSError, IndexError):
        return True
    return state != 'Z'


def _credentials_option(path):
    """The nbdkit option naming an export's own credentials: its PSK
    file, or (X.509) its certificates directory."""
    if path.endswith(TLS_DIR_SUFFIX):
        return '--tls-certificates=%s' % path
    return '--tls-psk=%s' % path


def _runs_nbdkit_of(pid, credentials):
    """Whether process ``pid`` is a live nbdkit reading the export
    credentials ``credentials`` (the key file, or the certificates
    directory, of one export: pids are reused, the command line
    tells)."""
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as f:
            cmdline = f.read()
    except OSError:
        return False
    return (os.fsencode(_credentials_option(credentials)) in
            cmdline.split(b'\0') and _alive(pid))


class Export:
    """One export: one nbdkit daemon (process ``pid``) serving one
    connection with the credentials ``credentials`` (its PSK file, or
    its X.509 certificates directory)."""

    def __init__(self, key, record, pid, credentials):
        self.key = key
        self.record = record
        self.pid = pid
        self.credentials = credentials

    @property
    def port(self):
        return self.record['port']

    def alive(self):
        return _runs_nbdkit_of(self.pid, self.credentials)


class NBDDriver(base.VolumeDriver):
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
        self._lock = threading.RLock()
        self._exports = {}
        self._stop = threading.Event()
        self._supervisor = None
        # {key: time.monotonic() of its last handshake check}
        self._probed = {}

    @classmethod
    def get_driver_options(cls):
        return list(nbd_opts)

    @property
    def exports(self):
        """The running exports, {key: :class:`Export`} (a copy)."""
        with self._lock:
            return dict(self._exports)

    @contextlib.contextmanager
    def _locked(self):
        """This driver's threads and every other process running a
        driver on the same ``nbd_exports_dir`` (the workers of
        cinder-ma-all) manage exports one at a time."""
        with self._lock:
            fd = os.open(os.path.join(self.exports_dir, '.lock'),
                         os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)

    def _records(self):
        """{key: record} of every export recorded on disk."""
        records = {}
        for name in sorted(os.listdir(self.exports_dir)):
            if not name.endswith('.json'):
                continue
            key = name[:-len('.json')]
            try:
                with open(self._export_path(key, '.json')) as f:
                    records[key] = json.load(f)
            except (OSError, ValueError) as exc:
                LOG.error('Cannot read the NBD export record %s: %s',
                          name, exc)
        return records

    def _ensure(self, key, record):
        """A live export of ``key``: this process's, one another process
        (or an earlier run) started, or a new nbdkit."""
        export = self._exports.get(key)
        if export is not None and export.alive():
            return export
        pid = self._recorded_pid(key)
        if pid is not None:
            export = self._export(key, record, pid)
        else:
            export = self._spawn(key, record)
        self._exports[key] = export
        return export

    def _export(self, key, record, pid):
        return Export(key, record, pid, self._credentials_path(key, record))

    def _credentials_path(self, key, record):
        """The export's PSK file, or (X.509) its certificates
        directory."""
        if _tls_of(record) == TLS_X509:
            return self._export_path(key, TLS_DIR_SUFFIX)
        return self._export_path(key, '.psk')

    # Paths

    @property
    def exports_dir(self):
        return os.path.abspath(self.configuration.nbd_exports_dir)

    def _export_path(self, key, suffix):
        return os.path.join(self.exports_dir, key + suffix)

    def _control_path(self, key):
        """The pause filter's control socket of an export (a short name:
        Unix socket paths are short), or None when even that is too long
        for a socket (the export then cannot be paused)."""
        name = 'p-%s.ctl' % hashlib.sha256(key.encode()).hexdigest()[:24]
        path = os.path.join(self.exports_dir, name)
        return path if len(path.encode()) <= MAX_SOCKET_PATH else None

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

    def _write_gnutls_config(self):
        """Write (or remove) nbdkit's GnuTLS configuration file, from
        ``nbd_tls_disabled_ciphers``."""
        path = os.path.join(self.exports_dir, GNUTLS_CONFIG)
        ciphers = self.configuration.nbd_tls_disabled_ciphers
        if not ciphers:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            return
        text = ('# Written by the cinder_ma nbd driver from '
                'nbd_tls_disabled_ciphers.\n[overrides]\n' +
                ''.join('tls-disabled-cipher = %s\n' % c for c in ciphers))
        tmp = path + '.tmp'
        with open(tmp, 'w') as f:
            f.write(text)
        os.replace(tmp, path)

    def _environment(self):
        """The environment of an nbdkit process."""
        env = dict(os.environ)
        if self.configuration.nbd_tls_disabled_ciphers:
            env['GNUTLS_SYSTEM_PRIORITY_FILE'] = os.path.join(
                self.exports_dir, GNUTLS_CONFIG)
        return env

    def _restore_exports(self):
        """Bring back every recorded export (see the module's doc)."""
        with self._locked():
            for key, record in self._records().items():
                try:
                    self._bring_back(key, record)
                except exception.DriverError as exc:
                    LOG.error('Could not bring back the NBD export of '
                              'volume %s on port %d: %s',
                              record['volume_id'], record['port'], exc)

    def _bring_back(self, key, record, quiet=False):
        """Adopt the running nbdkit of ``key`` if it serves, else start
        one (replacing the one that does not serve) on the same port with
        the same key.

        :returns: 'adopted', 'replaced' or 'started'.
        """
        export = self._exports.get(key)
        pid = export.pid if export is not None and export.alive() else (
            self._recorded_pid(key))
        if pid is not None:
            if self.serves(key, record):
                self._exports[key] = self._export(key, record, pid)
                log = LOG.debug if quiet else LOG.info
                log('NBD export of volume %s on port %d is still served '
                    '(nbdkit process %d)', record['volume_id'],
                    record['port'], pid)
                return 'adopted'
            LOG.warning('The nbdkit process %d of the NBD export of volume '
                        '%s on port %d runs but does not complete an NBD '
                        'handshake within %d s; replacing it',
                        pid, record['volume_id'], record['port'],
                        self.configuration.nbd_probe_timeout)
            self._kill(pid)
        self._exports.pop(key, None)
        self._exports[key] = self._spawn(key, record)
        LOG.info('Brought back the NBD export of volume %s on port %d',
                 record['volume_id'], record['port'])
        return 'replaced' if pid is not None else 'started'

    def _probe_address(self):
        """Where the manager reaches its own exports."""
        return _probe_address(self.configuration)

    def serves(self, key, record):
        """Whether the export of ``key`` completes an NBD handshake (TCP,
        TLS with the export's own key, or the certificate of the host it
        is for, the export's name) within ``nbd_probe_timeout``
        seconds."""
        host = self._probe_address()
        if ':' in host:
            host = '[%s]' % host
        if _tls_of(record) == TLS_X509:
            uri = 'nbds://%s:%d/%s?tls-certificates=%s' % (
                host, record['port'],
                urllib.parse.quote(record['export'], safe=''),
                urllib.parse.quote(
                    self._authority.client_dir(record['host']), safe='/'))
        else:
            identity, _secret = self._read_psk(key)
            uri = 'nbds://%s@%s:%d/%s?tls-psk-file=%s' % (
                urllib.parse.quote(identity, safe=''), host, record['port'],
                urllib.parse.quote(record['export'], safe=''),
                urllib.parse.quote(self._export_path(key, '.psk'),
                                   safe='/'))
        try:
            result = subprocess.run(
                [self.configuration.nbdinfo_path, '--size', uri],
                stdin=subprocess.DEVNULL, capture_output=True,
                timeout=self.configuration.nbd_probe_timeout, check=False)
        except subprocess.TimeoutExpired:
            LOG.warning('The NBD export of volume %s on port %d did not '
                        'complete a handshake within %d s',
                        record['volume_id'], record['port'],
                        self.configuration.nbd_probe_timeout)
            return False
        except OSError as exc:
            raise exception.DriverError(
                reason='cannot run %s: %s' % (
                    self.configuration.nbdinfo_path, exc.strerror))
        if result.returncode != 0:
            LOG.warning('The NBD export of volume %s on port %d did not '
                        'complete a handshake with its own key: %s',
                        record['volume_id'],
                        record['port'], result.stderr.decode(
                            errors='replace').strip()[:300])
            return False
        return True

    def _recorded_pid(self, key):
        """The pid of a live nbdkit serving ``key``, or None."""
        try:
            with open(self._export_path(key, '.pid')) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError):
            return None
        # Only an nbdkit of this export (its own key file or
        # certificates directory on its command line): pids are reused.
        try:
            with open(self._export_path(key, '.json')) as f:
                paths = [self._credentials_path(key, json.load(f))]
        except (OSError, ValueError):
            paths = [self._export_path(key, '.psk'),
                     self._export_path(key, TLS_DIR_SUFFIX)]
        return pid if any(_runs_nbdkit_of(pid, p) for p in paths) else None

    def _start_supervisor(self):
        if self._supervisor is not None:
            return
        self._stop.clear()
        self._supervisor = threading.Thread(
            target=self._supervise, name='nbd-supervisor-%s' % (
                self.configuration.name,), daemon=True)
        self._supervisor.start()

    def stop_supervisor(self):
        """Stop checking the exports (they keep running)."""
        self._stop.set()
        if self._supervisor is not None:
            self._supervisor.join()
            self._supervisor = None

    def _supervise(self):
        while not self._stop.wait(self.configuration.nbd_supervise_interval):
            self.check_exports()
            if self.configuration.nbd_probe_interval:
                self.probe_exports()

    def probe_exports(self, force=False):
        """Replace every export that runs but fails two handshake checks
        in a row (``nbd_probe_interval``; every export when ``force``).

        The first check runs without the lock (it may take
        ``nbd_probe_timeout`` seconds, and connections are made
        meanwhile); the second, under the lock, is
        :meth:`_bring_back`'s.

        :returns: the keys of the exports replaced.
        """
        interval = self.configuration.nbd_probe_interval
        now = time.monotonic()
        replaced = []
        for key, export in self.exports.items():
            if not force and now - self._probed.get(key, 0) < interval:
                continue
            self._probed[key] = time.monotonic()
            try:
                if self.serves(key, export.record):
                    continue
            except (OSError, exception.DriverError):
                # Its files went (terminated meanwhile), or nbdinfo
                # cannot run (do_setup checked it): nothing to decide.
                continue
            with self._locked():
                record = self._records().get(key)
                current = self._exports.get(key)
                if (record is None or current is None or
                        current.pid != export.pid):
                    continue
                try:
                    if self._bring_back(key, record,
                                        quiet=True) != 'adopted':
                        replaced.append(key)
                except exception.DriverError as exc:
                    LOG.error('Could not replace the NBD export of volume '
                              '%s on port %d: %s', record['volume_id'],
                              record['port'], exc)
        for key in set(self._probed) - set(self.exports):
            self._probed.pop(key, None)
        return replaced

    def check_exports(self):
        """Restart every recorded export whose nbdkit process died.

        :returns: the keys of the exports restarted.
        """
        restarted = []
        with self._locked():
            records = self._records()
            for key in list(self._exports):
                if key not in records:
                    # Terminated by another process.
                    del self._exports[key]
            for key, record in records.items():
                export = self._exports.get(key)
                if export is not None and export.alive():
                    continue
                if self._recorded_pid(key) is not None:
                    self._ensure(key, record)
                    continue
                LOG.warning('The nbdkit process of the NBD export of volume '
                            '%s on port %d is gone; restarting it',
                            record['volume_id'], record['port'])
                try:
                    self._ensure(key, record)
                except exception.DriverError as exc:
                    LOG.error('Could not restart the NBD export of volume '
                              '%s: %s', record['volume_id'], exc)
                    continue
                restarted.append(key)
        return restarted

    # nbdkit processes

    def _command(self, key, record, path):
        # No --foreground: nbdkit forks into the background (its parent,
        # this driver's child, exits once it listens) and writes its
        # pidfile, so that the manager's lifetime is not the export's.
        # Its log then goes to syslog; what it prints before it forks
        # (it cannot listen, a bad option) goes to <key>.log.
        cmd = [self.configuration.nbdkit_path, '--log=syslog',
               '--pidfile', self._export_path(key, '.pid'),
               '--ipaddr', self.configuration.nbd_listen_address,
               '--port', str(record['port']),
               '--tls=require',
               _credentials_option(self._credentials_path(key, record))]
        if _tls_of(record) == TLS_X509:
            # Only a certificate signed by the authority of the host the
            # export is for (its ca-cert.pem) completes the handshake.
            cmd.append('--tls-verify-peer')
        cmd.append('--filter=exportname')
        control = self._control_path(key)
        if control is not None:
            # Paused while a snapshot copies the volume (see
            # create_snapshot).
            cmd.append('--filter=pause')
        if record['access_mode'] == 'ro':
            cmd.append('--readonly')
        cmd += ['file', 'file=%s' % path,
                'exportname=%s' % record['export'],
                'exportname-strict=true']
        if control is not None:
            cmd.append('pause-control=%s' % control)
        return cmd

    def _spawn(self, key, record):
        """Start the nbdkit daemon of ``record`` and wait until it
        listens.

        The process this starts, in a session of its own, forks nbdkit's
        daemon and exits once the daemon listens (with an error status if
        it cannot); the daemon writes its pid to ``<key>.pid``. It is not
        this process's child: nothing of the manager's lifetime (its
        exit, a signal to its process group) reaches it.
        """
        path = self._files.path_of(record['volume_name'])
        if not os.path.isfile(path):
            raise exception.DriverError(
                reason='volume file %s does not exist' % path)
        if _tls_of(record) == TLS_X509:
            # (Again, after a restart: the server certificate may have
            # been renewed meanwhile.)
            self._authority.export_dir(
                self._export_path(key, TLS_DIR_SUFFIX), record['host'])
        pidfile = self._export_path(key, '.pid')
        try:
            os.unlink(pidfile)
        except FileNotFoundError:
            pass
        self._remove_control(key)
        log_path = self._export_path(key, '.log')
        timeout = self.configuration.nbd_start_timeout
        with open(log_path, 'ab') as log:
            try:
                starter = subprocess.Popen(
                    self._command(key, record, path),
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                    env=self._environment(), start_new_session=True)
            except OSError as exc:
                raise exception.DriverError(
                    reason='cannot run %s: %s' % (
                        self.configuration.nbdkit_path, exc.strerror))
        deadline = time.monotonic() + timeout
        try:
            status = starter.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            starter.kill()
            starter.wait()
            status = None
        if status is not None and status != 0:
            raise exception.DriverError(
                reason='nbdkit could not serve port %d (exit status %d; '
                       'see %s)' % (record['port'], status, log_path))
        while status is not None:
            pid = self._recorded_pid(key)
            if pid is not None:
                return self._export(key, record, pid)
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        # A daemon that forked but never wrote its pidfile, if any, is
        # found by its command line in <key>.pid only: nothing else is
        # stopped.
        pid = self._recorded_pid(key)
        if pid is not None:
            self._kill(pid)
        raise exception.DriverError(
            reason='nbdkit did not listen on port %d within %d s' % (
                record['port'], timeout))

    @staticmethod
    def _kill(pid):
        """Stop an nbdkit process: SIGTERM, then SIGKILL after
        :data:`STOP_GRACE` seconds.

        At SIGTERM nbdkit shuts its connections down (a client's next
        request fails, nothing more reaches the volume) but it exits
        only once its clients hang up, which a fenced client never
        does: the process is killed then.
        """
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + STOP_GRACE
        while time.monotonic() < deadline:
            if not _alive(pid):
                return
            time.sleep(0.02)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        for _ in range(500):
            if not _alive(pid):
                return
            time.sleep(0.02)

    def _write_secret_files(self, key, record, identity, secret):
        # (An X.509 export's certificates directory is written when its
        # nbdkit starts: _spawn.)
        if _tls_of(record) != TLS_X509:
            psk = self._export_path(key, '.psk')
            fd = os.open(psk, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, 'w') as f:
                f.write('%s:%s\n' % (identity, secret))
        tmp = self._export_path(key, '.json.tmp')
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as f:
            json.dump(record, f)
        os.replace(tmp, self._export_path(key, '.json'))

    def _remove_files(self, key):
        for suffix in ('.json', '.psk', '.pid', '.log', '.json.tmp'):
            try:
                os.unlink(self._export_path(key, suffix))
            except FileNotFoundError:
                pass
        shutil.rmtree(self._export_path(key, TLS_DIR_SUFFIX),
                      ignore_errors=True)
        self._remove_control(key)

    def _remove_control(self, key):
        """Remove an export's pause control socket (a process that
        died leaves it, and the next one could not listen there)."""
        control = self._control_path(key)
        if control is not None:
            try:
                os.unlink(control)
            except FileNotFoundError:
                pass

    def _stop_export(self, key):
        """Stop the export's nbdkit (the pid of its pidfile, checked
        against its command line) and forget the export."""
        self._exports.pop(key, None)
        pid = self._recorded_pid(key)
        if pid is not None:
            self._kill(pid)
        self._remove_files(key)

    def _free_ports(self):
        used = {r['port'] for r in self._records().values()}
        return [p for p in range(self.configuration.nbd_port_min,
                                 self.configuration.nbd_port_max + 1)
                if p not in used]

    def _read_psk(self, key, record=None):
        """(identity, secret) of a PSK export; (None, None) for an X.509
        one."""
        if record is not None and _tls_of(record) == TLS_X509:
            return None, None
        with open(self._export_path(key, '.psk')) as f:
            identity, _, secret = f.read().strip().partition(':')
        return identity, secret

    def _connection_info(self, record, identity, secret):
        cfg_ = self.configuration
        data = {'host': cfg_.nbd_export_host or cfg_.nbd_listen_address,
                'port': record['port'],
                'export': record['export'],
                'access_mode': record['access_mode'],
                'volume_id': record['volume_id']}
        if _tls_of(record) == TLS_X509:
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

    @contextlib.contextmanager
    def _paused(self, volume_id, what):
        """Hold the writes of every export of a volume while the block
        runs: each export is paused (nbdkit's pause filter: requests
        received from then on wait, and the pause is acknowledged once
        those in flight have completed, within
        ``nbd_snapshot_drain_timeout``), and every export is resumed
        afterwards, whatever happened. No new export of the volume starts
        meanwhile (the driver's lock). Yields a dict whose ``seconds``
        is, after the block, how long the exports were held (0.0 without
        exports, None when one could not be paused)."""
        result = {'seconds': None}
        with self._locked():
            keys = sorted(k for k, r in self._records().items()
                          if r['volume_id'] == volume_id)
            paused, consistent = [], True
            started = time.monotonic()
            try:
                for key in keys:
                    control = self._pause(key)
                    if control is None:
                        consistent = False
                    else:
                        paused.append((key, control))
                yield result
            finally:
                for key, control in paused:
                    self._resume(key, control)
                elapsed = time.monotonic() - started
            if keys:
                LOG.info('%s of volume %s: %d export(s) paused for %.3f s%s',
                         what, volume_id, len(paused), elapsed,
                         '' if consistent else
                         ' (some could not be paused: crash-consistent)')
            if consistent:
                result['seconds'] = round(elapsed, 3) if keys else 0.0

    def _pause(self, key):
        """Pause an export and wait until its requests in flight are
        done; returns its control connection (None when the export has
        no pause control: it cannot be paused).

        :raises DriverError: it did not acknowledge within
            ``nbd_snapshot_drain_timeout``.
        """
        path = self._control_path(key)
        if path is None or not os.path.exists(path):
            LOG.warning('The NBD export %s has no pause control (started '
                        'by an older release); a snapshot does not hold '
                        'its writes', key)
            return None
        timeout = self.configuration.nbd_snapshot_drain_timeout
        control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        control.settimeout(timeout)
        try:
            control.connect(path)
            control.sendall(b'p')
            answer = control.recv(1)
        except OSError as exc:
            control.close()
            raise exception.DriverError(
                reason='the NBD export %s did not pause within %d s '
                       '(nbd_snapshot_drain_timeout): %s' % (key, timeout,
                                                              exc))
        if answer != b'P':
            control.close()
            raise exception.DriverError(
                reason='the NBD export %s answered %r to a pause' % (
                    key, answer))
        return control

    def _resume(self, key, control):
        """Resume a paused export; logs what fails (never raises: every
        export is resumed)."""
        try:
            with control:
                control.settimeout(
                    self.configuration.nbd_snapshot_drain_timeout)
                control.sendall(b'r')
                if control.recv(1) != b'R':
                    raise OSError('no acknowledgement')
        except OSError as exc:
            LOG.error('Could not resume the NBD export %s after a '
                      'snapshot: %s; stopping it so that its client '
                      'reconnects', key, exc)
            try:
                self._stop_export(key)
            except Exception:
                LOG.exception('Could not stop the NBD export %s', key)

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
                    _tls_of(record) == tls):
                self._ensure(key, record)
                identity, secret = self._read_psk(key, record)
                return self._connection_info(record, identity, secret)
            if record is not None and attachment_id is None:
                # The host now asks for other credentials (its hypervisor
                # driver changed): its export of the volume is made again.
                self._stop_export(key)
                LOG.info('Stopped the NBD export of volume %s for host %s '
                         '(TLS %s): the host asks for TLS %s', volume.id,
                         host, _tls_of(record), tls)
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
            identity = 'cinder-ma-%s' % secrets.token_hex(8)
            secret = secrets.token_hex(32)
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


def _probe_address(configuration):
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
         _probe_address(configuration)])


def _tls_of(record):
    """The TLS credentials an export record's export requires (records
    of earlier releases: PSK)."""
    return record.get('tls', TLS_PSK)


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
