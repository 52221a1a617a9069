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

"""Fixtures of the functional tests: cinder_ma's commands as real
processes.

* :class:`AllInOne` -- ``cinder-ma-all`` (API and manager in one process,
  SQLite and the file backend in a temporary state directory).
* :class:`Deployment` -- the multi-process deployment: a throw-away
  PostgreSQL (or MariaDB) database migrated by ``cinder-ma-manage db
  sync``, then ``cinder-ma-manager`` and ``cinder-ma-api`` as separate
  processes talking over RabbitMQ. Call
  :func:`require_deployment_services` first: it skips the test (or fails
  it under ``CINDER_MA_REQUIRE_SERVICES=1``) when PostgreSQL or RabbitMQ
  is not reachable.
* :class:`TestDrivers` -- the drivers of :mod:`tests.functional.drivers`
  (a recording storage driver) registered as plugins for the processes
  started with its environment.
* :class:`WSGIServer` -- ``cinder_ma.wsgi.api:application`` served by
  waitress' own command line (``python -m waitress``), configured through
  ``OS_CINDER_MA_CONFIG_FILES``.
* :class:`Keystone` -- a real Keystone (the ``keystone`` package): SQLite,
  fernet tokens, bootstrapped by ``keystone-manage``, served on loopback
  by ``tools/keystone_wsgi.py``; with helpers to make projects, users and
  role assignments, and the ``[keystone_authtoken]`` section of a service
  that validates its tokens.

Every process runs in a session of its own, writes its log, standard
output and standard error to files in the fixture's directory (no pipe to
fill up), and is stopped on cleanup by SIGTERM to its process group, then
SIGKILL after :data:`STOP_TIMEOUT` seconds. A process that fails to start
raises :class:`ServiceFailed` with the tail of its standard error and log.

Starting processes costs seconds: :func:`class_fixture` shares one fixture
between the tests of a class; with ``CINDER_MA_TEST_FORKSERVER=1`` (as
``tox -e functional`` sets it), cinder_ma's own commands are forked from
a warm interpreter of theirs (:class:`ForkServer`) rather than started
from scratch: each is still a process of its own, in a session of its
own, killed as any.
"""

import atexit
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

import amqp.exceptions
import fixtures
import kombu
import requests
from testtools import content

from tests import fixtures as cm_fixtures
from tests.functional import drivers

#: The venv's console scripts are next to its interpreter.
BIN_DIR = os.path.dirname(sys.executable)
#: Seconds a process may take to be ready, and to stop after SIGTERM.
START_TIMEOUT = 60
STOP_TIMEOUT = 20
#: Seconds an HTTP request of the tests may take.
HTTP_TIMEOUT = 30

#: The line cinder-ma-all prints once it serves.
READY = re.compile(r'^cinder-ma-all: API listening on (http://\S+)/v3 '
                   r'\(state in (.+)\)$', re.MULTILINE)

#: noauth tokens ("user:project"); without X-Roles the caller is an admin.
ADMIN_TOKEN = 'admin:admin'
ADMIN_PROJECT = 'admin'

_MODULES = {
    'cinder-ma-all': 'cinder_ma.cmd.all',
    'cinder-ma-api': 'cinder_ma.cmd.api',
    'cinder-ma-manage': 'cinder_ma.cmd.manage',
    'cinder-ma-manager': 'cinder_ma.cmd.manager',
}

#: The manager's RPC topic (cinder_ma.manager.rpcapi.ManagerAPI.TOPIC).
MANAGER_TOPIC = 'cinder-ma-manager'


#: The top of the source tree (the directory holding ``tests``).
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class ServiceFailed(Exception):
    """A process did not start, or not in time."""


def command(name):
    """The argv prefix of a console script of cinder_ma: the script of the
    running interpreter's environment, else ``python -m`` its module."""
    script = os.path.join(BIN_DIR, name)
    if os.access(script, os.X_OK):
        return [script]
    return [sys.executable, '-m', _MODULES[name]]


def environ(**extra):
    """The environment of the processes: ours, without warnings on
    standard error (eventlet's deprecation, for one), plus ``extra``."""
    env = dict(os.environ, PYTHONWARNINGS='ignore')
    env.update(extra)
    return env


class TestDrivers(fixtures.Fixture):
    """The drivers of :mod:`tests.functional.drivers`, registered as
    plugins for the processes that get :attr:`env`.

    Entry points come from installed distributions; this one is a
    ``.dist-info`` directory in a temporary directory that :attr:`env`
    puts on ``PYTHONPATH`` (with the source tree, for the module), so
    that nothing is installed in the environment the tests run from.

    * ``recording_file`` (``cinder_ma.volume.drivers``):
      :class:`tests.functional.drivers.RecordingFileDriver`, recording
      into :attr:`record_path` (read with :meth:`calls`).
    """

    ENTRY_POINTS = {
        'cinder_ma.volume.drivers': {
            'recording_file':
                'tests.functional.drivers:RecordingFileDriver'},
    }

    def _setUp(self):
        self.directory = self.useFixture(fixtures.TempDir()).path
        dist_info = os.path.join(self.directory,
                                 'cinder_ma_test_drivers-0.dist-info')
        os.mkdir(dist_info)
        with open(os.path.join(dist_info, 'METADATA'), 'w') as f:
            f.write('Metadata-Version: 2.1\nName: cinder-ma-test-drivers\n'
                    'Version: 0\n')
        with open(os.path.join(dist_info, 'entry_points.txt'), 'w') as f:
            for group, points in self.ENTRY_POINTS.items():
                f.write('[%s]\n' % group)
                for name, value in points.items():
                    f.write('%s = %s\n' % (name, value))
        self.record_path = os.path.join(self.directory, 'calls.jsonl')
        self.env = environ(**{
            'PYTHONPATH': os.pathsep.join([self.directory, SOURCE_ROOT]),
            drivers.RECORD_ENV: self.record_path})

    def calls(self, call=None, volume_id=None):
        """The recorded calls, of one kind and volume when given."""
        return [c for c in drivers.read_record(self.record_path)
                if (call is None or c['call'] == call) and
                (volume_id is None or c['volume_id'] == volume_id)]


