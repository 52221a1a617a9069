#!/usr/bin/env python3
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

"""Speed of the NBD data path against the raw file (issue 11, point 8).

Makes a volume with the ``nbd`` storage driver in a temporary state
directory, exports it to two attachments (one nbdkit process each, TLS-PSK,
started by the driver as for any attachment) and measures with ``qemu-io``
(qemu-utils), the same client, block sizes and queue depth on every path:

* sequential write and read (``--block-size-kib`` requests, 1 MiB by
  default, over the whole volume), MB/s;
* 4 KiB random writes and reads (uniform offsets), IOPS;

one request at a time, or ``--queue-depth`` at once (in groups, as a
guest keeps several in flight), on three paths: ``raw_file`` (qemu-io on
the volume's file: the limit), ``nbd_one_export`` (one client through
one attachment's export) and ``nbd_two_attachments`` (two clients at
once, each through its own attachment's export; the figure is the sum
of both: total bytes or operations over the longer of the two clients'
I/O times).

Fairness of the limit: every path uses the same qemu-io cache mode
(``--cache``), unless ``--raw-cache`` sets the raw path's apart
(``--cache none --raw-cache writeback`` gives the raw path the page-cache
I/O nbdkit does). The clients' request buffers are reused, as a
hypervisor's guest memory is (``--client-buffers``, see
``REUSED_BUFFERS_TUNABLES``). With the same mode, the raw path goes
through the host's page cache as nbdkit's file plugin does (its default
``cache=default``), so reads on both are served from memory after the
first write pass. With
``writethrough`` (qemu-io's default) every write is flushed before it
completes on every path (fdatasync of the file, by qemu-io itself or by
nbdkit for the client's flush or FUA write), so writes reach the disk;
with ``writeback`` they stay in the storage host's page cache on every
path. With ``none`` every client opens its side with O_DIRECT, as a
guest's shareable disk (libvirt ``cache='none'``) does: the raw path
then reads and writes the disk itself, while nbdkit still serves from
the storage host's page cache, as a storage target does. The time is the
sum of qemu-io's own per-request timings: process start-up, the TLS
handshake and the flush at exit are left out on every path alike (with
requests in flight, whose timings overlap: the wall time from qemu-io's
first prompt to its last completion).

The host is shared (other work may run): every round measures each
workload on the three paths one after the other, and the tool reports the
median over ``--rounds`` of every figure and of every per-round ratio to
the raw file, with the load average before and after. It also reports the
CPU time (the whole qemu-io processes and the nbdkit ones together) per
GiB moved sequentially, which depends much less on how busy the host is.

The clients use GnuTLS priority ``--tls-priority`` (default ``NORMAL``,
what QEMU uses unless told otherwise); the exports refuse the ciphers of
the driver's ``nbd_tls_disabled_ciphers`` (``--disabled-ciphers``, default
the driver's), which decides the cipher.

With ``--iscsi`` the same rounds also measure the NBD paths' peers: the
same file through tgt's iSCSI target (the target of Cinder's reference
LVM driver), read and written by QEMU's own iSCSI client (libiscsi), with
one session (``iscsi_one_session``) and with two initiators at once
(``iscsi_two_sessions``); each NBD path then also reports its ratio to
its iSCSI peer (``ratio_to_iscsi``). tgt runs without CHAP, as root, on
loopback, with its defaults.

Usage: python tools/benchmark_datapath.py [--size-mib 512] [--ops 5000]
           [--rounds 5] [--cache none] [--raw-cache writeback]
           [--queue-depth 16] [--iscsi] [--json]
Needs nbdkit, qemu-io and stdbuf (coreutils); with --iscsi, tgt and
qemu-block-extra, and root.
"""

import argparse
import concurrent.futures
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from oslo_config import cfg

from cinder_ma import conf as cinder_ma_conf  # noqa: F401  registers opts
from cinder_ma.conf import backend as backend_conf
from cinder_ma.volume.drivers import base as driver_base
from cinder_ma.volume.drivers import nbd

MiB = 1024 * 1024
GiB = 1024 * MiB

