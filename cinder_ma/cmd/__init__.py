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

"""Console scripts of cinder_ma.

oslo.service's threading backend is chosen by importing :mod:`cinder_ma`,
before anything here imports oslo_messaging or oslo_service.service.

What every serving process does once, after forking (:func:`freeze_heap`,
:func:`set_switch_interval`), lives here too, called by whatever serves:
the commands and the WSGI entry point (:mod:`cinder_ma.wsgi.api`).
"""

import gc
import json
import os
import signal
import sys
import threading

from oslo_config import cfg
from oslo_log import log as logging
from oslo_reports import guru_meditation_report as gmr
from oslo_reports import opts as gmr_opts

from cinder_ma import conf as cinder_ma_conf  # noqa: F401
from cinder_ma.conf import opts as conf_opts
from cinder_ma import log_lines
from cinder_ma import version

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

# The process whose heap :func:`freeze_heap` froze.
_FROZEN_PID = None


def prepare_service(argv=None, conf=CONF, cli_opts=()):
    """Parse the command line and config files, then set up logging.

    Every command accepts ``--config-file`` and ``--config-dir`` like any
    OpenStack service. Defaults a command wants (``conf.set_default``) must
    be set before calling this, so that configuration files still win.

    :param argv: the full command line, program name first (default
        ``sys.argv``).
    :param cli_opts: extra command line options (sub-commands) to
        register before parsing.
    """
    argv = sys.argv if argv is None else argv
    # Drop what an earlier parse left (tests run several commands in one
    # process); defaults and overrides are kept.
    conf.clear()
    for opt in cli_opts:
        conf.register_cli_opt(opt)
    logging.register_options(conf)
    gmr_opts.set_defaults(conf)
    conf_opts.set_defaults(conf)
    conf(argv[1:], project='cinder_ma',
         version=version.version_info.version_string())
    logging.setup(conf, 'cinder_ma')
    log_lines.install()


#: Where cinder-ma-all keeps its state unless configured otherwise
#: (relative to the directory it was started from), and the record it
#: leaves there for the other commands (:func:`record_all_in_one`).
ALL_IN_ONE_STATE_PATH = './cinder-ma-state'
ALL_IN_ONE_RECORD = 'cinder-ma-all.json'
ALL_IN_ONE_BACKEND = 'file'


def all_in_one_defaults(conf=CONF):
    """The defaults of cinder-ma-all (config files still win)."""
    conf.set_default('rpc_transport', 'local')
    conf.set_default('auth_strategy', 'noauth')
    conf.set_default('state_path', ALL_IN_ONE_STATE_PATH)


def record_all_in_one(conf, state_path):
    """Leave in cinder-ma-all's state directory the configuration it runs
    with, for :func:`find_all_in_one` (cinder-ma-manage and
    cinder-ma-status run from the same directory)."""
    record = {'config_file': [os.path.abspath(f)
                              for f in conf.config_file or ()],
              'config_dir': [os.path.abspath(d)
                             for d in conf.config_dir or ()]}
    path = os.path.join(state_path, ALL_IN_ONE_RECORD)
    temporary = path + '.tmp'
    with open(temporary, 'w') as f:
        json.dump(record, f)
    os.replace(temporary, path)


def _names_configuration(argv):
    return any(arg.split('=', 1)[0] in ('--config-file', '--config-dir')
               for arg in argv[1:])


def find_all_in_one(argv, conf=CONF):
    """Run an administration command against the cinder-ma-all started
    from the current directory, when nothing else says where the state
    is.

    When the command line names no ``--config-file`` or ``--config-dir``,
    oslo.config finds no configuration file of its own, and
    ``./cinder-ma-state`` exists, the command takes cinder-ma-all's
    defaults (state there, in-process RPC, the ``file`` backend) and the
    configuration files cinder-ma-all recorded there at its start, and
    says so on standard error.

    :returns: the command line to parse (``argv`` with those
        ``--config-file`` and ``--config-dir`` options added).
    """
    prog = os.path.basename(argv[0]) if argv else None
    if (_names_configuration(argv) or
            cfg.find_config_files(project='cinder_ma', prog=prog) or
            not os.path.isdir(ALL_IN_ONE_STATE_PATH)):
        return argv
    try:
        with open(os.path.join(ALL_IN_ONE_STATE_PATH,
                               ALL_IN_ONE_RECORD)) as f:
            record = json.load(f)
    except (OSError, ValueError):
        record = {}
    all_in_one_defaults(conf)
    conf.set_default('enabled_backends', [ALL_IN_ONE_BACKEND])
    extra = []
    for path in record.get('config_file') or ():
        extra += ['--config-file', path]
    for path in record.get('config_dir') or ():
        extra += ['--config-dir', path]
    print('%s: using the state of cinder-ma-all in %s%s' % (
        prog, os.path.abspath(ALL_IN_ONE_STATE_PATH),
        ' and its options (%s)' % ' '.join(extra) if extra else ''),
        file=sys.stderr)
    return list(argv[:1]) + extra + list(argv[1:])