def free_port(host='127.0.0.1'):
    """A TCP port nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def unique(prefix):
    """A name no other test (or test run) uses."""
    return '%s-%s' % (prefix, uuid.uuid4().hex[:12])


def fixture_directory(fixture, directory=None):
    """``directory`` (made when missing) to keep a fixture's files after
    it, or a temporary directory removed on its cleanup."""
    if directory is None:
        return fixture.useFixture(fixtures.TempDir()).path
    os.makedirs(directory, exist_ok=True)
    return directory


def write_config(path, sections):
    """Write an ini file from ``{section: {option: value}}``."""
    with open(path, 'w') as f:
        for section, values in sections.items():
            f.write('[%s]\n' % section)
            for key, value in values.items():
                f.write('%s = %s\n' % (key, value))
            f.write('\n')
    return path


def _tail(path, lines=40):
    if not path:
        return ''
    try:
        with open(path, errors='replace') as f:
            return ''.join(f.readlines()[-lines:])
    except OSError:
        return ''


def wait_for(predicate, what, timeout=START_TIMEOUT, processes=(),
             interval=0.1):
    """Poll ``predicate()`` until it returns something true; return it.

    :param processes: :class:`Process` fixtures that must keep running
        meanwhile.
    :raises ServiceFailed: one of them exited, or ``timeout`` passed.
    """
    deadline = time.monotonic() + timeout
    while True:
        for process in processes:
            if not process.running():
                raise ServiceFailed('%s exited while waiting for %s.\n%s'
                                    % (process.name, what,
                                       process.describe()))
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise ServiceFailed('no %s within %s s.\n%s' % (
                what, timeout, '\n'.join(p.describe() for p in processes)))
        time.sleep(interval)


def run_command(argv, directory, env=None, timeout=START_TIMEOUT):
    """Run a command to its end (forked by a :class:`ForkServer` when it
    is one of cinder_ma's, see :func:`spawn`), its standard output and
    error captured.

    :returns: a :class:`subprocess.CompletedProcess` (text).
    :raises subprocess.TimeoutExpired: after ``timeout`` seconds (the
        process SIGKILLed).
    """
    env = env or environ()
    with tempfile.TemporaryDirectory(prefix='cinder-ma-run-') as tmp:
        paths = [os.path.join(tmp, name) for name in ('stdout', 'stderr')]
        with open(paths[0], 'w') as out, open(paths[1], 'w') as err:
            proc = spawn(argv, directory, env, out, err)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            raise
        outputs = []
        for path in paths:
            with open(path, errors='replace') as f:
                outputs.append(f.read())
    return subprocess.CompletedProcess(argv, proc.returncode, *outputs)


def run(argv, directory, name, timeout=START_TIMEOUT):
    """Run a command to its end; raise ServiceFailed if it fails."""
    result = run_command(argv, directory, timeout=timeout)
    if result.returncode != 0:
        raise ServiceFailed('%s exited with %s.\nstdout:\n%s\nstderr:\n%s'
                            % (name, result.returncode, result.stdout,
                               result.stderr))
    return result


class ForkedProcess:
    """A process forked by a :class:`ForkServer`, with the part of
    :class:`subprocess.Popen` that :class:`Process` uses: ``pid``,
    ``returncode``, ``poll()`` and ``wait()``. It is not our child: its
    exit status is the one its server wrote before reaping it."""

    def __init__(self, pid, status_path, server):
        self.pid = pid
        self.returncode = None
        self._status_path = status_path
        self._server = server

    def poll(self):
        if self.returncode is None:
            try:
                with open(self._status_path) as f:
                    self.returncode = int(f.read())
            except FileNotFoundError:
                if self._server.poll() is not None:
                    # Its server is gone (the test process is ending):
                    # init reaps it, its status is not known.
                    try:
                        os.kill(self.pid, 0)
                    except ProcessLookupError:
                        self.returncode = 255
        return self.returncode

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout)
            time.sleep(ForkServer.POLL)
        return self.returncode


class ForkServer:
    """A warm interpreter of one of cinder_ma's commands
    (:mod:`tests.functional.forkserver`): the command's module imported
    once, then a process forked from it for each start of the command,
    which runs its ``main()`` as the console script does. It saves each
    start the seconds of Python's imports (most of the time of a
    ``cinder-ma-manage`` command, a manager's start).

    One server per command and test process, started on first use with
    :func:`environ`; :func:`spawn` uses it only for a process whose
    environment gives the interpreter the same ``PYTHON*`` variables
    (what the imports saw). Only with ``CINDER_MA_TEST_FORKSERVER=1``
    (set by ``tox -e functional``, which also has a :class:`Deployment`
    stop its processes together); else every process starts from
    scratch.
    """

    SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          'forkserver.py')
    #: Modules that a command's ``main()`` imports on its way (every
    #: command: the auth middleware, for its options' defaults), which
    #: its server imports too.
    WARM = {
        'cinder_ma.cmd.manage': ['cinder_ma.manager.rpcapi',
                                 'cinder_ma.manager.service'],
        'cinder_ma.cmd.api': ['cinder_ma.api.app', 'cinder_ma.api.auth'],
    }
    WARM_ALL = ['keystonemiddleware.auth_token']
    #: Seconds between two looks at a forked process's exit status.
    POLL = 0.02
    _servers = {}
    _lock = threading.Lock()

    def __init__(self, module):
        self.module = module
        self.directory = tempfile.mkdtemp(prefix='cinder-ma-forkserver-')
        self.env = environ()
        self.count = 0
        with open(os.path.join(self.directory, 'server.stderr'),
                  'w') as err:
            self.proc = subprocess.Popen(
                [sys.executable, self.SCRIPT, BIN_DIR, module] +
                self.WARM_ALL + self.WARM.get(module, []),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                cwd=self.directory, env=self.env, start_new_session=True)
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            tail = _tail(os.path.join(self.directory, 'server.stderr'))
            shutil.rmtree(self.directory, True)
            raise ServiceFailed('fork server of %s exited: %s' % (
                module, tail))

    @staticmethod
    def _python_vars(env):
        return {k: v for k, v in env.items() if k.startswith('PYTHON')}

    @classmethod
    def enabled(cls):
        return os.environ.get('CINDER_MA_TEST_FORKSERVER') == '1'

    @classmethod
    def for_command(cls, argv, env):
        """The server for ``argv`` (a console script of cinder_ma's, as
        :func:`command` gives it) in ``env``, or None."""
        module = _MODULES.get(os.path.basename(argv[0]))
        if (not cls.enabled() or module is None or
                os.path.dirname(argv[0]) != BIN_DIR):
            return None
        if module not in cls._servers:
            try:
                cls._servers[module] = cls(module)
            except (OSError, ServiceFailed) as exc:
                # Started from scratch then, as without the variable.
                print('cinder_ma tests: no fork server of %s: %s' % (
                    module, exc), file=sys.stderr)
                cls._servers[module] = None
        server = cls._servers[module]
        if (server is None or server.proc.poll() is not None or
                cls._python_vars(env) != cls._python_vars(server.env)):
            return None
        return server

    def spawn(self, argv, cwd, env, stdout, stderr):
        """Fork a process running ``argv``; a :class:`ForkedProcess`."""
        self.count += 1
        status = os.path.join(self.directory, '%d.status' % self.count)
        request = {'argv': argv, 'cwd': cwd, 'env': env,
                   'stdout': stdout, 'stderr': stderr, 'status': status}
        self.proc.stdin.write(json.dumps(request).encode() + b'\n')
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise ServiceFailed('fork server of %s exited: %s' % (
                self.module, _tail(os.path.join(self.directory,
                                                'server.stderr'))))
        return ForkedProcess(json.loads(answer)['pid'], status, self.proc)

    @classmethod
    def close_all(cls):
        """End the servers (end of input; their children run on)."""
        for server in list(cls._servers.values()):
            if server is None:
                continue
            server.proc.stdin.close()
            try:
                server.proc.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                server.proc.kill()
                server.proc.wait()
            shutil.rmtree(server.directory, True)
        cls._servers.clear()


def spawn(argv, cwd, env, stdout, stderr):
    """Start ``argv`` in a session of its own, standard input from
    /dev/null, standard output and error into the files ``stdout`` and
    ``stderr``: forked by a :class:`ForkServer` when it is one of
    cinder_ma's commands, else by :class:`subprocess.Popen`."""
    with ForkServer._lock:
        server = ForkServer.for_command(argv, env)
        if server is not None:
            return server.spawn(argv, cwd, env, stdout.name, stderr.name)
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=stdout,
                            stderr=stderr, cwd=cwd, env=env,
                            start_new_session=True)


