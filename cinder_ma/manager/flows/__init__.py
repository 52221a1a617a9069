"""Flows of the manager and the one helper that runs them.

Each flow is built by a module-level factory (``get_flow``) from small
tasks, the first of which is a lifecycle sentinel. :func:`run_flow` runs
it on TaskFlow's serial engine (about 2 ms per flow; the threaded executor
costs a second per run) with a logging listener that masks secrets.
"""

import traceback

from oslo_log import log as logging
from oslo_utils import strutils
from taskflow import engines
from taskflow.listeners import logging as tf_logging

LOG = logging.getLogger(__name__)

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
    """The serial engine for ``flow``, not yet run."""
    return engines.load(flow, store=store, engine='serial')


def run_flow(flow, store, log=LOG):
    """Run ``flow`` with ``store`` and log its progress, secrets masked.

    :returns: the engine (its storage holds the tasks' results).
    :raises: the exception of the failed task, after every task reverted.
    """
    engine = load(flow, store)
    listener = tf_logging.DynamicLoggingListener(
        engine, log=_MaskingLogger(log), mask_inputs_keys=SECRET_KEYS,
        mask_outputs_keys=SECRET_KEYS)
    with listener:
        engine.run()
    return engine