def database_hint(conf=CONF):
    """What to do when the database cannot be opened: which database the
    command used, and how to point it at the service's."""
    connection = conf.database.connection or ''
    hint = ('pass the --config-file files the services run with, then '
            'run "cinder-ma-manage db sync" if the database was never '
            'created')
    if connection.startswith('sqlite:'):
        hint = ('this command used the SQLite database in [DEFAULT] '
                'state_path = %s; pass the --config-file files the '
                'services run with, or, for a cinder-ma-all, run this '
                'command from the directory it was started from (its '
                'state is %s there) or pass a --config-file that sets '
                '[DEFAULT] state_path to its state directory; a new '
                'database needs "cinder-ma-manage db sync" first' % (
                    os.path.abspath(conf.state_path),
                    ALL_IN_ONE_STATE_PATH))
    return hint


def setup_guru_meditation(conf=CONF, service_name=None, signals=True):
    """Print a Guru Meditation report (oslo.reports: threads, config,
    package) on SIGUSR2, or when ``[oslo_reports] file_event_handler``
    changes; to ``[oslo_reports] log_dir`` when set, else standard error.

    Called by the long-running commands (cinder-ma-api, -manager, -all)
    in their main thread, after :func:`prepare_service`; their forked
    workers inherit it. The WSGI application calls it in each worker
    with ``signals=False``: there signals belong to the server (and the
    worker sets up in a request's thread, where no signal handler can be
    installed), so only the file trigger works, and its watcher thread
    must start in the worker, after the fork.

    A trigger file that does not exist yet is created (empty), so that
    touching it later gives a report; one that cannot be created leaves
    reports off, with an error in the log, and the service runs.
    """
    trigger = conf.oslo_reports.file_event_handler
    if trigger and not os.path.exists(trigger):
        try:
            with open(trigger, 'a'):
                pass
        except OSError as exc:
            LOG.error('Guru Meditation reports are off: [oslo_reports] '
                      'file_event_handler %s cannot be created: %s',
                      trigger, exc)
            return
    gmr.TextGuruMeditation.setup_autorun(
        version.version_info, service_name=service_name or conf.prog,
        conf=conf, setup_signal=signals)
    if not trigger and not signals:
        LOG.debug('Guru Meditation reports need [oslo_reports] '
                  'file_event_handler here: signals belong to the server')


def sigint_as_sigterm():
    """Have SIGINT (Ctrl-C) stop the process and its workers as gracefully
    as SIGTERM.

    oslo.service's launchers (cotyledon) exit at once on SIGINT, in the
    parent and in every worker, losing the work in flight (a create
    accepted with 202 whose in-process cast is running). Call this in
    the main thread before the launcher forks: SIGINT is blocked in this
    process and, inherited, in every worker it forks (so a Ctrl-C sent to
    the whole process group reaches no worker), and a thread of this
    process waits for it and sends the process SIGTERM, which stops the
    workers gracefully (requests and casts in flight finish). A second
    Ctrl-C changes nothing; ``[DEFAULT] graceful_shutdown_timeout`` still
    bounds the stop.
    """
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

    def relay():
        while True:
            signal.sigwait({signal.SIGINT})
            LOG.info('Caught SIGINT: stopping gracefully, as on SIGTERM')
            os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=relay, name='cinder-ma-sigint',
                     daemon=True).start()


def freeze_heap(conf=CONF):
    """Keep what the process holds once it is ready to serve out of the
    garbage collector's full collections (once per process), when
    ``[api] gc_young_threshold`` is not 0 (it is 0 by default: see
    docs/contributor/performance.rst).

    A list response makes tens of thousands of containers at once, enough
    to set off full collections, each of which would otherwise walk every
    object of the process (modules, configuration, policy, routes...) for
    tens of milliseconds. Those objects live as long as the process;
    frozen (:func:`gc.freeze`), they are no longer walked. The garbage is
    collected first, so that none is kept for ever.

    The young generation is then collected every ``[api]
    gc_young_threshold`` allocations instead of Python's 700:
    the records and rows of a request live until its response is written,
    and with Python's threshold each of them is walked by several collections
    before then (a tenth of the CPU of a list of a thousand volumes).

    Whatever serves the API calls this once its application is built, in
    the process that serves it (after forking): cinder-ma-api and
    cinder-ma-all (and each of their workers) in
    :func:`cinder_ma.cmd.api.load_app`, the WSGI entry point in
    :func:`cinder_ma.wsgi.api.init_application`. A process forked from one
    that froze its heap freezes its own.
    """
    global _FROZEN_PID
    threshold = conf.api.gc_young_threshold
    if threshold and _FROZEN_PID != os.getpid():
        _FROZEN_PID = os.getpid()
        gc.collect()
        gc.freeze()
        gc.set_threshold(threshold, *gc.get_threshold()[1:])


def set_switch_interval(conf=CONF):
    """Set Python's thread switch interval of a process that serves the
    API to ``[api] switch_interval`` (see its help and
    docs/contributor/performance.rst).

    Called where :func:`freeze_heap` is, in the process that serves.
    """
    sys.setswitchinterval(conf.api.switch_interval)