# Processes left running by a test runner that never ran the cleanups
# (interrupted, or a class cleanup not called): stopped at exit.
_RUNNING = set()


@atexit.register
def _stop_leftovers():
    for process in list(_RUNNING):
        process.stop(timeout=5)
    ForkServer.close_all()


class Process(fixtures.Fixture):
    """A command running in a session (and process group) of its own.

    :param name: names its files ``<name>.stdout``, ``<name>.stderr``
        and ``<name>.log`` in ``directory``.
    :param log_file: True to pass ``--log-file <name>.log`` (oslo.log) to
        the command; else the path of the log it writes by itself (its
        configuration), or None.
    """

    def __init__(self, name, argv, directory, env=None, log_file=True):
        super().__init__()
        self.name = name
        self.directory = directory
        self.stdout_path = os.path.join(directory, name + '.stdout')
        self.stderr_path = os.path.join(directory, name + '.stderr')
        self.argv = list(argv)
        if log_file is True:
            log_file = os.path.join(directory, name + '.log')
            self.argv += ['--log-file', log_file]
        self.log_path = log_file
        self.env = env
        self.proc = None

    def _setUp(self):
        with open(self.stdout_path, 'w') as out, \
                open(self.stderr_path, 'w') as err:
            self.proc = spawn(self.argv, self.directory,
                              self.env or environ(), out, err)
        _RUNNING.add(self)
        self.addCleanup(self.stop)

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stdout(self):
        with open(self.stdout_path, errors='replace') as f:
            return f.read()

    def describe(self):
        """Status, standard error and log of the process, for failures."""
        if self.proc is None:
            return '%s: not started' % self.name
        status = ('running' if self.running() else
                  'exit status %s' % self.proc.returncode)
        return ('%s (pid %s, %s): %s\n--- stderr (tail):\n%s'
                '--- log (tail):\n%s' % (
                    self.name, self.proc.pid, status, ' '.join(self.argv),
                    _tail(self.stderr_path), _tail(self.log_path)))

    def _signal_group(self, signo):
        # Only while the leader is not reaped: its pid (the group's id)
        # cannot have been reused.
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signo)
            except ProcessLookupError:
                pass

    def stop(self, signo=signal.SIGTERM, timeout=STOP_TIMEOUT,
             signalled=False):
        """Signal the process group; SIGKILL it after ``timeout`` seconds.

        :param signalled: it was sent ``signo`` already (by
            :func:`stop_together`): only wait.
        :returns: the exit status of the process.
        """
        if self.proc is None:
            return None
        if not signalled:
            self._signal_group(signo)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._signal_group(signal.SIGKILL)
            self.proc.wait()
        _RUNNING.discard(self)
        return self.proc.returncode

    def kill(self):
        """SIGKILL the process and its children at once (a crash)."""
        return self.stop(signal.SIGKILL)