WORKLOADS = ('seq_write', 'seq_read', 'rand_write', 'rand_read')
PATHS = ('raw_file', 'nbd_one_export', 'nbd_two_attachments')
#: The paths through tgt's iSCSI target (``--iscsi``), each NBD path's
#: peer: one session, and two sessions (two initiators) at once.
ISCSI_PATHS = ('iscsi_one_session', 'iscsi_two_sessions')
#: The NBD path each iSCSI path is compared with.
PEERS = {'nbd_one_export': 'iscsi_one_session',
         'nbd_two_attachments': 'iscsi_two_sessions'}
#: The target's name and the initiators' (one per client).
TARGET_IQN = 'iqn.2026-11.org.openstack.cinder-ma:bench'
INITIATOR_IQN = 'iqn.2026-11.org.openstack.cinder-ma:client-%d'

# "4 KiB, 1 ops; 00.00 sec (48.835 MiB/sec and 12501.7190 ops/sec)"
_TIMING_RE = re.compile(r'^\S+ \S+, (\d+) ops; .* and ([0-9.]+) ops/sec\)',
                        re.M)


def nbd_args(info, directory, priority, cert_dir=None):
    """qemu-io arguments of an NBD client of the export of ``info``: with
    its TLS-PSK key (written in ``directory``), or, for an X.509 export,
    the host's credentials in ``cert_dir`` (as libvirt's QEMU)."""
    data = info['data']
    if data.get('tls_x509'):
        return ['--object',
                'tls-creds-x509,id=tls0,endpoint=client,dir=%s,'
                'verify-peer=on,priority=%s' % (cert_dir, priority),
                '--image-opts',
                'driver=raw,file.driver=nbd,file.host=%s,file.port=%d,'
                'file.export=%s,file.tls-creds=tls0' % (
                    data['host'], data['port'], data['export'])]
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, 'keys.psk')
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        f.write('%s:%s\n' % (data['tls_psk_identity'],
                             data['tls_psk_secret']))
    return ['--object',
            'tls-creds-psk,id=tls0,endpoint=client,dir=%s,username=%s,'
            'priority=%s' % (directory, data['tls_psk_identity'], priority),
            '--image-opts',
            'driver=raw,file.driver=nbd,file.host=%s,file.port=%d,'
            'file.export=%s,file.tls-creds=tls0' % (
                data['host'], data['port'], data['export'])]


class TgtTarget:
    """tgt's iSCSI target (``tgtd``, Debian ``tgt``: the target of
    Cinder's reference LVM driver) serving one file as LUN 1 of one
    target, on loopback, to any initiator, without CHAP, with tgt's
    defaults (the rdwr backing store, through the page cache as nbdkit's
    file plugin, write cache on as Cinder's ``iscsi_write_cache``).

    ``tgtd`` runs in the foreground, in a session of its own, with a
    control port of its own (``-C``), so that it touches no other tgtd of
    the host; it is stopped by its pid.
    """

    def __init__(self, path, port, directory):
        self.path = path
        self.port = port
        # tgtadm's control socket is /var/run/tgtd/socket.<control port>.
        self.control = port % 10000 + 20000
        self.log = open(os.path.join(directory, 'tgtd.log'), 'wb')
        self.process = None

    def _admin(self, *args):
        return subprocess.run(
            ['tgtadm', '-C', str(self.control), '--lld', 'iscsi'] +
            list(args), capture_output=True, text=True, timeout=30)

    def start(self):
        self.process = subprocess.Popen(
            ['tgtd', '-f', '-C', str(self.control), '--iscsi',
             'portal=127.0.0.1:%d' % self.port],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            start_new_session=True)
        deadline = time.monotonic() + 30
        while self._admin('--op', 'show', '--mode', 'target').returncode:
            if self.process.poll() is not None or (
                    time.monotonic() > deadline):
                raise RuntimeError('tgtd did not start (see %s)' %
                                   self.log.name)
            time.sleep(0.1)
        for args in (('--op', 'new', '--mode', 'target', '--tid', '1',
                      '-T', TARGET_IQN),
                     ('--op', 'new', '--mode', 'logicalunit', '--tid', '1',
                      '--lun', '1', '-b', self.path),
                     ('--op', 'bind', '--mode', 'target', '--tid', '1',
                      '-I', 'ALL')):
            result = self._admin(*args)
            if result.returncode:
                raise RuntimeError('tgtadm %s: %s' % (
                    ' '.join(args), result.stderr.strip()))
        return self.process.pid

    def client_args(self, index):
        return ['--image-opts',
                'driver=raw,file.driver=iscsi,file.transport=tcp,'
                'file.portal=127.0.0.1:%d,file.target=%s,file.lun=1,'
                'file.initiator-name=%s' % (
                    self.port, TARGET_IQN, INITIATOR_IQN % index)]

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        # tgtd leaves its control socket behind.
        for suffix in ('', '.lock'):
            try:
                os.unlink('/var/run/tgtd/socket.%d%s' % (self.control,
                                                         suffix))
            except FileNotFoundError:
                pass


