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

"""Flows of the manager and the one helper that runs them.

Each flow is built by a module-level factory (``get_flow``) from small
tasks, the first of which is a lifecycle sentinel. :func:`run_flow` runs
it on TaskFlow's serial engine (about 2 ms per flow; the threaded executor
costs a second per run) with a logging listener that masks secrets.
"""

import os
import time
import traceback

from oslo_log import log as logging
from oslo_utils import strutils
from taskflow.engines.action_engine import engine as action_engine
from taskflow.listeners import logging as tf_logging
from taskflow import states
from taskflow.utils import persistence_utils

LOG = logging.getLogger(__name__)

#: TEST ONLY (the fault tests of tests/functional): the path of a file
#: that, while it exists, reads
#: ``<directory>;<flow name>:<task index>[,<flow name>:<task index>...]``
#: and holds the first run of each named flow in this process tree before
#: that task, until ``<directory>/release`` exists, after writing
#: ``<directory>/held-<flow name>-<index>`` with the process id, so that
#: a test can kill the process at that step. Never set it in a
#: deployment.
TEST_HOLD_ENV = 'CINDER_MA_TEST_HOLD_FLOW'

#: Store keys whose values never appear in logs.
SECRET_KEYS = ('context', 'connector', 'connection_info', 'auth_password',
               'password', 'secret', 'token')


class _MaskingLogger:
    """A logger that formats each record itself and masks secrets in it,
    traceback included.
    """

    def __init__(self, logger):
        self._logger = logger

    def isEnabledFor(self, level):
        return self._logger.isEnabledFor(level)

    def log(self, level, msg, *args, **kwargs):
        if not self.isEnabledFor(level):
            return
        if args:
            msg = msg % args
        exc_info = kwargs.pop('exc_info', None)
        if exc_info and exc_info is not True and exc_info[0] is not None:
            msg = '%s\n%s' % (msg, ''.join(
                traceback.format_exception(*exc_info)).rstrip())
        self._logger.log(level, '%s', strutils.mask_password(msg), **kwargs)


def load(flow, store):
    """The serial engine for ``flow``, not yet run.

    What ``taskflow.engines.load(flow, store, engine='serial')`` builds,
    without its look-up of the engine among the package entry points on
    every call (a fifth of a flow's cost on the attach path).
    """
    engine = action_engine.SerialActionEngine(
        flow, persistence_utils.create_flow_detail(flow), None, {})
    if store:
        engine.storage.inject(store)
    return engine


def _test_hold(engine, flow):
    """Register the hold of :data:`TEST_HOLD_ENV` on ``engine``, if set
    for ``flow``."""
    path = os.environ.get(TEST_HOLD_ENV)
    if not path:
        return
    try:
        with open(path) as f:
            spec = f.read().strip()
    except OSError:
        return
    directory, _sep, holds = spec.partition(';')
    name = flow.name
    index = dict(hold.split(':', 1) for hold in holds.split(',')
                 if hold).get(name)
    names = [atom.name for atom in flow]
    if index is None or int(index) >= len(names):
        return
    target = names[int(index)]
    marker = os.path.join(directory, 'held-%s-%s' % (name, index))

    def hold(state, details):
        if details.get('task_name', details.get('atom_name')) != target:
            return
        try:
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            return
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        LOG.warning('TEST hold: flow %s held before task %s (%s)', name,
                    index, target)
        while not os.path.exists(os.path.join(directory, 'release')):
            time.sleep(0.05)

    engine.atom_notifier.register(states.RUNNING, hold)


def run_flow(flow, store, log=LOG):
    """Run ``flow`` with ``store`` and log its progress, secrets masked.

    :returns: the engine (its storage holds the tasks' results).
    :raises: the exception of the failed task, after every task reverted.
    """
    engine = load(flow, store)
    _test_hold(engine, flow)
    listener = tf_logging.DynamicLoggingListener(
        engine, log=_MaskingLogger(log), mask_inputs_keys=SECRET_KEYS,
        mask_outputs_keys=SECRET_KEYS)
    with listener:
        engine.run()
    return engine