def stop_together(processes, timeout=STOP_TIMEOUT):
    """Stop ``processes`` as :meth:`Process.stop` does, but SIGTERM them
    all first, then wait for each: they shut down side by side rather
    than one after the other."""
    processes = [p for p in processes if p.running()]
    for process in processes:
        process._signal_group(signal.SIGTERM)
    for process in processes:
        process.stop(timeout=timeout, signalled=True)


def http_get(url, token=None, timeout=2):
    """The JSON body of a successful GET, or None (refused or failed)."""
    headers = {'X-Auth-Token': token} if token else {}
    try:
        response = requests.get(url, headers=headers, timeout=timeout)
    except requests.RequestException:
        return None
    if response.status_code >= 400:
        return None
    return response.json()


class _Server(fixtures.Fixture):
    """Common parts of the fixtures serving the API.

    ``url`` is the server's root (``http://127.0.0.1:PORT``), ``endpoint``
    the v3 API (``<url>/v3``).
    """

    url = None

    def processes(self):
        """The fixture's processes, for failure reports."""
        return []

    def attach_logs_on_failure(self, testcase):
        """Have a failing ``testcase`` show the status, standard error and
        log tail of the processes."""
        def attach(exc_info):
            for process in self.processes():
                testcase.addDetail(process.name, content.text_content(
                    process.describe()))
        testcase.addOnException(attach)

    @property
    def endpoint(self):
        return self.url + '/v3'

    def project_url(self, project):
        return '%s/%s' % (self.endpoint, project)

    def services(self, **query):
        """The os-services list, as an admin."""
        try:
            response = requests.get(
                self.project_url(ADMIN_PROJECT) + '/os-services',
                params=query, headers={'X-Auth-Token': ADMIN_TOKEN},
                timeout=HTTP_TIMEOUT)
        except requests.RequestException:
            return None
        if response.status_code != 200:
            return None
        return response.json()['services']

    def service_states(self):
        """{(binary, host): state} of every service."""
        return {(s['binary'], s['host']): s['state']
                for s in self.services() or ()}


class AllInOne(_Server):
    """``cinder-ma-all`` with its state in a temporary directory.

    It listens on a port the kernel chooses (``[api] port = 0``), read
    from the line the command prints once it serves.

    :param config: extra ``{section: {option: value}}``.
    :param previous: an AllInOne (stopped) whose directory, state and
        host this one takes over: the same service started again.
    :param env: the process's environment (default: :func:`environ`).
    """

    def __init__(self, config=None, previous=None, env=None):
        super().__init__()
        self.extra_config = config or {}
        self.previous = previous
        self.env = env

    def _setUp(self):
        if self.previous is not None:
            self.directory = self.previous.directory
            self.host = self.previous.host
        else:
            self.directory = self.useFixture(fixtures.TempDir()).path
            self.host = unique('aio')
        self.state_path = os.path.join(self.directory, 'state')
        self.volumes_dir = os.path.join(self.state_path, 'volumes')
        sections = {
            'DEFAULT': {'host': self.host, 'state_path': self.state_path,
                        'auth_strategy': 'noauth'},
            # Several workers whatever the machine's CPU count, so that
            # requests of a test meet on different processes.
            'api': {'host_ip': '127.0.0.1', 'port': 0, 'workers': 2},
        }
        for section, values in self.extra_config.items():
            sections.setdefault(section, {}).update(values)
        self.config_file = write_config(
            os.path.join(self.directory, 'cinder-ma.conf'), sections)
        name = 'cinder-ma-all'
        if self.previous is not None:
            name += '-again'
        self.process = self.useFixture(Process(
            name,
            command('cinder-ma-all') + ['--config-file', self.config_file],
            self.directory, env=self.env))
        match = wait_for(lambda: READY.search(self.process.stdout()),
                         '"API listening" line of cinder-ma-all',
                         processes=[self.process])
        self.url = match.group(1)
        self.reported_state_path = match.group(2)

    def processes(self):
        return [self.process]


