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

all at queue depth 1, on three paths: ``raw_file`` (qemu-io on the volume's
file: the limit), ``nbd_one_export`` (one client through one attachment's
export) and ``nbd_two_attachments`` (two clients at once, each through its
own attachment's export; the figure is the sum of both: total bytes or
operations over the longer of the two clients' I/O times).

Fairness of the limit: every path uses the same qemu-io cache mode
(``--cache``). The raw path goes through the host's page cache as
nbdkit's file plugin does (its default ``cache=default``), so reads on
both are served from memory after the first write pass. With
``writethrough`` (qemu-io's default) every write is flushed before it
completes on every path (fdatasync of the file, by qemu-io itself or by
nbdkit for the client's flush or FUA write), so writes reach the disk;
with ``writeback`` they stay in the storage host's page cache on every
path. With ``none`` every client opens its side with O_DIRECT, as a
guest's shareable disk (libvirt ``cache='none'``) does: the raw path
then reads and writes the disk itself, while nbdkit still serves from
the storage host's page cache, as a storage target does. The time is the
sum of qemu-io's own per-request timings: process start-up, the TLS
handshake and the flush at exit are left out on every path alike.

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

Usage: python tools/benchmark_datapath.py [--size-mib 512] [--ops 5000]
           [--rounds 5] [--json]
Needs nbdkit and qemu-io.
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

from oslo_config import cfg

from cinder_ma import conf as cinder_ma_conf  # noqa: F401  registers opts
from cinder_ma.conf import backend as backend_conf
from cinder_ma.volume.drivers import base as driver_base
from cinder_ma.volume.drivers import nbd

MiB = 1024 * 1024
GiB = 1024 * MiB

WORKLOADS = ('seq_write', 'seq_read', 'rand_write', 'rand_read')
PATHS = ('raw_file', 'nbd_one_export', 'nbd_two_attachments')

# "4 KiB, 1 ops; 00.00 sec (48.835 MiB/sec and 12501.7190 ops/sec)"
_TIMING_RE = re.compile(r'^\S+ \S+, (\d+) ops; .* and ([0-9.]+) ops/sec\)',
                        re.M)


def nbd_args(info, directory, priority):
    data = info['data']
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


def run_qemu_io(target_args, commands):
    """Run ``commands`` through one qemu-io; returns the seconds its
    requests took, as qemu-io timed each of them."""
    script = ''.join(c + '\n' for c in commands)
    result = subprocess.run(['qemu-io'] + target_args, input=script,
                            capture_output=True, text=True)
    out = result.stdout + result.stderr
    timings = _TIMING_RE.findall(result.stdout)
    if result.returncode or 'failed' in out or len(timings) != len(
            commands):
        raise RuntimeError('qemu-io failed: %s' % out[-500:])
    return sum(int(ops) / float(rate) for ops, rate in timings)


def workloads(size, block, ops, seed):
    rng = random.Random(seed)
    blocks = size // 4096
    return {
        'seq_write': ['write -P 0x5a %d %d' % (off, block)
                      for off in range(0, size, block)],
        'seq_read': ['read %d %d' % (off, block)
                     for off in range(0, size, block)],
        'rand_write': ['write -P 0x33 %d 4k' % (rng.randrange(blocks) * 4096)
                       for _ in range(ops)],
        'rand_read': ['read %d 4k' % (rng.randrange(blocks) * 4096)
                      for _ in range(ops)],
    }


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


def measure(pool, name, clients, loads, server_pids):
    """One workload on one path: {figure: value}."""
    cpu = _cpu_seconds(server_pids)
    seconds = max(pool.map(run_qemu_io, clients, loads))
    cpu = _cpu_seconds(server_pids) - cpu
    if name.startswith('seq'):
        moved = sum(int(c.split()[-1]) for load in loads for c in load)
        return {name + '_mb_s': moved / seconds / 1e6,
                name + '_cpu_s_per_gib': cpu / (moved / GiB)}
    return {name + '_iops': sum(len(load) for load in loads) / seconds}


def run_rounds(paths, size, block, ops, rounds, pids):
    per_round = []
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for number in range(rounds):
            figures = {path: {} for path in paths}
            for name in WORKLOADS:
                for path, clients in paths.items():
                    loads = [workloads(size, block, ops,
                                       seed=number * 2 + i)[name]
                             for i in range(len(clients))]
                    figures[path].update(measure(pool, name, clients,
                                                 loads, pids[path]))
            per_round.append(figures)
    return per_round


def _workload(key):
    """The workload a figure's key names: 'seq_read_mb_s' -> 'seq_read'."""
    return key.rsplit('_', 2)[0] if key.endswith('_mb_s') else key.rsplit(
        '_', 1)[0]


def summarize(per_round):
    results = {}
    for path in PATHS:
        keys = per_round[0][path]
        figures = {k: round(statistics.median(r[path][k]
                                              for r in per_round), 2)
                   for k in keys}
        if path != 'raw_file':
            figures['ratio_to_raw'] = {
                _workload(k): round(statistics.median(
                    r[path][k] / r['raw_file'][k] for r in per_round), 2)
                for k in keys if k.endswith(('_mb_s', '_iops'))}
        results[path] = figures
    return results


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
    parser.add_argument('--json', action='store_true')
    parser.add_argument('--tls-priority', default='NORMAL',
                        help='GnuTLS priority string of the NBD clients')
    parser.add_argument('--disabled-ciphers', default=None,
                        help='nbd_tls_disabled_ciphers of the exports, '
                             'comma-separated (default: the driver\'s)')
    parser.add_argument('--port-min', type=int, default=10809,
                        help='first of the 10 TCP ports the exports may '
                             'use')
    args = parser.parse_args(argv)
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
        driver.do_setup()
        volume = driver_base.VolumeRef.for_volume(
            '00000000-0000-4000-8000-00000000be4c',
            max(1, -(-size // driver_base.GiB)), multiattach=True)
        driver.create_volume(volume)
        path = os.path.join(driver.configuration.nbd_volumes_dir,
                            volume.name)
        attachments = ('bench-a', 'bench-b')
        try:
            infos = [driver.initialize_connection(volume, {'host': a}, 'rw',
                                                  attachment_id=a)
                     for a in attachments]
            servers = [driver.exports[driver._attachment_key(volume.id, a)]
                       .pid for a in attachments]
            clients = [['-t', args.cache] + nbd_args(
                info, os.path.join(state, a), args.tls_priority)
                for a, info in zip(attachments, infos)]
            per_round = run_rounds(
                {'raw_file': [['-t', args.cache, '-f', 'raw', path]],
                 'nbd_one_export': clients[:1],
                 'nbd_two_attachments': clients},
                size, block, args.ops, args.rounds,
                {'raw_file': [], 'nbd_one_export': servers[:1],
                 'nbd_two_attachments': servers})
        finally:
            for a in attachments:
                driver.terminate_connection(volume, {'host': a},
                                            attachment_id=a)
            driver.stop_supervisor()
        ciphers = driver.configuration.nbd_tls_disabled_ciphers
    results = summarize(per_round)
    results['settings'] = {
        'size_mib': args.size_mib, 'block_size_kib': args.block_size_kib,
        'random_ops': args.ops, 'rounds': args.rounds, 'queue_depth': 1,
        'client': 'qemu-io', 'client_tls_priority': args.tls_priority,
        'nbd_tls_disabled_ciphers': list(ciphers),
        'cache': args.cache,
        'page_cache': 'raw: qemu-io -t %s; nbd: qemu-io -t %s, nbdkit '
                      'file plugin cache=default: %s' % (
                          args.cache, args.cache,
                          'the raw path reads the disk (O_DIRECT), nbdkit '
                          'the page cache' if args.cache == 'none' else
                          'reads from the page cache on both'),
        'cpus': os.cpu_count(),
        'load_average_before': [round(x, 2) for x in load_before],
        'load_average_after': [round(x, 2) for x in os.getloadavg()]}
    if args.json:
        print(json.dumps(results, indent=2, sort_keys=True))
        return 0
    columns = ('seq_write_mb_s', 'seq_read_mb_s', 'rand_write_iops',
               'rand_read_iops')
    print('%-22s' % 'path' + ''.join('%16s' % c for c in columns))
    for name in PATHS:
        print('%-22s' % name + ''.join('%16s' % results[name][c]
                                       for c in columns))
        if name != 'raw_file':
            ratios = results[name]['ratio_to_raw']
            print('%-22s' % '  ratio to raw' + ''.join(
                '%16s' % ratios[_workload(c)] for c in columns))
    print('load average before %s, after %s' % (
        results['settings']['load_average_before'],
        results['settings']['load_average_after']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
