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

"""Benchmark a running cinder_ma service over HTTP; prints JSON.

Measures, against the service's real REST API (noauth):

* attach cycles: attachment create + update (connector) + os-complete, and
  attachment delete, at concurrency 1, 8 and 32: throughput, p50/p95/p99
  latency, errors, and, with --server-pid, the server CPU time per cycle;
* volume create: from the create request until the volume is no longer
  ``creating`` (one watcher lists the creating volumes every 20 ms), at
  concurrency 1, 8 and 32: throughput, latency percentiles, errors and
  server CPU per volume; the volumes are deleted afterwards;
* listing: the time of GET /volumes/detail with N volumes of 4
  attachments each (N from --list-sizes, default 1000 and 10000).

The benchmark lifts the quotas of its project (``os-quota-sets``) first.

Usage::

    cinder-ma-all &                 # or any deployment, auth_strategy=noauth
    python tools/benchmark.py --endpoint http://127.0.0.1:8776/v3 \\
        --server-pid $(pgrep -o -f cinder-ma-all)

With ``--compare-endpoint`` (and ``--compare-server-pid``: every process
of that service, e.g. the API, scheduler and volume services of real
Cinder) it drives a second service in the same run: the phases run on
one service and then on the other, the attach phase ``--rounds`` times
with the order alternating from round to round, so that the load of the
host weighs on both alike. The report then holds each service's figures
and ``ratios``: per round and their median, the endpoint's throughput
divided by the compare endpoint's, and the compare endpoint's server CPU
per operation divided by the endpoint's (both: how many times better
the endpoint is).

It only uses the standard library, so it runs from any Python 3.11.
"""

import argparse
import concurrent.futures
import http.client
import json
import os
import statistics
import sys
import threading
import time
import urllib.parse
import uuid

# Hexadecimal, as Cinder's routes want a project id to be (the same
# project on either service of a comparison).
PROJECT = 'be4c0000be4c0000be4c0000be4c0000'
HEADERS = {
    'X-Auth-Token': 'bench:%s' % PROJECT,
    'X-Roles': 'admin,member,reader',
    # Deleting a connected attachment is kept for services.
    'X-Service-Roles': 'service',
    'Content-Type': 'application/json',
    'OpenStack-API-Version': 'volume 3.54',
}


class Client:
    """One keep-alive HTTP connection per thread."""

    def __init__(self, endpoint):
        url = urllib.parse.urlsplit(endpoint)
        self.host, self.port = url.hostname, url.port or 80
        self.base = url.path.rstrip('/') + '/' + PROJECT
        self.local = threading.local()

    def _conn(self):
        conn = getattr(self.local, 'conn', None)
        if conn is None:
            conn = http.client.HTTPConnection(self.host, self.port,
                                              timeout=120)
            self.local.conn = conn
        return conn

    def request(self, method, path, body=None, expect=(200, 202, 204)):
        data = json.dumps(body) if body is not None else None
        for attempt in range(2):
            conn = self._conn()
            try:
                conn.request(method, self.base + path, body=data,
                             headers=HEADERS)
                resp = conn.getresponse()
                payload = resp.read()
                break
            except (http.client.HTTPException, OSError):
                conn.close()
                self.local.conn = None
                if attempt:
                    raise
        if resp.status not in expect:
            raise RuntimeError('%s %s -> %s %s' % (
                method, path, resp.status, payload[:300]))
        if not payload or 'json' not in resp.getheader('Content-Type', ''):
            return None  # e.g. the HTML of an expected 404
        return json.loads(payload)


def _stat(pid):
    with open('/proc/%d/stat' % pid) as stat:
        return stat.read().rsplit(')', 1)[1].split()


def _descendants(pid):
    children = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                children.setdefault(int(_stat(int(entry))[1]), []).append(
                    int(entry))
            except (OSError, IndexError):
                continue
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, ()))
    return found


def server_cpu(pids):
    """User+system CPU seconds of processes and their descendants (the
    API workers of a multi-process server), threads included; None
    without processes."""
    if not pids:
        return None
    if isinstance(pids, int):
        pids = [pids]
    ticks = os.sysconf('SC_CLK_TCK')
    total = 0
    processes = set()
    for pid in pids:
        processes.update(_descendants(pid))
    for process in processes:
        try:
            fields = _stat(process)
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / ticks