class ServerDatabase(cm_fixtures.Database):
    """A throw-away database on a server (dropped on cleanup), neither
    migrated nor used by this process: the commands under test do that.
    """

    def _setUp(self):
        self.url = self._create_server_db()


def _host_port(url, default_port):
    parts = urllib.parse.urlsplit(url)
    return parts.hostname or '127.0.0.1', parts.port or default_port


def require_deployment_services(testcase):
    """Skip ``testcase`` (fail it with CINDER_MA_REQUIRE_SERVICES=1) unless
    PostgreSQL and RabbitMQ are reachable.

    :returns: the admin URL of the PostgreSQL server.
    """
    url = cm_fixtures.server_url_or_skip(testcase, 'postgresql')
    host, port = _host_port(cm_fixtures.RABBIT_URL, 5672)
    if not cm_fixtures.port_open(host, port):
        cm_fixtures.skip_or_fail(testcase, 'RabbitMQ is not reachable at '
                                           '%s:%s' % (host, port))
    return url


def _broker_url():
    parts = urllib.parse.urlsplit(cm_fixtures.RABBIT_URL)
    return parts._replace(scheme='amqp').geturl()


def durable_queues():
    """Whether deployments on the shared broker can use durable queues
    (``[oslo_messaging_rabbit] amqp_durable_queues``, True by default).

    The manager's topic queue is shared by every deployment on the broker
    (its name is the topic), and RabbitMQ refuses to declare it again with
    another durability: when an earlier run (of an older release) left it
    transient, deployments of these tests stay transient too rather than
    fail. It is never deleted or changed here (other runs may use it).
    """
    with kombu.Connection(_broker_url(), connect_timeout=5) as conn:
        channel = conn.channel()
        try:
            channel.queue_declare(MANAGER_TOPIC, durable=True,
                                  auto_delete=False)
        except amqp.exceptions.PreconditionFailed:
            return False
    return True


