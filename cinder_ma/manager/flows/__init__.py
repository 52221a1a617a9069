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

"""Flows, and how they run: on TaskFlow's engine (:mod:`taskflow.engines`).

Each flow is built by a module-level factory (``get_flow``) from small
tasks, the first of which is a lifecycle sentinel (or, in the consumers'
connect and disconnect flows, carries one: see
:class:`cinder_ma.manager.tasks.connection.LockAndInitializeConnection`),
and runs on TaskFlow's engine with TaskFlow's semantics: arguments by
``requires``/``rebind``, results by ``provides``; when a task fails, it
and then every task that ran before it are reverted, last first, each
with its ``result`` and the ``flow_failures``, and the failure is
raised. A revert that raises stops
the reverting there (the tasks before it are not reverted) and its error
is raised: our reverts do not raise (they log what they could not undo),
so that the sentinel's revert, the last, always records the failure.

Engines are compiled once (:func:`run`): a factory takes only what a
process keeps for good (a driver, this host's connectors, a kind), and
everything a run has of its own (the context, the ids, the connection
lock, the manager API) is in the store, injected as transient values,
and a run fetches only the results its caller names. TaskFlow costs
about half a millisecond of CPU per task here, so tasks are coarse and
an engine, once compiled, is reset and run again after a success (one
run at a time per engine, another one compiled for a concurrent run or
after a failure) rather than built for each run; nothing is persisted
(:class:`_Unpersisted`): the state of every flow is in the database
rows it changes, and a flow interrupted by a crash is finished or
reverted by the reconcile loop from there.

A listener logs every flow's and task's transitions at debug level, the
failures and reverts at warning level with their traceback, never the
values of the store or of results, and masks passwords in all of it.
"""

import collections
import os
import threading
import traceback

from oslo_log import log as logging
from oslo_utils import strutils
import taskflow.engines
from taskflow.listeners import logging as logging_listener
from taskflow.patterns import linear_flow
from taskflow.persistence import base as persistence_base
from taskflow.persistence import models
from taskflow import states
from taskflow import task as tf_task

from cinder_ma import holds

LOG = logging.getLogger(__name__)

#: TEST ONLY (the fault tests of tests/functional): see
#: :mod:`cinder_ma.holds`; a flow is held before its task of the index
#: the spec gives for the flow's name (its index among the flow's tasks,
#: depth first, see :func:`tasks_of`). Never set it in a deployment.
TEST_HOLD_ENV = holds.ENV

#: TaskFlow's engines: one task at a time on the caller's thread, or the
#: independent tasks of a graph or unordered flow at once on threads.
SERIAL = 'serial'
PARALLEL = 'parallel'

#: Threads of a parallel engine.
MAX_PARALLEL = 8

#: Compiled flows kept per process (factory, arguments, store names).
MAX_CACHED_FLOWS = 256


class _UnpersistedConnection(persistence_base.Connection):
    """A persistence connection that keeps nothing: the engine's storage
    holds the one copy of each detail (see :class:`_Unpersisted`)."""

    def __init__(self, backend):
        self._backend = backend

    @property
    def backend(self):
        return self._backend

    def close(self):
        pass

    def upgrade(self):
        pass

    def clear_all(self):
        pass

    def validate(self):
        pass

    def update_atom_details(self, atom_detail):
        return atom_detail

    def update_flow_details(self, flow_detail):
        return flow_detail

    def save_logbook(self, book):
        return book

    def destroy_logbook(self, book_uuid):
        pass

    def get_logbook(self, book_uuid, lazy=False):
        raise LookupError('nothing is persisted')

    def get_logbooks(self, lazy=False):
        return iter(())

    def get_flows_for_book(self, book_uuid):
        return iter(())

    def get_flow_details(self, fd_uuid, lazy=False):
        raise LookupError('nothing is persisted')

    def get_atom_details(self, ad_uuid):
        raise LookupError('nothing is persisted')

    def get_atoms_for_flow(self, fd_uuid):
        return iter(())


class _Unpersisted(persistence_base.Backend):
    """A TaskFlow persistence backend that persists nothing.

    Without a backend TaskFlow's storage saves every state change into an
    in-memory backend of its own, a copy of what the storage already
    holds: two thirds of the engine's cost for a flow of small tasks.
    Our flows are never resumed from TaskFlow's records (the reconcile
    loop resumes from the database), so they need no copy.
    """

    def __init__(self):
        super().__init__({})
        self._connection = _UnpersistedConnection(self)

    def get_connection(self):
        return self._connection

    def close(self):
        pass


class _MaskingLogger:
    """A logger that formats each record itself and masks secrets in it,
    traceback included (what the listener logs may hold one: a driver's
    exception, say)."""

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


def tasks_of(flow):
    """The tasks of ``flow``, its subflows' depth first, in the order they
    were added."""
    found = []
    for node in flow:
        if isinstance(node, tf_task.Task):
            found.append(node)
        else:
            found.extend(tasks_of(node))
    return found