def percentile(values, pct):
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def ensure_type(client):
    types = client.request('GET', '/types')['volume_types']
    for vtype in types:
        if vtype['name'] == 'bench-multiattach':
            return vtype['id']
    vtype = client.request('POST', '/types', {'volume_type': {
        'name': 'bench-multiattach',
        'extra_specs': {'multiattach': '<is> True'}}})['volume_type']
    return vtype['id']


def create_volumes(client, count, concurrency, wait=True):
    def one(_):
        return client.request('POST', '/volumes', {'volume': {
            'size': 1, 'volume_type': 'bench-multiattach'}})['volume']['id']

    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        ids = list(pool.map(one, range(count)))
    if wait:
        deadline = time.time() + 600
        pending = set(ids)
        while pending and time.time() < deadline:
            for volume_id in list(pending):
                status = client.request(
                    'GET', '/volumes/%s' % volume_id)['volume']['status']
                if status == 'available':
                    pending.discard(volume_id)
                elif status == 'error':
                    raise RuntimeError('volume %s went to error' % volume_id)
            if pending:
                time.sleep(0.2)
    return ids


def unlimited_quotas(client):
    client.request('PUT', '/os-quota-sets/%s' % PROJECT, {'quota_set': {
        'volumes': -1, 'gigabytes': -1, 'per_volume_gigabytes': -1}},
        expect=(200, 404))  # 404: a server without quotas


class CreationWatcher:
    """One thread lists the project's volumes still ``creating`` every
    ``interval`` seconds; a submitted volume missing from that list is
    done. One cheap request per interval, whatever the concurrency,
    instead of every client polling its own volume (which costs the
    server more than the creates do at high concurrency)."""

    def __init__(self, client, interval=0.02):
        self.client = client
        self.interval = interval
        self.lock = threading.Lock()
        self.pending = {}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def wait(self, volume_id):
        done = threading.Event()
        with self.lock:
            self.pending[volume_id] = done
        done.wait(600)
        return time.perf_counter()

    def _run(self):
        while not self.stopped.is_set():
            with self.lock:
                watched = dict(self.pending)
            if watched:
                creating = {v['id'] for v in self.client.request(
                    'GET', '/volumes/detail?status=creating&limit=1000'
                )['volumes']}
                for volume_id, done in watched.items():
                    if volume_id not in creating:
                        with self.lock:
                            self.pending.pop(volume_id, None)
                        done.set()
            time.sleep(self.interval)

    def stop(self):
        self.stopped.set()
        self.thread.join()


def run_creates(client, concurrency, count, pid):
    latencies, errors, ids = [], [], []
    lock = threading.Lock()
    watcher = CreationWatcher(client)

    def one(_):
        try:
            start = time.perf_counter()
            volume_id = client.request('POST', '/volumes', {'volume': {
                'size': 1, 'volume_type': 'bench-multiattach'}}
            )['volume']['id']
            elapsed = watcher.wait(volume_id) - start
            with lock:
                latencies.append(elapsed)
                ids.append(volume_id)
        except Exception as exc:
            with lock:
                errors.append(str(exc))

    cpu0, wall0 = server_cpu(pid), time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(count)))
    wall = time.perf_counter() - wall0
    cpu = None if cpu0 is None else server_cpu(pid) - cpu0
    watcher.stop()
    for volume_id in ids:
        status = client.request(
            'GET', '/volumes/%s' % volume_id)['volume']['status']
        if status != 'available':
            errors.append('volume %s is %s' % (volume_id, status))
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda v: client.request('DELETE', '/volumes/%s' % v),
                      ids))
    result = {
        'concurrency': concurrency,
        'errors': len(errors),
        'error_samples': errors[:3],
        'count': len(latencies),
        'per_second': round(len(latencies) / wall, 1) if wall else None,
        'p50_ms': _ms(percentile(latencies, 50)),
        'p95_ms': _ms(percentile(latencies, 95)),
        'p99_ms': _ms(percentile(latencies, 99)),
    }
    if cpu is not None and latencies:
        result['server_cpu_ms_per_op'] = _ms(cpu / len(latencies))
    return result


def attach_cycle(client, volume_id):
    instance = str(uuid.uuid4())
    start = time.perf_counter()
    attachment = client.request('POST', '/attachments', {'attachment': {
        'volume_uuid': volume_id, 'instance_uuid': instance}})['attachment']
    client.request('PUT', '/attachments/%s' % attachment['id'],
                   {'attachment': {'connector': {
                       'host': 'bench-host', 'initiator': 'iqn.bench',
                       'mode': 'rw'}}})
    client.request('POST', '/attachments/%s/action' % attachment['id'],
                   {'os-complete': None})
    return attachment['id'], time.perf_counter() - start