class Deployment(_Server):
    """The API and a manager in two processes, PostgreSQL (or MariaDB) and
    RabbitMQ.

    The node's ``host`` and the RPC ``control_exchange`` are unique, so
    that deployments sharing the broker (parallel tests, other runs) never
    exchange messages; the manager's queue and the exchange are deleted
    from the broker on cleanup.

    :param admin_url: the admin URL of the database server, PostgreSQL
        (see :func:`require_deployment_services`) or MariaDB/MySQL
        (``mysql+pymysql://``); a throw-away database is made in it.
    :param report_interval, service_down_time: ``[manager]`` options,
        short so that a dead manager shows ``down`` within seconds.
    :param config: extra ``{section: {option: value}}``.
    :param env: the processes' environment (default: :func:`environ`).
    :param manager_env: the environment of the first manager (default:
        ``env``), one that the hold points of the fault tests hold
        (:mod:`cinder_ma.holds`) while the API's do not.
    :param api_hosts: how many cinder-ma-api processes to run, each as if
        on a host of its own: from the second on, with a state directory
        (so lock files) of its own and another port (:attr:`api_urls`).
    :param directory: where the files go (kept), instead of a temporary
        directory.
    """

    BACKEND = 'file'

    def __init__(self, admin_url, report_interval=1, service_down_time=3,
                 config=None, env=None, api_hosts=1, directory=None,
                 manager_env=None):
        super().__init__()
        self.admin_url = admin_url
        self.report_interval = report_interval
        self.service_down_time = service_down_time
        self.extra_config = config or {}
        self.env = env
        self.manager_env = manager_env
        self.api_hosts = api_hosts
        self.directory = directory

    def _setUp(self):
        self.directory = fixture_directory(self, self.directory)
        self.state_path = os.path.join(self.directory, 'state')
        self.volumes_dir = os.path.join(self.state_path, 'volumes')
        self.host = unique('mp')
        self.backend_host = '%s@%s' % (self.host, self.BACKEND)
        self.exchange = 'cinder_ma_test_%s' % uuid.uuid4().hex[:12]
        self.database = self.useFixture(ServerDatabase(self.admin_url))
        self.port = free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        sections = {
            'DEFAULT': {
                'host': self.host, 'state_path': self.state_path,
                'auth_strategy': 'noauth', 'rpc_transport': 'oslo',
                'transport_url': cm_fixtures.RABBIT_URL,
                'control_exchange': self.exchange,
                'enabled_backends': self.BACKEND,
                'rpc_response_timeout': 10},
            self.BACKEND: {'volume_driver': 'file'},
            'database': {'connection': self.database.url},
            'api': {'host_ip': '127.0.0.1', 'port': self.port},
            'manager': {'report_interval': self.report_interval,
                        'service_down_time': self.service_down_time},
            'oslo_messaging_rabbit': {
                'amqp_durable_queues': durable_queues()},
        }
        for section, values in self.extra_config.items():
            sections.setdefault(section, {}).update(values)
        self.config_file = write_config(
            os.path.join(self.directory, 'cinder-ma.conf'), sections)
        # Registered before the processes start: runs after they stopped.
        self.addCleanup(self._clean_broker)
        run(command('cinder-ma-manage') + [
            '--config-file', self.config_file, 'db', 'sync'],
            self.directory, 'cinder-ma-manage db sync')
        self.managers = []
        self.start_manager(self.manager_env)
        self.apis = []
        self.api_urls = []
        for index in range(self.api_hosts):
            self._start_api(index)
        self.api = self.apis[0]
        self.addCleanup(self._stop_processes)
        self.wait_for_services('up')

    def _start_api(self, index):
        name = 'cinder-ma-api'
        argv = command(name) + ['--config-file', self.config_file]
        port = self.port
        if index:
            name += '-%d' % (index + 1)
            port = free_port()
            argv += ['--config-file', write_config(
                os.path.join(self.directory, name + '.conf'), {
                    'DEFAULT': {'state_path': os.path.join(
                        self.directory, 'state-' + name)},
                    'api': {'port': port}})]
        api = self.useFixture(Process(name, argv, self.directory,
                                      env=self.env))
        url = 'http://127.0.0.1:%d' % port
        wait_for(lambda: http_get(url + '/'), 'answer of ' + name,
                 processes=[api])
        self.apis.append(api)
        self.api_urls.append(url)

    def _stop_processes(self):
        """On cleanup, before each process's own (which then finds it
        stopped): stop them all together, with
        ``CINDER_MA_TEST_FORKSERVER=1`` (see :class:`ForkServer`)."""
        if ForkServer.enabled():
            stop_together(self.processes())

    @property
    def manager(self):
        """The node's manager process started last."""
        return self.managers[-1]

    def start_manager(self, env=None):
        """Start the node's manager (again: its files get a number).

        :param env: the process's environment (default: the
            deployment's).
        """
        name = 'cinder-ma-manager'
        if self.managers:
            name += '-%d' % (len(self.managers) + 1)
        self.managers.append(self.useFixture(Process(
            name, command('cinder-ma-manager') + [
                '--config-file', self.config_file],
            self.directory, env=env if env is not None else self.env)))
        if getattr(self, 'apis', None):
            # Before its own cleanup (cleanups run last first).
            self.addCleanup(self._stop_processes)
        return self.manager

    def processes(self):
        return self.apis + self.managers

    def wait_for_services(self, state, timeout=START_TIMEOUT):
        """Wait until the node's manager and backend show ``state``."""
        wanted = {('cinder-ma-manager', self.host): state,
                  # Backends are listed under Cinder's name.
                  ('cinder-volume', self.backend_host): state}

        def reached():
            states = self.service_states()
            return all(states.get(k) == v for k, v in wanted.items())

        processes = [self.api]
        if state == 'up':
            processes.append(self.manager)
        return wait_for(reached, 'services %s' % json.dumps(
            {'%s %s' % k: v for k, v in wanted.items()}),
            timeout=timeout, processes=processes)

    def _clean_broker(self):
        """Delete what this deployment alone declared on the broker: its
        node's queue and its exchange."""
        with kombu.Connection(_broker_url(), connect_timeout=5) as conn:
            channel = conn.channel()
            channel.queue_delete('%s.%s' % (MANAGER_TOPIC, self.host))
            channel.exchange_delete(self.exchange)


class WSGIServer(_Server):
    """``cinder_ma.wsgi.api:application`` under ``python -m waitress``, or
    under gunicorn (``server='gunicorn'``: a master and ``workers``
    forked threaded workers, as in docs/install.rst).

    The configuration (a SQLite database in a temporary state directory,
    migrated by ``cinder-ma-manage db sync``) reaches the application
    through ``OS_CINDER_MA_CONFIG_FILES`` only.

    :param config: ``{section: {option: value}}`` added to it; a value
        may name ``{directory}``, the fixture's temporary directory.
    """

    def __init__(self, config=None, server='waitress', workers=2):
        super().__init__()
        self.extra_config = config or {}
        self.server = server
        self.workers = workers

    def _setUp(self):
        self.directory = self.useFixture(fixtures.TempDir()).path
        self.state_path = os.path.join(self.directory, 'state')
        self.log_path = os.path.join(self.directory, 'application.log')
        sections = {'DEFAULT': {'state_path': self.state_path,
                                'auth_strategy': 'noauth',
                                'log_file': self.log_path}}
        for section, values in self.extra_config.items():
            sections.setdefault(section, {}).update({
                key: str(value).format(directory=self.directory)
                for key, value in values.items()})
        self.config_file = write_config(
            os.path.join(self.directory, 'cinder-ma.conf'), sections)
        run(command('cinder-ma-manage') + [
            '--config-file', self.config_file, 'db', 'sync'],
            self.directory, 'cinder-ma-manage db sync')
        port = free_port()
        self.url = 'http://127.0.0.1:%d' % port
        if self.server == 'gunicorn':
            argv = [sys.executable, '-m', 'gunicorn',
                    '--workers', str(self.workers),
                    '--worker-class', 'gthread', '--threads', '4',
                    '--bind', '127.0.0.1:%d' % port]
        else:
            argv = [sys.executable, '-m', 'waitress',
                    '--listen=127.0.0.1:%d' % port]
        self.process = self.useFixture(Process(
            self.server, argv + ['cinder_ma.wsgi.api:application'],
            self.directory, log_file=self.log_path,
            env=environ(OS_CINDER_MA_CONFIG_FILES=self.config_file)))
        wait_for(lambda: http_get(self.url + '/'),
                 'answer of %s' % self.server, processes=[self.process])

    def processes(self):
        return [self.process]


