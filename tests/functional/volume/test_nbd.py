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

"""The NBD driver with real nbdkit exports and real NBD clients.

``qemu-io`` (qemu-utils) reads and writes through an export with TLS-PSK
credentials, as a hypervisor's NBD client does; ``nbdinfo`` (libnbd-bin)
probes exports. Skipped when the programs are absent, unless
``CINDER_MA_REQUIRE_SERVICES=1``.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

from cinder_ma.conf import backend as backend_conf
from cinder_ma.volume.drivers import base as driver_base
from cinder_ma.volume.drivers import nbd
from cinder_ma.volume.drivers import nbd_process
from tests import base
from tests import fixtures as cm_fixtures
from tests.functional import fixtures as functional_fixtures

PROGRAMS = ('nbdkit', 'qemu-io', 'nbdinfo')


def require_programs(test):
    """Skip ``test`` (fail it where CI requires services) unless the NBD
    programs are installed."""
    missing = [p for p in PROGRAMS if shutil.which(p) is None]
    if missing:
        cm_fixtures.skip_or_fail(
            test, 'NBD programs missing: %s' % ', '.join(missing))
VOLUME_ID = '5c0e4a7e-6f2b-4f8e-9a61-2b7f4c1d9e01'


#: A GnuTLS priority allowing ChaCha20-Poly1305 as the only cipher.
CHACHA20_ONLY = ('NORMAL:-AES-128-GCM:-AES-256-GCM:-AES-128-CCM:-AES-256-CCM:'
                 '-AES-128-CBC:-AES-256-CBC:-CAMELLIA-128-GCM:'
                 '-CAMELLIA-256-GCM:-CAMELLIA-128-CBC:-CAMELLIA-256-CBC:'
                 '-3DES-CBC')


def client_args(info, directory, priority=None, reconnect_delay=None,
                open_timeout=None):
    """qemu-io arguments opening the export of ``info`` with its TLS-PSK
    credentials (the key file written in ``directory``), with GnuTLS
    ``priority`` if given, and QEMU's NBD ``reconnect-delay`` and
    ``open-timeout`` (seconds) if given."""
    data = info['data']
    os.makedirs(directory, exist_ok=True)
    fd = os.open(os.path.join(directory, 'keys.psk'),
                 os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        f.write('%s:%s\n' % (data['tls_psk_identity'],
                             data['tls_psk_secret']))
    return ['--object',
            'tls-creds-psk,id=tls0,endpoint=client,dir=%s,username=%s%s' % (
                directory, data['tls_psk_identity'],
                ',priority=%s' % priority if priority else ''),
            '--image-opts',
            'driver=raw,file.driver=nbd,file.host=%s,file.port=%d,'
            'file.export=%s,file.tls-creds=tls0%s%s' % (
                data['host'], data['port'], data['export'],
                ',file.reconnect-delay=%d' % reconnect_delay
                if reconnect_delay is not None else '',
                ',file.open-timeout=%d' % open_timeout
                if open_timeout is not None else '')]


#: A libnbd client (run by the system's python3, which has Debian's
#: python3-libnbd) that writes to a read-only export anyway; prints
#: what each request got as JSON.
LIBNBD_CLIENT = """
import json, sys
import nbd
host, port, export, identity, psk = sys.argv[1:]
h = nbd.NBD()
h.set_tls(nbd.TLS_REQUIRE)
h.set_tls_psk_file(psk)
h.set_tls_username(identity)
h.set_export_name(export)
h.connect_tcp(host, port)
seen = {'read_only': bool(h.is_read_only())}
def attempt(name, call):
    try:
        call()
        seen[name] = 'ok'
    except nbd.Error as exc:
        seen[name] = exc.errno or str(exc)