def run_cycles(client, volumes, concurrency, cycles, pid):
    latencies, detach_latencies, errors = [], [], []
    ids = []
    lock = threading.Lock()

    def attach(index):
        try:
            att_id, elapsed = attach_cycle(client,
                                           volumes[index % len(volumes)])
            with lock:
                latencies.append(elapsed)
                ids.append(att_id)
        except Exception as exc:
            with lock:
                errors.append(str(exc))

    def detach(att_id):
        start = time.perf_counter()
        try:
            client.request('DELETE', '/attachments/%s' % att_id)
            with lock:
                detach_latencies.append(time.perf_counter() - start)
        except Exception as exc:
            with lock:
                errors.append(str(exc))

    cpu0, wall0 = server_cpu(pid), time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(attach, range(cycles)))
    attach_wall = time.perf_counter() - wall0
    cpu1 = server_cpu(pid)
    wall1 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(detach, list(ids)))
    detach_wall = time.perf_counter() - wall1
    cpu2 = server_cpu(pid)

    def summary(values, wall, cpu):
        result = {
            'count': len(values),
            'per_second': round(len(values) / wall, 1) if wall else None,
            'p50_ms': _ms(percentile(values, 50)),
            'p95_ms': _ms(percentile(values, 95)),
            'p99_ms': _ms(percentile(values, 99)),
            'mean_ms': _ms(statistics.fmean(values)) if values else None,
        }
        if cpu is not None and values:
            result['server_cpu_ms_per_op'] = _ms(cpu / len(values))
        return result

    return {
        'concurrency': concurrency,
        'errors': len(errors),
        'error_samples': errors[:3],
        'attach_cycle': summary(latencies, attach_wall,
                                None if cpu0 is None else cpu1 - cpu0),
        'detach': summary(detach_latencies, detach_wall,
                          None if cpu0 is None else cpu2 - cpu1),
    }


def _ms(seconds):
    return None if seconds is None else round(seconds * 1000, 2)


def seed_listing(client, total, have, concurrency):
    """Grow the project to ``total`` volumes of 4 attachments each."""
    missing = total - have
    if missing <= 0:
        return
    volumes = create_volumes(client, missing, concurrency)

    def attach_four(volume_id):
        for _ in range(4):
            attach_cycle(client, volume_id)

    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(attach_four, volumes))


def list_all(client, page=1000):
    """Every volume with details, following the pages (the service caps a
    page at its [api] max_limit); returns (volumes, requests)."""
    volumes, marker, requests = [], None, 0
    while True:
        query = '?limit=%d' % page + ('&marker=%s' % marker if marker else '')
        body = client.request('GET', '/volumes/detail' + query)
        requests += 1
        volumes.extend(body['volumes'])
        if len(body['volumes']) < page or not body.get('volumes_links'):
            return volumes, requests
        marker = body['volumes'][-1]['id']


def time_listing(client, repeat=3):
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        volumes, requests = list_all(client)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    attachments = sum(len(v['attachments']) for v in volumes)
    return {'volumes': len(volumes), 'attachments': attachments,
            'requests': requests, 'best_seconds': round(best, 3)}


def ratio(endpoint, compare):
    """How many times better ``endpoint`` did than ``compare`` in one
    phase (two summaries of the same phase and concurrency): throughput
    divided by the compare one's, and the compare one's server CPU per
    operation divided by the endpoint's; None where a figure is
    missing or zero."""
    def divide(top, bottom):
        if not top or not bottom:
            return None
        return round(top / bottom, 2)

    return {
        'throughput': divide(endpoint.get('per_second'),
                             compare.get('per_second')),
        'server_cpu_per_op': divide(compare.get('server_cpu_ms_per_op'),
                                    endpoint.get('server_cpu_ms_per_op')),
    }


def _median(values):
    values = [value for value in values if value is not None]
    return round(statistics.median(values), 2) if values else None


def attach_ratios(rounds):
    """The ratios of the attach phase's rounds (each round a dict with
    the 'endpoint' and 'compare' lists of run_cycles results), per
    concurrency and operation: every round's and their median."""
    result = []
    for level, _ in enumerate(rounds[0]['endpoint'] if rounds else ()):
        entry = {'concurrency': rounds[0]['endpoint'][level]['concurrency']}
        for phase in ('attach_cycle', 'detach'):
            per_round = [ratio(one['endpoint'][level][phase],
                               one['compare'][level][phase])
                         for one in rounds]
            entry[phase] = {
                key: {'rounds': [one[key] for one in per_round],
                      'median': _median(one[key] for one in per_round)}
                for key in ('throughput', 'server_cpu_per_op')}
        result.append(entry)
    return result