def _hold(flow):
    """The test hold of :data:`TEST_HOLD_ENV`: a callback for the task
    notifications of an engine of ``flow``."""
    index_of = {atom.name: index
                for index, atom in enumerate(tasks_of(flow))}
    name = flow.name

    def on_running(state, details):
        index = index_of.get(details['task_name'])
        if index is not None:
            holds.hold(name, index, what='flow %s before task %s' % (
                name, details['task_name']))

    return on_running


def _load(flow, store, engine):
    """An engine of ``flow``, compiled, with its listeners, ``store``
    injected (transient: see :func:`_inject`)."""
    options = {}
    if engine == PARALLEL:
        options.update(executor='threaded', max_workers=MAX_PARALLEL)
    loaded = taskflow.engines.load(flow, engine=engine,
                                   backend=_Unpersisted(),
                                   book=models.LogBook(flow.name),
                                   **options)
    _inject(loaded, store)
    logging_listener.DynamicLoggingListener(
        loaded, log=_MaskingLogger(LOG),
        # Names of flows and tasks, never values.
        hide_inputs_outputs_of=[atom.name for atom in tasks_of(flow)],
    ).register()
    if os.environ.get(TEST_HOLD_ENV):
        loaded.atom_notifier.register(states.RUNNING, _hold(flow))
    loaded.compile()
    loaded.prepare()
    return loaded


def _inject(loaded, store):
    """Put ``store`` in the storage of ``loaded`` as transient values:
    TaskFlow's persistent injection keeps them in an atom detail of its
    own, which every look-up of an argument reads through the storage's
    locks, for about a fifth of the engine's cost of a run here; nothing
    is persisted anyway (:class:`_Unpersisted`)."""
    loaded.storage.inject(store, transient=True)


def _run(loaded, fetch):
    loaded.run()
    if fetch is None:
        return loaded.storage.fetch_all()
    return {name: loaded.storage.fetch(name) for name in fetch}


class _Compiled:
    """The engines of one flow, compiled once and run again after a
    success: each runs one flow at a time; a run that finds them all busy
    compiles another (built anew: engines share no task), and so does the
    run after a failure (rare, and a reverted engine keeps its
    failures)."""

    def __init__(self, factory, args, engine):
        self._factory = factory
        self._args = args
        self._engine = engine
        self._idle = []

    def run(self, store, fetch):
        try:
            loaded = self._idle.pop()
        except IndexError:
            loaded = _load(self._factory(*self._args), store, self._engine)
        else:
            loaded.reset()
            _inject(loaded, store)
        try:
            return _run(loaded, fetch)
        finally:
            # Only after a success: TaskFlow's reset does not forget the
            # failures of a reverted run, which the next run would raise
            # with its own, and an engine whose revert failed cannot run
            # again.
            if loaded.storage.get_flow_state() == states.SUCCESS:
                self._idle.append(loaded)


def _arg_key(arg):
    """What tells a factory's argument from another in the cache: a
    string or number by its value (a kind that came over RPC is a new
    string each time, and must not compile a new engine each time);
    anything else by identity (a driver need not be hashable; the entry
    holds ``args``, so their ids stay theirs while it exists)."""
    if arg is None or isinstance(arg, (str, int, float)):
        return (type(arg), arg)
    return id(arg)


_compiled = collections.OrderedDict()
_compiled_lock = threading.Lock()


def run(factory, store, *args, engine=SERIAL, fetch=None):
    """Run the flow ``factory(*args)`` with ``store`` on TaskFlow's
    ``engine`` (its engines compiled once per process).

    :param args: what the flow is built with, the same for every run of
        that flow (a driver, a kind), never a run's own values, which are
        in ``store``.
    :param fetch: the names of the results the caller uses, or None for
        all of them (fetching each name costs the storage's locks).
    :returns: a dict of the store and of everything the tasks provided,
        or of the names in ``fetch`` only.
    :raises: taskflow.exceptions.MissingDependencies before anything ran
        when the store lacks what a task requires; otherwise the error of
        the failed task (or of a revert that failed), after the reverts.
    """
    key = (factory, tuple(map(_arg_key, args)), frozenset(store), engine)
    with _compiled_lock:
        compiled = _compiled.get(key)
        if compiled is None:
            compiled = _compiled[key] = _Compiled(factory, args, engine)
            while len(_compiled) > MAX_CACHED_FLOWS:
                _compiled.popitem(last=False)
        else:
            _compiled.move_to_end(key)
    return compiled.run(store, fetch)


def run_once(flow, store, engine=SERIAL, fetch=None):
    """Run ``flow``, built for this run alone (its shape depends on the
    run: the disks an extend resizes), on TaskFlow's ``engine``.

    :returns: and raises: as :func:`run`.
    """
    return _run(_load(flow, store, engine), fetch)


def linear(name, *tasks):
    """A TaskFlow linear flow of ``tasks``."""
    flow = linear_flow.Flow(name)
    flow.add(*tasks)
    return flow
