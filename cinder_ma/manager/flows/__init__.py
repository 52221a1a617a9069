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
tasks, the first of which is a lifecycle sentinel. Every flow is a
TaskFlow linear flow of TaskFlow tasks; :func:`run_flow` runs it with
TaskFlow's execute/revert contract (see :func:`run_flow`), logging each
step with secrets masked.

Why not TaskFlow's engine: it is built for what these flows do not use
(persistence, resumption, parallel and graph patterns, retries), and it
costs 3 to 7 ms of CPU for a linear flow of six trivial tasks on this
project's hardware, against about 0.1 ms here; two such flows sit on
every attach cycle of the attachments API (connect, disconnect). A flow
that needs more than a linear sequence of tasks is refused, so that one
does not run half-understood.

TaskFlow also computes a task's argument mapping from the signatures of
its ``execute`` and ``revert`` whenever a task is constructed (0.1 to 0.3
ms a task); the flows run on every attach cycle build theirs with
:func:`new_task`, which copies a task built once per process.
"""

import os
import sys
import time
import traceback

from oslo_log import log as logging
from oslo_utils import strutils
from taskflow import exceptions as tf_exceptions
from taskflow.patterns import linear_flow
from taskflow import task as tf_task
from taskflow.types import failure as tf_failure

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

# Tasks built once per process (see new_task).
_PROTOTYPES = {}


def new_task(cls, *args, **per_run):
    """A task like ``cls(*args, **per_run)``, not constructed but copied.

    A task's argument mapping depends on its class and construction
    arguments only; TaskFlow computes it, with :mod:`inspect`, whenever a
    task is constructed. Here a task is constructed once per process for
    each class and ``args``, with None for each of ``per_run``, and every
    call returns a copy of it (TaskFlow's :meth:`taskflow.task.Task.copy`)
    that holds this run's ``per_run``.

    :param args: construction arguments, hashable (a name, a kind).
    :param per_run: what one run's task holds, such as its lock or the
        manager API: keyword arguments that ``cls`` keeps as attributes of
        the same name, and that neither its name nor its mapping depend
        on.
    """
    key = (cls, args, tuple(sorted(per_run)))
    prototype = _PROTOTYPES.get(key)
    if prototype is None:
        # Two threads may both build one: either copy will do.
        prototype = _PROTOTYPES.setdefault(
            key, cls(*args, **dict.fromkeys(per_run)))
    task = prototype.copy(retain_listeners=False)
    for name, value in per_run.items():
        setattr(task, name, value)
    return task


class _MaskingLogger:
    """A logger that formats each record itself and masks secrets in it,
    traceback included. The runner logs names of flows and tasks, never
    the values of the store; a task's exception may still carry one.
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

    def debug(self, msg, *args):
        self.log(logging.DEBUG, msg, *args)

    def exception(self, msg, *args):
        self.log(logging.ERROR, msg, *args, exc_info=sys.exc_info())


#: The keyword arguments TaskFlow's contract gives every revert.
REVERT_RESULT = 'result'
REVERT_FLOW_FAILURES = 'flow_failures'


def _tasks_of(flow):
    """The tasks of a linear flow of tasks, in order."""
    if not isinstance(flow, linear_flow.Flow):
        raise TypeError('flow %s is not a linear flow' % flow.name)
    tasks = list(flow)
    for atom in tasks:
        if not isinstance(atom, tf_task.Task):
            raise TypeError('flow %s holds %r, which is not a task'
                            % (flow.name, atom))
    return tasks


def _check_dependencies(flow, tasks, store):
    """TaskFlow's check before a run: every required name is in the
    store or provided by an earlier task."""
    known = set(store)
    missing = set()
    for atom in tasks:
        known.update(atom.inject or ())
        missing.update(name for name in atom.requires if name not in known)
        known.update(atom.provides)
    if missing:
        raise tf_exceptions.MissingDependencies(flow, sorted(missing))


def _arguments(atom, mapping, optional, values):
    """The keyword arguments of one of ``atom``'s methods: its ``inject``
    first, then the flow's values by the rebinding TaskFlow computed."""
    kwargs = {}
    for argument, name in mapping.items():
        if atom.inject and name in atom.inject:
            kwargs[argument] = atom.inject[name]
        elif name in values:
            kwargs[argument] = values[name]
        elif argument not in optional:
            raise tf_exceptions.NotFound(
                'task %s needs %r, which nothing provided'
                % (atom.name, name))
    return kwargs


def _save(atom, result, values):
    """Record what ``atom`` provides from its ``result`` (TaskFlow's
    ``save_as``: the whole result, or one item of it by index or key)."""
    for name, index in atom.save_as.items():
        values[name] = result if index is None else result[index]


def _hold_of(flow, tasks):
    """The test hold of :data:`TEST_HOLD_ENV` for ``flow``, if set: a
    function to call with each task before it runs."""
    path = os.environ.get(TEST_HOLD_ENV)
    if not path:
        return None
    try:
        with open(path) as f:
            spec = f.read().strip()
    except OSError:
        return None
    directory, _sep, holds = spec.partition(';')
    name = flow.name
    index = dict(hold.split(':', 1) for hold in holds.split(',')
                 if hold).get(name)
    if index is None or int(index) >= len(tasks):
        return None
    target = tasks[int(index)]
    marker = os.path.join(directory, 'held-%s-%s' % (name, index))

    def hold(atom):
        if atom is not target:
            return
        try:
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            return
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        LOG.warning('TEST hold: flow %s held before task %s (%s)', name,
                    index, atom.name)
        while not os.path.exists(os.path.join(directory, 'release')):
            time.sleep(0.05)

    return hold


def _revert(flow, done, failed, failure, values, log):
    """Revert ``failed`` and then the tasks of ``done`` in reverse order,
    as TaskFlow's engine does: each revert gets its arguments, its own
    ``result`` (a Failure for the task that failed) and the
    ``flow_failures``. A revert that raises is logged and the others
    still run."""
    failures = {failed.name: failure}
    for atom, result in [(failed, failure)] + done[::-1]:
        kwargs = _arguments(atom, atom.revert_rebind, atom.revert_optional,
                            values)
        kwargs[REVERT_RESULT] = result
        kwargs[REVERT_FLOW_FAILURES] = dict(failures)
        log.debug('Flow %s: reverting task %s', flow.name, atom.name)
        try:
            atom.revert(**kwargs)
        except Exception:
            log.exception('Flow %s: the revert of task %s failed; what it '
                          'undoes may be left behind', flow.name,
                          atom.name)


def run_flow(flow, store, log=LOG):
    """Run ``flow`` with ``store``, logging its progress, secrets masked.

    TaskFlow's contract for a linear flow: each task's ``execute`` gets
    its arguments from the store and from what earlier tasks provided
    (through the task's ``rebind`` and ``inject``); its result is saved as
    it ``provides``. When a task raises, it and then every task that ran
    before it are reverted, last first, each with its ``result`` (the
    task's, or a :class:`taskflow.types.failure.Failure` for the one that
    failed) and ``flow_failures``, and the task's exception is raised
    again.

    :returns: a dict of the store and of everything the tasks provided.
    :raises: taskflow.exceptions.MissingDependencies before anything ran
        when the store lacks what a task requires; otherwise the
        exception of the failed task, after the reverts.
    """
    log = _MaskingLogger(log)
    tasks = _tasks_of(flow)
    values = dict(store or {})
    _check_dependencies(flow, tasks, values)
    hold = _hold_of(flow, tasks)
    done = []
    log.debug('Flow %s: running %d tasks', flow.name, len(tasks))
    for atom in tasks:
        if hold is not None:
            hold(atom)
        try:
            result = atom.execute(**_arguments(
                atom, atom.rebind, atom.optional, values))
        except Exception:
            failure = tf_failure.Failure()
            log.log(logging.WARNING, 'Flow %s: task %s failed: %s',
                    flow.name, atom.name, failure.exception_str,
                    exc_info=failure.exc_info)
            _revert(flow, done, atom, failure, values, log)
            log.log(logging.WARNING, 'Flow %s reverted', flow.name)
            failure.reraise()
        _save(atom, result, values)
        done.append((atom, result))
    log.debug('Flow %s: done', flow.name)
    return values