attempt('strict write', lambda: h.pwrite(b'x' * 4096, 0))
h.set_strict_mode(0)
attempt('read', lambda: h.pread(4096, 0))
attempt('zero', lambda: h.zero(4096, 0))
attempt('trim', lambda: h.trim(4096, 0))
attempt('write', lambda: h.pwrite(b'x' * 4096, 0))
attempt('read after the write', lambda: h.pread(4096, 0))
print(json.dumps(seen))
"""


def wait_gone(pid, timeout=10):
    """Wait until process ``pid`` (an nbdkit daemon: not a child of the
    test, so not waited for) has exited."""
    deadline = time.monotonic() + timeout
    while nbd_process.alive(pid):
        if time.monotonic() > deadline:
            raise AssertionError('process %d still runs' % pid)
        time.sleep(0.02)


def kill(pid):
    """SIGKILL an nbdkit daemon and wait until it is gone."""
    os.kill(pid, signal.SIGKILL)
    wait_gone(pid)


def export_daemons(exports_dir):
    """The live nbdkit daemons serving the exports of ``exports_dir``:
    ``(recorded, unrecorded)`` sets of process ids, those its pidfiles
    name (checked against their command lines: pids are reused), and any
    other nbdkit whose command line names a file of that directory (one
    whose record is gone: a leak)."""
    exports_dir = os.path.abspath(exports_dir)
    recorded = set()
    try:
        names = os.listdir(exports_dir)
    except FileNotFoundError:
        names = []
    for name in names:
        if not name.endswith('.pid'):
            continue
        key = os.path.join(exports_dir, name[:-len('.pid')])
        try:
            with open(key + '.pid') as f:
                pid = int(f.read().strip())
        except (OSError, ValueError):
            continue
        if any(nbd_process.runs_nbdkit_of(pid, key + suffix)
               for suffix in ('.psk', nbd.TLS_DIR_SUFFIX)):
            recorded.add(pid)
    unrecorded = set()
    mark = os.fsencode(exports_dir + os.sep)
    for entry in os.listdir('/proc'):
        if not entry.isdigit() or int(entry) in recorded:
            continue
        try:
            with open('/proc/%s/cmdline' % entry, 'rb') as f:
                args = f.read().split(b'\0')
        except OSError:
            continue
        if os.path.basename(args[0]) == b'nbdkit' and \
                any(mark in arg for arg in args[1:]) and \
                nbd_process.alive(int(entry)):
            unrecorded.add(int(entry))
    return recorded, unrecorded


def stop_exports(exports_dir):
    """SIGKILL every nbdkit daemon serving an export of ``exports_dir``
    (see :func:`export_daemons`), by its process id, and wait until they
    are gone: exports outlive their manager on purpose, so a test that
    made them through a manager stops them itself."""
    recorded, unrecorded = export_daemons(exports_dir)
    for pid in recorded | unrecorded:
        try:
            kill(pid)
        except ProcessLookupError:
            pass


class NBDTestBase(base.TestCase):
    """A driver of a backend 'nbd' on free ports, one volume, and a real
    NBD client (qemu-io) to use its exports."""

    def setUp(self):
        super().setUp()
        require_programs(self)
        self.config = backend_conf.BackendConfig(
            self.conf, 'nbd', nbd.NBDDriver.get_driver_options())
        first = functional_fixtures.free_port()
        self.conf.set_override('nbd_port_min', first, group='backend_defaults')
        self.conf.set_override('nbd_port_max', min(first + 40, 65535),
                               group='backend_defaults')
        self.conf.set_override('nbd_supervise_interval', 3600,
                               group='backend_defaults')
        self.driver = self._driver()
        self.volume = driver_base.VolumeRef.for_volume(
            VOLUME_ID, 1, multiattach=True, host='testhost@nbd#nbd')
        self.driver.create_volume(self.volume)
        self.addCleanup(self._stop_all)

    def _driver(self):
        driver = nbd.NBDDriver(configuration=self.config,
                               host='testhost@nbd')
        driver.do_setup()
        self.addCleanup(driver.stop_supervisor)
        return driver

    def _stop_all(self):
        # Exports outlive a driver object on purpose (as they outlive a
        # manager); stop every nbdkit this test started.
        stop_exports(self.driver.exports_dir)

    def connect(self, host, mode):
        return self.driver.initialize_connection(
            self.volume, {'host': host}, mode)

    def qemu_io(self, info, *commands, name=None, read_only=False,
                priority=None):
        directory = os.path.join(self.state_path, 'client-%s' % (
            name or info['data']['tls_psk_identity']))
        argv = ['qemu-io'] + (['-r'] if read_only else []) + client_args(
            info, directory, priority)
        for command in commands:
            argv += ['-c', command]
        result = subprocess.run(argv, capture_output=True, text=True,
                                timeout=60)
        return result.returncode, result.stdout + result.stderr

    def assertIO(self, info, *commands):
        # A hypervisor opens an ro attachment's disk read-only.
        code, out = self.qemu_io(
            info, *commands,
            read_only=info['data']['access_mode'] == 'ro')
        self.assertEqual(0, code, out)
        self.assertNotIn('failed', out)
        self.assertNotIn('Pattern verification failed', out)
        return out


class NBDDataPathTestCase(NBDTestBase):

    def test_connection_info(self):
        info = self.connect('host-a', 'rw')
        self.assertEqual('nbd', info['driver_volume_type'])
        data = info['data']
        self.assertEqual('127.0.0.1', data['host'])
        self.assertEqual('volume-' + VOLUME_ID, data['export'])
        self.assertEqual('rw', data['access_mode'])
        self.assertEqual(64, len(data['tls_psk_secret']))
        # The same host and mode get the same export back.
        self.assertEqual(info, self.connect('host-a', 'rw'))
        other = self.connect('host-b', 'rw')
        self.assertNotEqual(data['port'], other['data']['port'])
        self.assertNotEqual(data['tls_psk_secret'],
                            other['data']['tls_psk_secret'])

    def test_two_writers_see_each_others_writes(self):
        a = self.connect('host-a', 'rw')
        b = self.connect('host-b', 'rw')
        self.assertIO(a, 'write -P 0xa1 0 64k')
        self.assertIO(b, 'read -P 0xa1 0 64k', 'write -P 0xb2 64k 64k')
        self.assertIO(a, 'read -P 0xb2 64k 64k', 'read -P 0xa1 0 64k')

    def test_read_only_reads_and_cannot_write(self):
        writer = self.connect('host-a', 'rw')
        reader = self.connect('host-c', 'ro')
        self.assertIO(writer, 'write -P 0x5a 0 1M')
        self.assertIO(reader, 'read -P 0x5a 0 1M')
        # A client that asks to write is refused by the target: the
        # export says it is read-only (nbdkit --readonly), so QEMU's open
        # for writing fails with EPERM before any request is sent.
        code, out = self.qemu_io(reader, 'write -P 0x11 0 4k')
        self.assertNotEqual(0, code, out)
        self.assertIn("can't open: Could not open image: Permission denied",
                      out)
        # Opened read-only (a hypervisor's ro disk), a write is refused
        # with EPERM and the connection goes on serving reads.
        code, out = self.qemu_io(reader, 'read -P 0x5a 0 4k',
                                 'write -P 0x11 0 4k', 'aio_write 0 4k',
                                 'aio_flush', 'read -P 0x5a 4k 4k',
                                 read_only=True)
        self.assertEqual(2, out.count('read 4096/4096'), out)
        self.assertIn('Block node is read-only', out)
        self.assertNotIn('wrote', out)
        self.assertIO(writer, 'read -P 0x5a 0 1M')

    def test_read_only_refusal_seen_by_a_client_ignoring_the_flag(self):
        """What a client that writes to an ro export anyway sees, with
        libnbd's Python binding (python3-libnbd) and its strict mode off:
        EPERM for every write-zeroes and trim, EPERM (or a lost
        connection) for the first write, after which the connection is
        lost (with TLS, nbdkit 1.32's error
        path skips the refused write's data outside TLS). If this
        test fails, nbdkit changed: docs/admin/nbd-driver.rst says what
        a client sees."""
        python = '/usr/bin/python3'
        if subprocess.run([python, '-c', 'import nbd'],
                          capture_output=True).returncode:
            cm_fixtures.skip_or_fail(self, 'python3-libnbd is missing')
        writer = self.connect('host-a', 'rw')
        reader = self.connect('host-c', 'ro')
        self.assertIO(writer, 'write -P 0x5a 0 64k')
        data = reader['data']
        psk = os.path.join(self.state_path, 'libnbd.psk')
        fd = os.open(psk, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as f:
            f.write('%s:%s\n' % (data['tls_psk_identity'],
                                 data['tls_psk_secret']))
        result = subprocess.run(
            [python, '-c', LIBNBD_CLIENT, data['host'], str(data['port']),
             data['export'], data['tls_psk_identity'], psk],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(0, result.returncode, result.stderr)
        seen = json.loads(result.stdout)
        # The write is refused, and the TLS stream is broken: the write
        # gets EPERM (or ENOTCONN when the connection broke before the
        # reply was read) and the next request a TLS error, ENOTCONN or
        # EINVAL (the handle closed), depending on when libnbd notices.
        for request in ('write', 'read after the write'):
            self.assertNotEqual('ok', seen.pop(request), request)
        self.assertEqual(
            {'read_only': True,
             'strict write': 'EPERM',
             'read': 'ok',
             'zero': 'EPERM',
             'trim': 'EPERM'}, seen)
        self.assertIO(writer, 'read -P 0x5a 0 64k')

    def test_other_credentials_refused(self):
        a = self.connect('host-a', 'rw')
        b = self.connect('host-b', 'rw')
        # b's credentials against a's export (same name, other key).
        stolen = {'driver_volume_type': 'nbd',
                  'data': dict(a['data'],
                               tls_psk_identity=b['data']['tls_psk_identity'],
                               tls_psk_secret=b['data']['tls_psk_secret'])}
        code, out = self.qemu_io(stolen, 'read 0 4k', name='stolen')
        self.assertNotEqual(0, code)
        self.assertNotIn('read 4096/4096', out)
        # Knowing the key without the identity does not do either.
        guessed = {'driver_volume_type': 'nbd',
                   'data': dict(a['data'], tls_psk_identity='cinder-ma-x')}
        code, out = self.qemu_io(guessed, 'read 0 4k', name='guessed')
        self.assertNotIn('read 4096/4096', out)

    def test_exports_refuse_the_disabled_ciphers(self):
        # nbd_tls_disabled_ciphers (ChaCha20-Poly1305 by default) reach
        # nbdkit: a client that allows ChaCha20 only is
        # refused, one with GnuTLS's default priority gets in.
        a = self.connect('host-a', 'rw')
        code, out = self.qemu_io(a, 'read 0 4k', priority=CHACHA20_ONLY)
        self.assertNotEqual(0, code, out)
        self.assertIn('TLS handshake failed', out)
        self.assertIO(a, 'read 0 4k')
        # With an empty list nbdkit keeps the host's GnuTLS defaults.
        self.conf.set_override('nbd_tls_disabled_ciphers', [],
                               group='backend_defaults')
        driver = self._driver()
        self.assertFalse(os.path.exists(
            os.path.join(driver.exports_dir, nbd.GNUTLS_CONFIG)))
        b = driver.initialize_connection(self.volume, {'host': 'host-b'},
                                         'rw')
        code, out = self.qemu_io(b, 'read 0 4k', priority=CHACHA20_ONLY)
        self.assertEqual(0, code, out)
        self.assertIn('read 4096/4096', out)

    def test_plain_nbd_refused(self):
        a = self.connect('host-a', 'rw')
        result = subprocess.run(
            ['nbdinfo', 'nbd://127.0.0.1:%d/%s' % (a['data']['port'],
                                                   a['data']['export'])],
            capture_output=True, text=True, timeout=60)
        self.assertNotEqual(0, result.returncode)

    def test_terminate_stops_the_exports(self):
        rw = self.connect('host-a', 'rw')
        ro = self.connect('host-a', 'ro')
        keep = self.connect('host-b', 'rw')
        self.driver.terminate_connection(self.volume, {'host': 'host-a'})
        for info in (rw, ro):
            code, out = self.qemu_io(info, 'read 0 4k')
            self.assertNotEqual(0, code, out)
        self.assertIO(keep, 'read 0 4k')
        self.assertEqual(
            [], [n for n in os.listdir(self.driver.exports_dir)
                 if n.startswith(VOLUME_ID) and
                 nbd._host_tag('host-a') in n])
        # Idempotent.
        self.driver.terminate_connection(self.volume, {'host': 'host-a'})

    def test_manager_restart_brings_exports_back(self):
        rw = self.connect('host-a', 'rw')
        ro = self.connect('host-c', 'ro')
        self.assertIO(rw, 'write -P 0x42 0 64k')
        # The storage host restarts: every nbdkit is gone, and a new
        # manager (a new driver object) starts.
        self.driver.stop_supervisor()
        for export in list(self.driver.exports.values()):
            kill(export.pid)
        code, out = self.qemu_io(rw, 'read 0 4k')
        self.assertNotEqual(0, code, out)
        self.driver = self._driver()
        # The clients reconnect with the connection info they hold.
        self.assertIO(rw, 'read -P 0x42 0 64k', 'write -P 0x43 64k 4k')
        self.assertIO(ro, 'read -P 0x43 64k 4k')
        code, out = self.qemu_io(ro, 'write 0 4k')
        self.assertIn('Permission denied', out)

    def test_manager_restart_adopts_running_exports(self):
        rw = self.connect('host-a', 'rw')
        pids = sorted(e.pid for e in self.driver.exports.values())
        self.driver.stop_supervisor()
        restarted = self._driver()
        self.assertEqual(
            pids, sorted(e.pid for e in restarted.exports.values()))
        self.assertIO(rw, 'write -P 0x07 0 4k', 'read -P 0x07 0 4k')
        restarted.terminate_connection(self.volume, {'host': 'host-a'})
        code, out = self.qemu_io(rw, 'read 0 4k')
        self.assertNotEqual(0, code, out)

    def test_drivers_of_several_processes_share_the_exports(self):
        # The workers of cinder-ma-all each run a driver on the same
        # exports directory.
        other = self._driver()
        rw = self.connect('host-a', 'rw')
        self.assertEqual(rw, other.initialize_connection(
            self.volume, {'host': 'host-a'}, 'rw'))
        other_b = other.initialize_connection(
            self.volume, {'host': 'host-b'}, 'rw')
        self.assertNotEqual(rw['data']['port'], other_b['data']['port'])
        self.assertIO(rw, 'write -P 0x61 0 4k')
        self.assertIO(other_b, 'read -P 0x61 0 4k')
        other.terminate_connection(self.volume, {'host': 'host-a'})
        # The first driver does not bring back what the other stopped.
        self.assertEqual([], self.driver.check_exports())
        code, out = self.qemu_io(rw, 'read 0 4k')
        self.assertNotEqual(0, code, out)
        self.assertIO(other_b, 'read -P 0x61 0 4k')

    def test_supervisor_restarts_a_dead_export(self):
        rw = self.connect('host-a', 'rw')
        export = next(iter(self.driver.exports.values()))
        kill(export.pid)
        self.assertEqual([export.key], self.driver.check_exports())
        self.assertIO(rw, 'write -P 0x09 0 4k', 'read -P 0x09 0 4k')


class PerAttachmentExportsTestCase(NBDTestBase):
    """Exports of one attachment each (managers of RPC API 1.5): two
    attachments on one host do not share an export, and one of them can
    be cut off alone."""

    def attach(self, attachment_id, mode, host='host-a'):
        return self.driver.initialize_connection(
            self.volume, {'host': host}, mode, attachment_id=attachment_id)

    def test_attachments_of_one_host_get_their_own_exports(self):
        first = self.attach('att-1', 'rw')
        second = self.attach('att-2', 'rw')
        self.assertNotEqual(first['data']['port'], second['data']['port'])
        self.assertNotEqual(first['data']['tls_psk_secret'],
                            second['data']['tls_psk_secret'])
        self.assertIO(first, 'write -P 0x31 0 64k')
        self.assertIO(second, 'read -P 0x31 0 64k')
        # One is cut off; the other, on the same host, goes on.
        self.driver.terminate_connection(self.volume, {'host': 'host-a'},
                                         attachment_id='att-1')
        code, out = self.qemu_io(first, 'read 0 4k')
        self.assertNotEqual(0, code, out)
        self.assertIO(second, 'write -P 0x32 0 4k', 'read -P 0x32 0 4k')
        # Idempotent.
        self.driver.terminate_connection(self.volume, {'host': 'host-a'},
                                         attachment_id='att-1')

    def test_connecting_again_ends_the_earlier_export(self):
        old = self.attach('att-1', 'ro')
        self.assertIO(old, 'read 0 4k')
        new = self.attach('att-1', 'rw')
        self.assertNotEqual(old['data']['tls_psk_secret'],
                            new['data']['tls_psk_secret'])
        self.assertNotEqual(old['data']['tls_psk_identity'],
                            new['data']['tls_psk_identity'])
        # The port is the lowest free one, the old export's own: the key
        # is what keeps the old client out (docs/admin/nbd-driver.rst).
        self.assertEqual(old['data']['port'], new['data']['port'])
        self.assertIO(new, 'write -P 0x33 0 4k')
        code, out = self.qemu_io(old, 'read 0 4k', read_only=True)
        self.assertNotEqual(0, code, out)
        self.assertEqual(1, len(self.driver.exports))

    def test_exports_of_attachments_come_back_after_a_restart(self):
        rw = self.attach('att-1', 'rw')
        self.driver.stop_supervisor()
        for export in list(self.driver.exports.values()):
            kill(export.pid)
        self.driver = self._driver()
        self.assertIO(rw, 'write -P 0x34 0 4k', 'read -P 0x34 0 4k')

    def test_host_exports_and_attachment_exports_side_by_side(self):
        # During an upgrade, a 1.4 manager's connection (the host's) and
        # a 1.5 one's (the attachment's) of one host coexist; each ends
        # on its own terms.
        shared = self.connect('host-a', 'rw')
        own = self.attach('att-1', 'rw')
        self.driver.terminate_connection(self.volume, {'host': 'host-a'},
                                         attachment_id='att-1')
        self.assertIO(shared, 'read 0 4k')
        self.driver.terminate_connection(self.volume, {'host': 'host-a'})
        for info in (shared, own):
            code, out = self.qemu_io(info, 'read 0 4k')
            self.assertNotEqual(0, code, out)


def x509_client_args(info, cert_dir):
    """qemu-io arguments opening the export of ``info`` as QEMU started
    by libvirt does for ``<source protocol='nbd' tls='yes'>``: the
    credentials of the host's ``nbd_tls_x509_cert_dir`` (``cert_dir``),
    the server's certificate checked against its ``ca-cert.pem``."""
    data = info['data']
    return ['--object',
            'tls-creds-x509,id=tls0,endpoint=client,dir=%s,'
            'verify-peer=on' % cert_dir,
            '--image-opts',
            'driver=raw,file.driver=nbd,file.host=%s,file.port=%d,'
            'file.export=%s,file.tls-creds=tls0' % (
                data['host'], data['port'], data['export'])]


class X509ExportsTestCase(NBDTestBase):
    """Exports for hosts whose NBD client is QEMU started by libvirt:
    the host's X.509 certificate opens its attachments' exports, and
    only those."""

    def attach(self, attachment_id, mode='rw', host='compute-1'):
        return self.driver.initialize_connection(
            self.volume, {'host': host, 'nbd_tls': 'x509'}, mode,
            attachment_id=attachment_id)

    def cert_dir(self, host):
        """The host's client credentials, as the operator copies them to
        its nbd_tls_x509_cert_dir."""
        return self.driver._authority.client_dir(host)

    def qemu_io_as(self, host, info, *commands, read_only=False):
        argv = ['qemu-io'] + (['-r'] if read_only else []) + \
            x509_client_args(info, self.cert_dir(host))
        for command in commands:
            argv += ['-c', command]
        result = subprocess.run(argv, capture_output=True, text=True,
                                timeout=60)
        return result.returncode, result.stdout + result.stderr

    def assertIOAs(self, host, info, *commands):
        code, out = self.qemu_io_as(host, info, *commands)
        self.assertEqual(0, code, out)
        self.assertNotIn('failed', out)
        return out

    def assertRefused(self, host, info):
        code, out = self.qemu_io_as(host, info, 'read 0 4k')
        self.assertNotEqual(0, code, out)
        self.assertIn("can't open", out)

    def test_connection_info_and_libvirt_disk(self):
        from cinder_ma.hypervisor.drivers import libvirt as libvirt_driver
        info = self.attach('att-1')
        data = info['data']
        self.assertIs(True, data['tls_x509'])
        self.assertNotIn('tls_psk_secret', data)
        # The export's name is its own, not the volume's.
        self.assertTrue(data['export'].startswith(self.volume.name + '.'))
        disk = libvirt_driver.disk_xml(info, 'vdb', 'att-1', shareable=True)
        self.assertIn("tls=\"yes\"", disk)
        self.assertIn('name="%s"' % data['export'], disk)
        self.assertIn('port="%d"' % data['port'], disk)

    def test_the_hosts_certificate_opens_its_attachment_only(self):
        one = self.attach('att-1', host='compute-1')
        two = self.attach('att-2', host='compute-2')
        self.assertIOAs('compute-1', one, 'write -P 0x41 0 64k',
                        'read -P 0x41 0 64k')
        self.assertIOAs('compute-2', two, 'read -P 0x41 0 64k')
        # Each host's certificate is refused by the other's export.
        self.assertRefused('compute-2', one)
        self.assertRefused('compute-1', two)
        # Without a certificate, or with the PSK kind of client: refused.
        psk_info = {'data': dict(one['data'], tls_psk_identity='x',
                                 tls_psk_secret='00' * 32)}
        code, out = self.qemu_io(psk_info, 'read 0 4k', name='psk')
        self.assertNotEqual(0, code, out)
        code, out = self.qemu_io_plain(one)
        self.assertNotEqual(0, code, out)

    def qemu_io_plain(self, info):
        data = info['data']
        result = subprocess.run(
            ['qemu-io', '--image-opts',
             'driver=raw,file.driver=nbd,file.host=%s,file.port=%d,'
             'file.export=%s' % (data['host'], data['port'], data['export']),
             '-c', 'read 0 4k'], capture_output=True, text=True, timeout=60)
        return result.returncode, result.stdout + result.stderr

    def test_fencing_refuses_the_certificate_at_once(self):
        old = self.attach('att-1')
        self.assertIOAs('compute-1', old, 'write -P 0x42 0 4k')
        self.driver.terminate_connection(
            self.volume, {'host': 'compute-1'}, attachment_id='att-1')
        self.assertRefused('compute-1', old)
        # Connected again (the attachment reconnects after the fence):
        # the same port, a new export name; the host's certificate opens
        # the new export, not under the old name, which the fenced
        # client still holds.
        new = self.attach('att-1')
        self.assertEqual(old['data']['port'], new['data']['port'])
        self.assertNotEqual(old['data']['export'], new['data']['export'])
        self.assertRefused('compute-1', old)
        self.assertIOAs('compute-1', new, 'read -P 0x42 0 4k')

    def test_a_promoted_standby_on_another_host(self):
        # The writer on compute-1 is fenced, the standby on compute-2
        # promoted: compute-1's certificate opens nothing any more.
        writer = self.attach('att-1', host='compute-1')
        standby = self.attach('att-2', mode='ro', host='compute-2')
        self.driver.terminate_connection(
            self.volume, {'host': 'compute-1'}, attachment_id='att-1')
        promoted = self.attach('att-2', mode='rw', host='compute-2')
        self.assertIOAs('compute-2', promoted, 'write -P 0x43 0 4k')
        for info in (writer, standby, promoted):
            self.assertRefused('compute-1', info)

    def test_restart_adopts_and_brings_back_x509_exports(self):
        info = self.attach('att-1')
        [export] = self.driver.exports.values()
        self.driver.stop_supervisor()
        # Adopted: the probe completes a handshake with the host's
        # certificate.
        self.driver = self._driver()
        self.assertEqual(export.pid, self.driver.exports[export.key].pid)
        self.driver.stop_supervisor()
        kill(export.pid)
        self.driver = self._driver()
        self.assertNotEqual(export.pid,
                            self.driver.exports[export.key].pid)
        self.assertIOAs('compute-1', info, 'write -P 0x44 0 4k',
                        'read -P 0x44 0 4k')

    def test_a_hosts_export_follows_the_credentials_it_asks_for(self):
        # Without an attachment id (a manager older than RPC API 1.5):
        # the host's export, made again when the host switches from
        # X.509 to PSK (its hypervisor driver changed).
        x509 = self.driver.initialize_connection(
            self.volume, {'host': 'compute-1', 'nbd_tls': 'x509'}, 'rw')
        self.assertEqual(x509, self.driver.initialize_connection(
            self.volume, {'host': 'compute-1', 'nbd_tls': 'x509'}, 'rw'))
        self.assertIOAs('compute-1', x509, 'write -P 0x46 0 4k')
        psk = self.driver.initialize_connection(
            self.volume, {'host': 'compute-1'}, 'rw')
        self.assertNotIn('tls_x509', psk['data'])
        self.assertIO(psk, 'read -P 0x46 0 4k')
        self.assertRefused('compute-1', x509)
        self.assertEqual(1, len(self.driver.exports))

    def test_read_only_x509_export(self):
        # As a PSK export: the open for writing is refused at once
        # (docs/admin/nbd-driver.rst, "Read-only exports").
        rw = self.attach('att-1')
        self.assertIOAs('compute-1', rw, 'write -P 0x47 0 4k')
        ro = self.attach('att-2', mode='ro')
        code, out = self.qemu_io_as('compute-1', ro, 'read -P 0x47 0 4k',
                                    read_only=True)
        self.assertEqual(0, code, out)
        self.assertNotIn('failed', out)
        code, out = self.qemu_io_as('compute-1', ro, 'write 0 4k')
        self.assertNotEqual(0, code, out)
        self.assertIn('Permission denied', out)

    def test_psk_and_x509_attachments_side_by_side(self):
        psk = self.driver.initialize_connection(
            self.volume, {'host': 'compute-9'}, 'rw', attachment_id='att-p')
        x509 = self.attach('att-x')
        self.assertIOAs('compute-1', x509, 'write -P 0x45 0 4k')
        self.assertIO(psk, 'read -P 0x45 0 4k')


class DataPathBenchmarkTestCase(base.TestCase):
    """tools/benchmark_datapath.py runs and reports every figure (no
    speed is asserted: that is the tool's job, on a quiet machine)."""

    def _run(self, *options, paths=('raw_file', 'nbd_one_export',
                                    'nbd_two_attachments')):
        missing = [p for p in ('nbdkit', 'qemu-io', 'stdbuf')
                   if shutil.which(p) is None]
        if missing:
            cm_fixtures.skip_or_fail(
                self, 'NBD programs missing: %s' % ', '.join(missing))
        tool = os.path.join(os.path.dirname(__file__), '..', '..', '..',
                            'tools', 'benchmark_datapath.py')
        result = subprocess.run(
            [sys.executable, tool, '--size-mib', '4', '--ops', '50',
             '--rounds', '2', '--port-min',
             str(functional_fixtures.free_port()), '--json'] + list(options),
            capture_output=True, text=True, timeout=300)
        self.assertEqual(0, result.returncode, result.stderr)
        figures = json.loads(result.stdout)
        self.assertEqual(set(paths) | {'settings'}, set(figures))
        speeds = {'seq_write_mb_s', 'seq_read_mb_s', 'rand_write_iops',
                  'rand_read_iops'}
        cpu = {'seq_write_cpu_s_per_gib', 'seq_read_cpu_s_per_gib'}
        self.assertEqual(speeds | cpu, set(figures['raw_file']))
        iscsi = 'iscsi_one_session' in paths
        for path in paths[1:]:
            row = figures[path]
            ratios = {'ratio_to_raw'}
            if iscsi and path.startswith('nbd_'):
                ratios.add('ratio_to_iscsi')
            self.assertEqual(speeds | cpu | ratios, set(row))
            for ratio in ratios:
                self.assertEqual({'seq_write', 'seq_read', 'rand_write',
                                  'rand_read'}, set(row[ratio]))
                for value in row[ratio].values():
                    self.assertGreater(value, 0)
        settings = figures['settings']
        self.assertEqual(2, settings['rounds'])
        self.assertEqual(['CHACHA20-POLY1305'],
                         settings['nbd_tls_disabled_ciphers'])
        self.assertEqual(3, len(settings['load_average_before']))
        return settings

    def test_runs(self):
        settings = self._run()
        self.assertEqual('writethrough', settings['cache'])
        self.assertEqual('writethrough', settings['raw_cache'])
        self.assertEqual(1, settings['queue_depth'])
        self.assertEqual('reused', settings['client_buffers'])

    def test_iscsi_peer(self):
        """The same rounds through tgt's iSCSI target (QEMU's libiscsi
        client), with one session and with two."""
        missing = [p for p in ('tgtd', 'tgtadm') if shutil.which(p) is None]
        if 'iscsi' not in subprocess.run(['qemu-img', '--help'],
                                         capture_output=True,
                                         text=True).stdout:
            missing.append('qemu-block-extra (QEMU\'s iscsi driver)')
        if missing or os.geteuid() != 0:
            cm_fixtures.skip_or_fail(
                self, 'tgt needs root and %s' % (
                    ', '.join(missing) or 'nothing else'))
        settings = self._run('--iscsi', paths=(
            'raw_file', 'nbd_one_export', 'nbd_two_attachments',
            'iscsi_one_session', 'iscsi_two_sessions'))
        self.assertIn('no CHAP', settings['iscsi'])

    def test_x509_exports_and_extra_nbdkit_args(self):
        """The exports of libvirt hosts (X.509), with nbdkit options the
        driver does not set (levers measured in docs/admin/
        nbd-driver.rst)."""
        settings = self._run('--tls', 'x509', '--nbdkit-arg=--threads=4',
                             '--plugin-arg', 'fadvise=sequential')
        self.assertEqual('x509', settings['tls'])
        self.assertEqual(['--threads=4'], settings['nbdkit_args'])
        self.assertEqual(['fadvise=sequential'], settings['plugin_args'])

    def test_requests_in_flight(self):
        """Requests in groups (aio_read, aio_write, timed by wall clock),
        the raw path's own cache mode and glibc's default buffers."""
        settings = self._run('--queue-depth', '4', '--cache', 'none',
                             '--raw-cache', 'writeback',
                             '--client-buffers', 'mapped')
        self.assertEqual('none', settings['cache'])
        self.assertEqual('writeback', settings['raw_cache'])
        self.assertEqual(4, settings['queue_depth'])
        self.assertEqual('mapped', settings['client_buffers'])


#: A writer of sequence-numbered blocks (system python3 with
#: python3-libnbd): block i of writer ``parity`` is at offset
#: ``(2 * i + parity) * 4096`` and holds ``<tag><i, 8 digits>``; each write
#: completes before the next is sent. It writes until ``stop`` exists and
#: prints how many blocks it wrote.
SEQUENCE_WRITER = """
import os, sys
import nbd
host, port, export, identity, psk, parity, stop = sys.argv[1:]
parity = int(parity)
tag = b'AB'[parity:parity + 1]
h = nbd.NBD()
h.set_tls(nbd.TLS_REQUIRE)
h.set_tls_psk_file(psk)
h.set_tls_username(identity)
h.set_export_name(export)
h.connect_tcp(host, port)
i = 0
while not os.path.exists(stop) and i < 60000:
    block = tag + b'%08d' % i
    h.pwrite(block + b'\\0' * (4096 - len(block)), (2 * i + parity) * 4096)
    i += 1
h.flush()
print(i)
"""


class ConsistentSnapshotTestCase(NBDTestBase):
    """A snapshot of a volume two NBD clients write to at once holds, for
    each writer, a prefix of its sequence of blocks: the exports are
    paused (and drained) for the copy, then resumed."""

    attach = PerAttachmentExportsTestCase.attach

    def _writer(self, info, parity, stop):
        data = info['data']
        psk = os.path.join(self.state_path, 'writer-%d.psk' % parity)
        fd = os.open(psk, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as f:
            f.write('%s:%s\n' % (data['tls_psk_identity'],
                                 data['tls_psk_secret']))
        return subprocess.Popen(
            ['/usr/bin/python3', '-c', SEQUENCE_WRITER, data['host'],
             str(data['port']), data['export'], data['tls_psk_identity'],
             psk, str(parity), stop],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    @staticmethod
    def _sequence(path, parity, count):
        """The indexes of writer ``parity``'s blocks found in the file,
        among its first ``count``."""
        tag = b'AB'[parity:parity + 1]
        found = []
        with open(path, 'rb') as f:
            for i in range(count):
                f.seek((2 * i + parity) * 4096)
                block = f.read(9)
                if block == tag + b'%08d' % i:
                    found.append(i)
        return found

    def test_two_writers_snapshot_holds_a_prefix_of_each(self):
        if subprocess.run(['/usr/bin/python3', '-c', 'import nbd'],
                          capture_output=True).returncode:
            cm_fixtures.skip_or_fail(self, 'python3-libnbd is missing')
        stop = os.path.join(self.state_path, 'stop-writers')
        writers = [self._writer(self.attach('att-%d' % parity, 'rw',
                                            host='host-%d' % parity),
                                parity, stop)
                   for parity in (0, 1)]
        volume_path = os.path.join(self.driver._files.volumes_dir,
                                   self.volume.name)

        def written(parity):
            return len(self._sequence(volume_path, parity, 200))

        deadline = time.monotonic() + 30
        while min(written(0), written(1)) < 50 and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        snapshot = driver_base.SnapshotRef.for_snapshot(
            '7d1f0c2a-3b4e-4f5a-8b6c-9d0e1f2a3b4c', self.volume, 1)
        paused = self.driver.create_snapshot(snapshot)
        # The writers go on after the snapshot.
        time.sleep(0.3)
        open(stop, 'w').close()
        counts = []
        for writer in writers:
            out, err = writer.communicate(timeout=60)
            self.assertEqual(0, writer.returncode, err)
            counts.append(int(out))
        self.assertIsNotNone(paused)
        self.assertLess(paused, self.config.nbd_snapshot_drain_timeout)
        snapshot_path = os.path.join(self.driver._files.volumes_dir,
                                     snapshot.name)
        for parity, count in enumerate(counts):
            found = self._sequence(snapshot_path, parity, count)
            # A prefix of the writer's sequence, never a gap...
            self.assertEqual(list(range(len(found))), found, parity)
            self.assertGreater(len(found), 0)
            # ... and the volume has all of it, and more since.
            self.assertEqual(list(range(count)),
                             self._sequence(volume_path, parity, count))
            self.assertGreater(count, len(found))
