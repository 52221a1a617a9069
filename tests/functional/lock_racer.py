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

"""One "host" racing for a connection lock, run as a process by
tests/functional/test_coordination.py::

    python -m tests.functional.lock_racer --config-file FILE \\
        NAME SHARED_DIR ROUNDS HOLD VOLUME_ID

It reads its configuration as cinder_ma's commands do (its own
``state_path`` and ``[coordination] backend_url``), takes the connection
lock of volume VOLUME_ID once (starting its coordinator), writes
``SHARED_DIR/NAME.ready`` and waits for ``SHARED_DIR/go``. Then, ROUNDS
times: it takes the lock, puts its marker ``SHARED_DIR/inside-NAME``,
watches for HOLD seconds whether another racer's marker appears (an
overlap), removes its marker and releases the lock. It prints a JSON
report: ``rounds``, ``overlaps`` (the other markers seen while it held the
lock), ``waited`` (seconds spent waiting for the lock), ``member_id`` and
``backend``.
"""

import json
import os
import sys
import time

from oslo_config import cfg
from oslo_log import log as logging

from cinder_ma import conf as cinder_ma_conf  # noqa: F401  registers opts
from cinder_ma import coordination
from cinder_ma.manager import locks

CONF = cfg.CONF
POLL = 0.01


def others_inside(shared, name):
    return sorted(entry for entry in os.listdir(shared)
                  if entry.startswith('inside-') and
                  entry != 'inside-' + name)


def race(name, shared, rounds, hold, volume_id):
    lock = locks.ConnectionLock.for_volume(volume_id, False, None)
    lock.acquire()
    lock.release()
    open(os.path.join(shared, name + '.ready'), 'w').close()
    deadline = time.monotonic() + 60
    while not os.path.exists(os.path.join(shared, 'go')):
        if time.monotonic() > deadline:
            raise SystemExit('%s: no go within 60 s' % name)
        time.sleep(POLL)
    overlaps = []
    waited = 0.0
    marker = os.path.join(shared, 'inside-' + name)
    for _ in range(rounds):
        start = time.monotonic()
        lock.acquire()
        waited += time.monotonic() - start
        try:
            open(marker, 'w').close()
            until = time.monotonic() + hold
            while time.monotonic() < until:
                seen = others_inside(shared, name)
                if seen:
                    overlaps.append(seen)
                    break
                time.sleep(POLL)
            os.unlink(marker)
        finally:
            lock.release()
        # Let the other racer in.
        time.sleep(hold / 2)
    return {'rounds': rounds, 'overlaps': overlaps, 'waited': waited,
            'member_id': coordination.COORDINATOR.member_id,
            'backend': coordination.describe(coordination.COORDINATOR.url)}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    logging.register_options(CONF)
    CONF.register_cli_opts([
        cfg.StrOpt('racer', positional=True),
        cfg.StrOpt('shared_dir', positional=True),
        cfg.IntOpt('rounds', positional=True),
        cfg.FloatOpt('hold', positional=True),
        cfg.StrOpt('volume_id', positional=True)])
    CONF(argv, project='cinder_ma', default_config_files=[])
    logging.setup(CONF, 'cinder_ma')
    try:
        report = race(CONF.racer, CONF.shared_dir, CONF.rounds, CONF.hold,
                      CONF.volume_id)
    finally:
        coordination.COORDINATOR.stop()
    print(json.dumps(report), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