#: glibc malloc settings of the clients (``--client-buffers reused``):
#: qemu-io allocates (and fills) a new buffer for every request, and glibc
#: serves a request of 128 KiB or more with a fresh mmap() by default, so
#: every 1 MiB request paid for page faults, zeroed pages and munmap()
#: (about 0.4 to 0.6 CPU s per GiB on this client, on every path). A
#: hypervisor does I/O into its guest's memory, which stays mapped; with a
#: high mmap threshold the buffers come from the heap and are reused.
REUSED_BUFFERS_TUNABLES = ('glibc.malloc.mmap_threshold=268435456:'
                           'glibc.malloc.trim_threshold=1073741824')


def tgt_version():
    result = subprocess.run(['tgtd', '--version'], capture_output=True,
                            text=True)
    return (result.stdout or result.stderr).strip()


def client_environment(buffers):
    env = dict(os.environ)
    if buffers == 'reused':
        env['GLIBC_TUNABLES'] = REUSED_BUFFERS_TUNABLES
    return env


def run_qemu_io(target_args, commands, env=None):
    """Run ``commands`` through one qemu-io; returns the seconds its
    requests took.

    Requests one at a time (``read``, ``write``): the sum of qemu-io's own
    timing of each. Requests in flight together (``aio_read``,
    ``aio_write``, whose timings overlap): the wall time from qemu-io's
    first prompt (the image is open, the TLS handshake done) to the
    output of its last completed request, its output line-buffered
    (``stdbuf -oL``) and read as it comes (when all of it comes at once,
    the longest request's own timing).
    """
    script = ''.join(c + '\n' for c in commands)
    requests = [c for c in commands if c != 'aio_flush']
    if not any(c.startswith('aio_') for c in requests):
        result = subprocess.run(['qemu-io'] + target_args, input=script,
                                capture_output=True, text=True, env=env)
        out = result.stdout + result.stderr
        timings = _TIMING_RE.findall(result.stdout)
        if result.returncode or 'failed' in out or len(timings) != len(
                requests):
            raise RuntimeError('qemu-io failed: %s' % out[-500:])
        return sum(int(ops) / float(rate) for ops, rate in timings)
    with tempfile.TemporaryFile() as stdin:
        stdin.write(script.encode())
        stdin.seek(0)
        process = subprocess.Popen(
            ['stdbuf', '-oL', 'qemu-io'] + target_args, stdin=stdin,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        chunks = []
        first = last = None
        with process.stdout:
            while True:
                chunk = os.read(process.stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                now = time.monotonic()
                if first is None and b'qemu-io> ' in chunk:
                    first = now
                if b' ops; ' in chunk:
                    last = now
                chunks.append(chunk)
        process.wait()
    out = b''.join(chunks).decode(errors='replace')
    timings = _TIMING_RE.findall(out)
    if (process.returncode or 'failed' in out or first is None or
            last is None or len(timings) != len(requests)):
        raise RuntimeError('qemu-io failed: %s' % out[-500:])
    if last > first:
        return last - first
    # The prompt and every result came in one read: the run was too short
    # to time by the clock. The longest request, by qemu-io's own timing,
    # is a lower bound of its wall time.
    return max(int(ops) / float(rate) for ops, rate in timings)


def workloads(size, block, ops, seed, depth=1):
    """Each workload's qemu-io commands: requests one at a time at
    ``depth`` 1; else ``aio_`` requests in groups of ``depth``, each group
    sent at once and waited for (``aio_flush``, which drains the requests
    in flight, no flush to the disk) before the next."""
    rng = random.Random(seed)
    blocks = size // 4096
    requests = {
        'seq_write': ['write -P 0x5a %d %d' % (off, block)
                      for off in range(0, size, block)],
        'seq_read': ['read %d %d' % (off, block)
                     for off in range(0, size, block)],
        'rand_write': ['write -P 0x33 %d 4k' % (rng.randrange(blocks) * 4096)
                       for _ in range(ops)],
        'rand_read': ['read %d 4k' % (rng.randrange(blocks) * 4096)
                      for _ in range(ops)],
    }
    if depth == 1:
        return requests
    grouped = {}
    for name, commands in requests.items():
        grouped[name] = []
        for start in range(0, len(commands), depth):
            grouped[name] += ['aio_' + c
                              for c in commands[start:start + depth]]
            grouped[name].append('aio_flush')
    return grouped


def _cpu_seconds(pids):
    """CPU seconds of this process's reaped children and of ``pids``."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = usage.ru_utime + usage.ru_stime
    for pid in pids:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rpartition(')')[2].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf(
            'SC_CLK_TCK')
    return total


def measure(pool, name, clients, loads, server_pids, env=None):
    """One workload on one path: {figure: value}."""
    cpu = _cpu_seconds(server_pids)
    seconds = max(pool.map(run_qemu_io, clients, loads,
                           [env] * len(clients)))
    cpu = _cpu_seconds(server_pids) - cpu
    requests = [[c for c in load if c != 'aio_flush'] for load in loads]
    if name.startswith('seq'):
        moved = sum(int(c.split()[-1]) for load in requests for c in load)
        return {name + '_mb_s': moved / seconds / 1e6,
                name + '_cpu_s_per_gib': cpu / (moved / GiB)}
    return {name + '_iops': sum(len(load) for load in requests) / seconds}


def run_rounds(paths, size, block, ops, rounds, pids, depth=1, env=None):
    per_round = []
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for number in range(rounds):
            figures = {path: {} for path in paths}
            for name in WORKLOADS:
                for path, clients in paths.items():
                    loads = [workloads(size, block, ops,
                                       seed=number * 2 + i,
                                       depth=depth)[name]
                             for i in range(len(clients))]
                    figures[path].update(measure(pool, name, clients,
                                                 loads, pids[path], env))
            per_round.append(figures)
    return per_round


def _workload(key):
    """The workload a figure's key names: 'seq_read_mb_s' -> 'seq_read'."""
    return key.rsplit('_', 2)[0] if key.endswith('_mb_s') else key.rsplit(
        '_', 1)[0]


def _ratios(per_round, path, other):
    """The median of the per-round ratios of ``path``'s speeds to
    ``other``'s, by workload."""
    return {_workload(k): round(statistics.median(
        r[path][k] / r[other][k] for r in per_round), 2)
        for k in per_round[0][path] if k.endswith(('_mb_s', '_iops'))}


def summarize(per_round):
    results = {}
    for path in per_round[0]:
        keys = per_round[0][path]
        figures = {k: round(statistics.median(r[path][k]
                                              for r in per_round), 2)
                   for k in keys}
        if path != 'raw_file':
            figures['ratio_to_raw'] = _ratios(per_round, path, 'raw_file')
        if PEERS.get(path) in per_round[0]:
            figures['ratio_to_iscsi'] = _ratios(per_round, path,
                                                PEERS[path])
        results[path] = figures
    return results


def _with_extra_args(command, server_args, plugin_args):
    """The driver's nbdkit command line with extra server options (before
    the plugin's name) and extra file plugin parameters."""
    def extended(key, record, path):
        cmd = command(key, record, path)
        plugin = cmd.index('file')
        return cmd[:plugin] + list(server_args) + cmd[plugin:] + list(
            plugin_args)
    return extended


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--size-mib', type=int, default=512)
    parser.add_argument('--block-size-kib', type=int, default=1024,
                        help='request size of the sequential runs')
    parser.add_argument('--ops', type=int, default=5000,
                        help='4 KiB requests of each random run')
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--cache', default='writethrough',
                        choices=('writethrough', 'writeback', 'none'),
                        help='qemu-io cache mode on every path: '
                             'writethrough (qemu-io\'s default) flushes '
                             'after every write, so writes reach the disk '
                             'on every path; writeback leaves them in the '
                             'storage host\'s page cache; none opens the '
                             'client side with O_DIRECT (what libvirt\'s '
                             'cache=\'none\' of a shareable disk does), '
                             'so the raw path reads and writes the disk '
                             'while nbdkit serves from the storage host\'s '
                             'page cache')
    parser.add_argument('--raw-cache', default=None,
                        choices=('writethrough', 'writeback', 'none'),
                        help='qemu-io cache mode of the raw path (default: '
                             '--cache). With --cache none, writeback '
                             'gives the raw path the I/O nbdkit does on '
                             'the storage host (the page cache, no flush '
                             'unless asked), none the disk itself')
    parser.add_argument('--queue-depth', type=int, default=1,
                        help='requests in flight on every client: 1 sends '
                             'them one at a time; more sends them in '
                             'groups of that many (qemu-io aio_read, '
                             'aio_write), as a guest keeps several in '
                             'flight; QEMU\'s NBD client sends up to 16 '
                             'at once')
    parser.add_argument('--client-buffers', default='reused',
                        choices=('reused', 'mapped'),
                        help='reused: the clients\' request buffers come '
                             'from glibc\'s heap and are reused, as a '
                             'hypervisor\'s guest memory is; mapped: '
                             'glibc\'s default, a fresh mmap() for every '
                             'request of 128 KiB or more (the figures '
                             'before this option)')
    parser.add_argument('--json', action='store_true')
    parser.add_argument('--tls-priority', default='NORMAL',
                        help='GnuTLS priority string of the NBD clients')
    parser.add_argument('--disabled-ciphers', default=None,
                        help='nbd_tls_disabled_ciphers of the exports, '
                             'comma-separated (default: the driver\'s)')
    parser.add_argument('--port-min', type=int, default=10809,
                        help='first of the 10 TCP ports the exports may '
                             'use (with --iscsi, the next one is tgt\'s '
                             'portal)')
    parser.add_argument('--tls', default='psk', choices=('psk', 'x509'),
                        help='the exports\' credentials: psk (a key per '
                             'attachment, as for external consumers) or '
                             'x509 (the certificate of the attachment\'s '
                             'host, as for libvirt hosts)')
    parser.add_argument('--nbdkit-arg', action='append', default=[],
                        metavar='ARG',
                        help='an extra nbdkit server option of every '
                             'export (e.g. --nbdkit-arg=--threads=4), '
                             'repeatable: to '
                             'measure what the driver does not set')
    parser.add_argument('--plugin-arg', action='append', default=[],
                        metavar='KEY=VALUE',
                        help='an extra parameter of the file plugin of '
                             'every export (e.g. cache=none, '
                             'fadvise=sequential), repeatable')
    parser.add_argument('--iscsi', action='store_true',
                        help='also measure the same file through tgt\'s '
                             'iSCSI target (Debian tgt, run as root) read '
                             'and written by QEMU\'s libiscsi client '
                             '(qemu-block-extra), with one session and '
                             'with two at once, in the same rounds')
    args = parser.parse_args(argv)
    if args.queue_depth < 1:
        parser.error('--queue-depth must be at least 1')
    raw_cache = args.raw_cache or args.cache
    env = client_environment(args.client_buffers)
    size = args.size_mib * MiB
    block = args.block_size_kib * 1024
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix='cinder-ma-bench-') as state:
        conf = cfg.CONF
        conf([], project='cinder_ma', default_config_files=[])
        conf.set_override('state_path', state)
        config = backend_conf.BackendConfig(
            conf, 'nbd', nbd.NBDDriver.get_driver_options())
        conf.set_override('nbd_port_min', args.port_min, group='nbd')
        conf.set_override('nbd_port_max', args.port_min + 9, group='nbd')
        if args.disabled_ciphers is not None:
            conf.set_override('nbd_tls_disabled_ciphers',
                              [c for c in args.disabled_ciphers.split(',')
                               if c], group='nbd')
        driver = nbd.NBDDriver(configuration=config, host='bench@nbd')
        if args.nbdkit_arg or args.plugin_arg:
            driver._command = _with_extra_args(
                driver._command, args.nbdkit_arg, args.plugin_arg)
        driver.do_setup()
        volume = driver_base.VolumeRef.for_volume(
            '00000000-0000-4000-8000-00000000be4c',
            max(1, -(-size // driver_base.GiB)), multiattach=True)
        driver.create_volume(volume)
        path = os.path.join(driver.configuration.nbd_volumes_dir,
                            volume.name)
        attachments = ('bench-a', 'bench-b')
        target = None
        try:
            infos = [driver.initialize_connection(
                volume, {'host': a, 'nbd_tls': args.tls}, 'rw',
                attachment_id=a) for a in attachments]
            servers = [driver.exports[driver._attachment_key(volume.id, a)]
                       .pid for a in attachments]
            clients = [['-t', args.cache] + nbd_args(
                info, os.path.join(state, a), args.tls_priority,
                cert_dir=driver._authority.client_dir(a))
                for a, info in zip(attachments, infos)]
            paths = {'raw_file': [['-t', raw_cache, '-f', 'raw', path]],
                     'nbd_one_export': clients[:1],
                     'nbd_two_attachments': clients}
            pids = {'raw_file': [], 'nbd_one_export': servers[:1],
                    'nbd_two_attachments': servers}
            if args.iscsi:
                target = TgtTarget(path, args.port_min + 10, state)
                tgtd = target.start()
                sessions = [['-t', args.cache] + target.client_args(i)
                            for i in (1, 2)]
                paths.update(iscsi_one_session=sessions[:1],
                             iscsi_two_sessions=sessions)
                pids.update(iscsi_one_session=[tgtd],
                            iscsi_two_sessions=[tgtd])
            per_round = run_rounds(
                paths, size, block, args.ops, args.rounds, pids,
                depth=args.queue_depth, env=env)
        finally:
            if target is not None:
                target.stop()
            for a in attachments:
                driver.terminate_connection(volume, {'host': a},
                                            attachment_id=a)
            driver.stop_supervisor()
        ciphers = driver.configuration.nbd_tls_disabled_ciphers
    results = summarize(per_round)
    results['settings'] = {
        'size_mib': args.size_mib, 'block_size_kib': args.block_size_kib,
        'random_ops': args.ops, 'rounds': args.rounds,
        'queue_depth': args.queue_depth,
        'client_buffers': args.client_buffers,
        'client': 'qemu-io', 'client_tls_priority': args.tls_priority,
        'tls': args.tls, 'nbdkit_args': args.nbdkit_arg,
        'plugin_args': args.plugin_arg,
        'nbd_tls_disabled_ciphers': list(ciphers),
        'cache': args.cache, 'raw_cache': raw_cache,
        'page_cache': 'raw: qemu-io -t %s; nbd: qemu-io -t %s, nbdkit '
                      'file plugin cache=default: %s' % (
                          raw_cache, args.cache,
                          'the raw path reads the disk (O_DIRECT), nbdkit '
                          'the page cache' if raw_cache == 'none' else
                          'reads from the page cache on both'),
        'iscsi': 'tgt %s, QEMU libiscsi client, loopback, no CHAP' % (
            tgt_version()) if args.iscsi else None,
        'cpus': os.cpu_count(),
        'load_average_before': [round(x, 2) for x in load_before],
        'load_average_after': [round(x, 2) for x in os.getloadavg()]}
    if args.json:
        print(json.dumps(results, indent=2, sort_keys=True))
        return 0
    columns = ('seq_write_mb_s', 'seq_read_mb_s', 'rand_write_iops',
               'rand_read_iops')
    print('%-22s' % 'path' + ''.join('%16s' % c for c in columns))
    for name in PATHS + (ISCSI_PATHS if args.iscsi else ()):
        print('%-22s' % name + ''.join('%16s' % results[name][c]
                                       for c in columns))
        for key, label in (('ratio_to_raw', '  ratio to raw'),
                           ('ratio_to_iscsi', '  ratio to iSCSI')):
            if key in results[name]:
                print('%-22s' % label + ''.join(
                    '%16s' % results[name][key][_workload(c)]
                    for c in columns))
    print('load average before %s, after %s' % (
        results['settings']['load_average_before'],
        results['settings']['load_average_after']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
