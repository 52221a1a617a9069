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
directory, exports it (TLS-PSK, as attachments get it) and measures with
``qemu-io`` (qemu-utils), the same client on every path:

* sequential write and read (1 MiB requests over the whole volume), MB/s;
* 4 KiB random reads and writes (uniform offsets, queue depth 1), IOPS;

on the raw file directly (the limit), through one export, and through two
rw exports of the same volume used at once (the figures are the sum of
both clients). Each figure is the whole client run, its start-up and TLS
handshake included, so short runs understate NBD a little.

The NBD clients ask GnuTLS for ``--tls-priority`` (default
``NORMAL:-CHACHA20-POLY1305``): with GnuTLS's own default, QEMU and
nbdkit settle on ChaCha20-Poly1305 even on CPUs with AES instructions,
and the encryption then costs three times the time of the transfer
(docs/admin/nbd-driver.rst, "Client TLS priority"). ``--tls-priority
NORMAL`` measures that default.

Usage: python tools/benchmark_datapath.py [--size-mib 256] [--ops 20000]
Needs nbdkit and qemu-io; prints a table and, with --json, the figures.
"""

import argparse
import concurrent.futures
import json
import os
import random
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

#: GnuTLS priority of the clients: AES-GCM rather than ChaCha20.
TLS_PRIORITY = 'NORMAL:-CHACHA20-POLY1305'


def nbd_args(info, directory, priority=TLS_PRIORITY):
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
    """Run ``commands`` through one qemu-io; returns seconds taken."""
    script = ''.join(c + '\n' for c in commands)
    start = time.monotonic()
    result = subprocess.run(['qemu-io'] + target_args, input=script,
                            capture_output=True, text=True)
    elapsed = time.monotonic() - start
    if result.returncode or 'failed' in result.stdout + result.stderr:
        raise RuntimeError('qemu-io failed: %s' % (
            (result.stdout + result.stderr)[-500:]))
    return elapsed


def workloads(size, ops, seed):
    rng = random.Random(seed)
    blocks = size // 4096
    return {
        'seq_write': ['write -P 0x5a %d 1M' % off
                      for off in range(0, size, MiB)],
        'seq_read': ['read %d 1M' % off for off in range(0, size, MiB)],
        'rand_write': ['write -P 0x33 %d 4k' % (rng.randrange(blocks) * 4096)
                       for _ in range(ops)],
        'rand_read': ['read %d 4k' % (rng.randrange(blocks) * 4096)
                      for _ in range(ops)],
    }


def measure(targets, size, ops):
    """Figures for clients ``targets`` (lists of qemu-io args) at once."""
    figures = {}
    with concurrent.futures.ThreadPoolExecutor(len(targets)) as pool:
        for name in ('seq_write', 'seq_read', 'rand_write', 'rand_read'):
            loads = [workloads(size, ops, seed)[name]
                     for seed in range(len(targets))]
            start = time.monotonic()
            list(pool.map(run_qemu_io, targets, loads))
            elapsed = time.monotonic() - start
            if name.startswith('seq'):
                figures[name + '_mb_s'] = round(
                    len(targets) * size / elapsed / 1e6, 1)
            else:
                figures[name + '_iops'] = round(
                    len(targets) * ops / elapsed)
    return figures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--size-mib', type=int, default=256)
    parser.add_argument('--ops', type=int, default=20000)
    parser.add_argument('--json', action='store_true')
    parser.add_argument('--tls-priority', default=TLS_PRIORITY,
                        help='GnuTLS priority string of the NBD clients')
    args = parser.parse_args(argv)
    size = args.size_mib * MiB
    with tempfile.TemporaryDirectory(prefix='cinder-ma-bench-') as state:
        conf = cfg.CONF
        conf([], project='cinder_ma', default_config_files=[])
        conf.set_override('state_path', state)
        config = backend_conf.BackendConfig(
            conf, 'nbd', nbd.NBDDriver.get_driver_options())
        driver = nbd.NBDDriver(configuration=config, host='bench@nbd')
        driver.do_setup()
        volume = driver_base.VolumeRef.for_volume(
            '00000000-0000-4000-8000-00000000be4c',
            max(1, -(-size // driver_base.GiB)), multiattach=True)
        driver.create_volume(volume)
        path = os.path.join(driver.configuration.nbd_volumes_dir,
                            volume.name)
        try:
            one = driver.initialize_connection(volume, {'host': 'a'}, 'rw')
            two = driver.initialize_connection(volume, {'host': 'b'}, 'rw')
            results = {
                'raw_file': measure([['-f', 'raw', path]], size, args.ops),
                'nbd_one_export': measure(
                    [nbd_args(one, os.path.join(state, 'c1'),
                              args.tls_priority)], size, args.ops),
                'nbd_two_attachments': measure(
                    [nbd_args(one, os.path.join(state, 'c1'),
                              args.tls_priority),
                     nbd_args(two, os.path.join(state, 'c2'),
                              args.tls_priority)], size, args.ops),
            }
        finally:
            for host in ('a', 'b'):
                driver.terminate_connection(volume, {'host': host})
            driver.stop_supervisor()
    raw = results['raw_file']
    for name, figures in results.items():
        figures['seq_ratio_to_raw'] = round(min(
            figures['seq_read_mb_s'] / raw['seq_read_mb_s'],
            figures['seq_write_mb_s'] / raw['seq_write_mb_s']), 2)
    if args.json:
        print(json.dumps(results, indent=2, sort_keys=True))
        return 0
    columns = ('seq_write_mb_s', 'seq_read_mb_s', 'rand_write_iops',
               'rand_read_iops', 'seq_ratio_to_raw')
    print('%-22s' % 'path' + ''.join('%17s' % c for c in columns))
    for name, figures in results.items():
        print('%-22s' % name + ''.join('%17s' % figures[c]
                                       for c in columns))
    return 0


if __name__ == '__main__':
    sys.exit(main())