def first_in_round(number):
    """Which service goes first in round ``number`` (0-based): they take
    turns, so that neither always runs on a host warmed (or loaded) by
    the other."""
    return ('endpoint', 'compare') if number % 2 == 0 else (
        'compare', 'endpoint')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--endpoint', default='http://127.0.0.1:8776/v3')
    parser.add_argument('--server-pid', type=int, nargs='+',
                        help='PIDs of the service\'s processes (their '
                             'workers are counted with them), to report '
                             'server CPU time per operation')
    parser.add_argument('--compare-endpoint',
                        help='a second service (e.g. real Cinder) driven '
                             'in the same run; ratios are reported')
    parser.add_argument('--compare-server-pid', type=int, nargs='+',
                        help='PIDs of the second service\'s processes '
                             '(e.g. cinder-api, cinder-scheduler and '
                             'cinder-volume)')
    parser.add_argument('--concurrency', type=int, nargs='+',
                        default=[1, 8, 32])
    parser.add_argument('--creates', type=int, default=200,
                        help='volume creates per concurrency level '
                             '(0: skip the create phase)')
    parser.add_argument('--cycles', type=int, default=200,
                        help='attach cycles per concurrency level '
                             '(0: skip the attach phase)')
    parser.add_argument('--volumes', type=int, default=32,
                        help='multiattach volumes the attach cycles '
                             'spread over')
    parser.add_argument('--rounds', type=int, default=1,
                        help='times the attach phase runs (on each '
                             'service, taking turns)')
    parser.add_argument('--list-sizes', type=int, nargs='*',
                        default=[1000, 10000])
    args = parser.parse_args(argv)
    if args.compare_server_pid and not args.compare_endpoint:
        parser.error('--compare-server-pid needs --compare-endpoint')
    for name in ('volumes', 'rounds'):
        if getattr(args, name) < 1:
            parser.error('--%s must be at least 1' % name)
    return args


class Service:
    """One service under test: its client, processes and report."""

    def __init__(self, endpoint, pids):
        self.client = Client(endpoint)
        self.pids = pids
        self.volumes = None
        self.report = {'endpoint': endpoint, 'create': [], 'attach': [],
                       'listing': []}

    def prepare(self, args):
        unlimited_quotas(self.client)
        ensure_type(self.client)

    def creates(self, args):
        for concurrency in args.concurrency:
            self.report['create'].append(run_creates(
                self.client, concurrency, args.creates, self.pids))

    def attach(self, args):
        if self.volumes is None:
            self.volumes = create_volumes(self.client, args.volumes, 8)
        return [run_cycles(self.client, self.volumes, concurrency,
                           args.cycles, self.pids)
                for concurrency in args.concurrency]

    def listing(self, args):
        have = len(self.volumes or ())
        for size in sorted(args.list_sizes):
            seed_listing(self.client, size, have, 8)
            have = max(have, size)
            self.report['listing'].append(time_listing(self.client))


def main(argv=None):
    args = parse_args(argv)
    services = {'endpoint': Service(args.endpoint, args.server_pid)}
    if args.compare_endpoint:
        services['compare'] = Service(args.compare_endpoint,
                                      args.compare_server_pid)
    names = list(services)
    for name in names:
        services[name].prepare(args)
    if args.creates:
        for name in names:
            services[name].creates(args)
    rounds = []
    for number in range(args.rounds if args.cycles else 0):
        done = {}
        for name in first_in_round(number):
            if name in services:
                done[name] = services[name].attach(args)
        done['first'] = names[0] if len(names) == 1 else first_in_round(
            number)[0]
        rounds.append(done)
    for name in names:
        services[name].report['attach'] = [
            dict(level, round=number)
            for number, done in enumerate(rounds)
            for level in done[name]]
    for name in names:
        services[name].listing(args)
    if len(names) == 1:
        report = services['endpoint'].report
    else:
        report = {'endpoint': services['endpoint'].report,
                  'compare': services['compare'].report,
                  'order': [done['first'] for done in rounds],
                  'ratios': {'attach': attach_ratios(rounds)}}
        creates = zip(services['endpoint'].report['create'],
                      services['compare'].report['create'])
        report['ratios']['create'] = [
            dict(ratio(mine, theirs), concurrency=mine['concurrency'])
            for mine, theirs in creates]
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