def class_fixture(testcase, factory, key=None):
    """The fixture ``factory()`` shared by the tests of ``testcase``'s
    class: set up by the first test that asks, cleaned up after the class's
    last test (a class cleanup).

    :param key: names the fixture among those of the class (default: the
        factory itself).

    A fixture that fails to set up is not kept: the next test tries again
    and reports its own failure.
    """
    key = factory if key is None else key
    cls = type(testcase)
    cache = cls.__dict__.get('_class_fixtures')
    if cache is None:
        cache = {}
        cls._class_fixtures = cache
    fixture = cache.get(key)
    if fixture is None:
        fixture = factory()
        fixture.setUp()
        cache[key] = fixture
        cls.addClassCleanup(_drop_class_fixture, cache, key)
    return fixture


def _drop_class_fixture(cache, key):
    cache.pop(key).cleanUp()


#: The module that serves Keystone (tools/keystone_wsgi.py).
KEYSTONE_WSGI = os.path.join(SOURCE_ROOT, 'tools', 'keystone_wsgi.py')


class Keystone(_Server):
    """A real Keystone on a free loopback port.

    SQLite database, fernet tokens and credential keys in a temporary
    directory; ``keystone-manage bootstrap`` makes the admin user and
    project, the admin, member and reader roles and the identity
    endpoints of region :attr:`REGION`. Requests to it go through
    keystoneauth sessions (:meth:`session`, :meth:`admin_session`).

    :ivar url: ``http://127.0.0.1:<port>``.
    :ivar auth_url: the v3 identity endpoint (``<url>/v3``).
    :ivar admin_password: the password of :attr:`ADMIN_USER`.
    """

    ADMIN_USER = 'admin'
    ADMIN_PROJECT = 'admin'
    DOMAIN = 'Default'
    REGION = 'RegionOne'

    def __init__(self, connection=None, threads=1, directory=None):
        """:param connection: the database URL (default: SQLite in the
            fixture's directory); a MariaDB one where many services ask
            at once, as in the gate of tests/openstack.
        :param threads: waitress' threads; more than one only with a
            database server (see below).
        :param directory: where the files go (kept), instead of a
            temporary directory.
        """
        super().__init__()
        self.connection = connection
        self.threads = threads
        self.directory = directory

    def _setUp(self):
        self.directory = fixture_directory(self, self.directory)
        self.port = free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        self.auth_url = self.url + '/v3'
        self.admin_password = uuid.uuid4().hex
        self.log_path = os.path.join(self.directory, 'keystone.log')
        keys = {name: os.path.join(self.directory, name) for name in (
            'fernet-keys', 'credential-keys')}
        self.config_file = write_config(
            os.path.join(self.directory, 'keystone.conf'), {
                'DEFAULT': {'log_file': self.log_path},
                'database': {'connection': self.connection or (
                    'sqlite:///%s' % os.path.join(self.directory,
                                                  'keystone.sqlite'))},
                'token': {'provider': 'fernet'},
                'fernet_tokens': {'key_repository': keys['fernet-keys']},
                'credential': {'key_repository': keys['credential-keys']},
                # bcrypt's cheapest cost: test users need no strong hashes,
                # and Tempest makes a user for every test class.
                'identity': {'password_hash_rounds': 4},
            })
        manage = [os.path.join(BIN_DIR, 'keystone-manage'),
                  '--config-file', self.config_file]
        owner = ['--keystone-user', str(os.getuid()),
                 '--keystone-group', str(os.getgid())]
        run(manage + ['db_sync'], self.directory, 'keystone-manage db_sync')
        run(manage + ['fernet_setup'] + owner, self.directory,
            'keystone-manage fernet_setup')
        run(manage + ['credential_setup'] + owner, self.directory,
            'keystone-manage credential_setup')
        run(manage + [
            'bootstrap', '--bootstrap-password', self.admin_password,
            '--bootstrap-username', self.ADMIN_USER,
            '--bootstrap-project-name', self.ADMIN_PROJECT,
            '--bootstrap-region-id', self.REGION,
            '--bootstrap-admin-url', self.auth_url,
            '--bootstrap-internal-url', self.auth_url,
            '--bootstrap-public-url', self.auth_url],
            self.directory, 'keystone-manage bootstrap')
        self.process = self.useFixture(Process(
            # One thread: Keystone does not retry SQLite's "database is
            # locked", which concurrent writers (Tempest's dynamic
            # credentials) otherwise meet.
            'keystone', [sys.executable, KEYSTONE_WSGI, '--config-file',
                         self.config_file, '--port', str(self.port),
                         '--threads', str(self.threads)],
            self.directory, log_file=self.log_path))
        wait_for(lambda: http_get(self.auth_url), 'answer of keystone',
                 processes=[self.process])
        self._admin = None

    def processes(self):
        return [self.process]

    # Sessions

    def password_auth(self, username, password, project_name=None,
                      project_id=None):
        """A keystoneauth v3 password plugin (project scoped)."""
        from keystoneauth1.identity import v3
        return v3.Password(
            auth_url=self.auth_url, username=username, password=password,
            user_domain_name=self.DOMAIN, project_name=project_name,
            project_id=project_id,
            project_domain_name=self.DOMAIN if project_name else None)

    def session(self, username, password, project_name=None,
                project_id=None):
        """A keystoneauth session of a user, scoped to a project."""
        from keystoneauth1 import session
        return session.Session(auth=self.password_auth(
            username, password, project_name, project_id),
            timeout=HTTP_TIMEOUT)

    def service_session(self, user, service):
        """A session sending ``user``'s token and ``service``'s as its
        service token (X-Service-Token), as a compute service does: both
        are ``(username, password, project_name)``.
        """
        from keystoneauth1 import service_token
        from keystoneauth1 import session
        return session.Session(auth=service_token.ServiceTokenAuthWrapper(
            user_auth=self.password_auth(*user),
            service_auth=self.password_auth(*service)),
            timeout=HTTP_TIMEOUT)

    def admin_session(self):
        if self._admin is None:
            self._admin = self.session(self.ADMIN_USER, self.admin_password,
                                       self.ADMIN_PROJECT)
        return self._admin

    def _admin_call(self, method, path, body=None):
        response = self.admin_session().request(
            self.auth_url + path, method, json=body, raise_exc=True)
        return response.json() if response.content else None

    # Identity objects

    def create_project(self, name=None):
        """A new project of the default domain; returns its id."""
        return self._admin_call('POST', '/projects', {'project': {
            'name': name or unique('project'),
            'domain_id': self.DOMAIN.lower()}})['project']['id']

    def role_id(self, name):
        """The id of a role, created when missing (``service`` is not
        made by every release's bootstrap)."""
        roles = self._admin_call('GET', '/roles?name=%s' % name)['roles']
        if roles:
            return roles[0]['id']
        return self._admin_call('POST', '/roles', {'role': {
            'name': name}})['role']['id']

    def user_id(self, name):
        """The id of the user named ``name`` (of the default domain)."""
        return self._admin_call('GET', '/users?name=%s' % name)['users'][
            0]['id']

    def grant(self, user_id, project_id, role):
        self._admin_call('PUT', '/projects/%s/users/%s/roles/%s' % (
            project_id, user_id, self.role_id(role)))

    def create_user(self, project_id, roles=('member', 'reader'),
                    name=None):
        """A user with ``roles`` on ``project_id``.

        :returns: ``(username, password, project_id)``, the arguments of
            :meth:`session` and :meth:`service_session`.
        """
        name = name or unique('user')
        password = uuid.uuid4().hex
        user_id = self._admin_call('POST', '/users', {'user': {
            'name': name, 'password': password,
            'domain_id': self.DOMAIN.lower(),
            'default_project_id': project_id}})['user']['id']
        for role in roles:
            self.grant(user_id, project_id, role)
        return (name, password, None, project_id)

    def service_user(self, name=None):
        """A user with the ``service`` role in a ``service`` project, as
        OpenStack services have; returns like :meth:`create_user`."""
        if getattr(self, '_service_project', None) is None:
            self._service_project = self.create_project(unique('service'))
        return self.create_user(self._service_project, roles=('service',),
                                name=name)

    def register_service(self, service_type, name, url):
        """Put a service in the catalog: its public, internal and admin
        endpoints in :attr:`REGION` are ``url``."""
        service_id = self._admin_call('POST', '/services', {'service': {
            'type': service_type, 'name': name}})['service']['id']
        for interface in ('public', 'internal', 'admin'):
            self._admin_call('POST', '/endpoints', {'endpoint': {
                'service_id': service_id, 'interface': interface,
                'region_id': self.REGION, 'url': url}})
        return service_id

    def authtoken_config(self, user):
        """The ``[keystone_authtoken]`` section of a service validating
        tokens as ``user`` (from :meth:`service_user`)."""
        username, password, _name, project_id = user
        return {'www_authenticate_uri': self.auth_url,
                'auth_url': self.auth_url, 'auth_type': 'password',
                'username': username, 'password': password,
                'user_domain_name': self.DOMAIN, 'project_id': project_id,
                'region_name': self.REGION,
                # Do not wait long on a test machine.
                'http_connect_timeout': 5}

