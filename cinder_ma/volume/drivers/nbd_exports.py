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

"""The exports of the nbd driver: their records, their nbdkit daemons
and their supervision (:class:`ExportsMixin`, of
:class:`~cinder_ma.volume.drivers.nbd.NBDDriver`).

The driver records every export in ``nbd_exports_dir`` (a JSON record,
the PSK file nbdkit reads and nbdkit's pidfile, readable by the manager's
user only). nbdkit runs as a daemon (it forks into the background and
writes its pidfile once it listens), in a session of its own: it is not
a child of the manager's process, not in its process group, and nothing
ties it to the manager's lifetime, so that a stop, a crash or an upgrade
of the manager leaves every export serving and its clients connected.
When the manager starts again the driver's ``do_setup`` goes through the
records: an export whose nbdkit still runs is adopted only if it really
serves, that is if ``nbdinfo`` completes an NBD handshake with the
export's own key within ``nbd_probe_timeout`` seconds; otherwise that
process is stopped (by the pid of its pidfile, checked against its
command line) and the export is started again on the same port with the
same key, as is one whose process is gone (a reboot of the host), so
that the hosts' clients reconnect with the connection info they hold.
While the manager runs, a supervisor thread restarts an export whose
nbdkit process died. Exports are stopped only by the pid of their
pidfile, never by a program name (:mod:`.nbd_process`).
"""

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import threading
import time
import urllib.parse

from oslo_log import log as logging

from cinder_ma import exception
from cinder_ma.volume.drivers import nbd_credentials
from cinder_ma.volume.drivers import nbd_process

LOG = logging.getLogger(__name__)

#: The GnuTLS configuration file nbdkit reads, in ``nbd_exports_dir``
#: (see ``nbd_tls_disabled_ciphers``).
GNUTLS_CONFIG = 'gnutls.conf'

#: The longest path of a Unix socket (sockaddr_un's sun_path, less its
#: NUL).
MAX_SOCKET_PATH = 107


class ExportsMixin:
    """The exports of a driver, one nbdkit daemon each, recorded in
    ``nbd_exports_dir``; the driver provides ``configuration`` and
    ``_files`` (the volume files) and, once set up, ``_authority`` (the
    X.509 authority)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._lock = threading.RLock()
        self._exports = {}
        self._stop = threading.Event()
        self._supervisor = None
        # {key: time.monotonic() of its last handshake check}
        self._probed = {}

    @property
    def exports(self):
        """The running exports, {key: :class:`~.nbd_process.Export`}
        (a copy)."""
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
        return nbd_process.Export(key, record, pid,
                                  self._credentials_path(key, record))

    def _credentials_path(self, key, record):
        """The export's PSK file, or (X.509) its certificates
        directory."""
        if nbd_credentials.tls_of(record) == nbd_credentials.TLS_X509:
            return self._export_path(key, nbd_credentials.TLS_DIR_SUFFIX)
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

    # Setup and supervision

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
            nbd_process.kill(pid)
        self._exports.pop(key, None)
        self._exports[key] = self._spawn(key, record)
        LOG.info('Brought back the NBD export of volume %s on port %d',
                 record['volume_id'], record['port'])
        return 'replaced' if pid is not None else 'started'

    def _probe_address(self):
        """Where the manager reaches its own exports."""
        return nbd_credentials.probe_address(self.configuration)

    def serves(self, key, record):
        """Whether the export of ``key`` completes an NBD handshake (TCP,
        TLS with the export's own key, or the certificate of the host it
        is for, the export's name) within ``nbd_probe_timeout``
        seconds."""
        host = self._probe_address()
        if ':' in host:
            host = '[%s]' % host
        if nbd_credentials.tls_of(record) == nbd_credentials.TLS_X509:
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
                     self._export_path(key, nbd_credentials.TLS_DIR_SUFFIX)]
        return pid if any(nbd_process.runs_nbdkit_of(pid, p)
                          for p in paths) else None

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
               nbd_process.credentials_option(
                   self._credentials_path(key, record))]
        if nbd_credentials.tls_of(record) == nbd_credentials.TLS_X509:
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
        if nbd_credentials.tls_of(record) == nbd_credentials.TLS_X509:
            # (Again, after a restart: the server certificate may have
            # been renewed meanwhile.)
            self._authority.export_dir(
                self._export_path(key, nbd_credentials.TLS_DIR_SUFFIX),
                record['host'])
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
            nbd_process.kill(pid)
        raise exception.DriverError(
            reason='nbdkit did not listen on port %d within %d s' % (
                record['port'], timeout))

    def _write_secret_files(self, key, record, identity, secret):
        # (An X.509 export's certificates directory is written when its
        # nbdkit starts: _spawn.)
        if nbd_credentials.tls_of(record) != nbd_credentials.TLS_X509:
            nbd_credentials.write_psk(self._export_path(key, '.psk'),
                                      identity, secret)
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
        shutil.rmtree(
            self._export_path(key, nbd_credentials.TLS_DIR_SUFFIX),
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
            nbd_process.kill(pid)
        self._remove_files(key)

    def _free_ports(self):
        used = {r['port'] for r in self._records().values()}
        return [p for p in range(self.configuration.nbd_port_min,
                                 self.configuration.nbd_port_max + 1)
                if p not in used]

    def _read_psk(self, key, record=None):
        """(identity, secret) of a PSK export; (None, None) for an X.509
        one."""
        if (record is not None and nbd_credentials.tls_of(record) ==
                nbd_credentials.TLS_X509):
            return None, None
        return nbd_credentials.read_psk(self._export_path(key, '.psk'))

