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


"""The cloud of the gate: real OpenStack services around cinder_ma.

One cloud per test process (``tox -e openstack`` runs one), started by
the first test that calls :func:`get` and stopped at exit, every process
by its PID (:class:`tests.functional.fixtures.Process`):

* Keystone 30 on MariaDB (fernet tokens), with the catalog;
* cinder_ma as a cloud deploys it: ``cinder_ma.wsgi.api:application``
  under gunicorn with ``auth_strategy = keystone`` and a
  ``cinder-ma-manager`` with the ``file`` backend, and the ``nbd``
  backend when nbdkit and nbdinfo are installed (:class:`NBDBackend`),
  on MariaDB and RabbitMQ, in the catalog as ``block-storage`` (and
  ``volumev3``, which Horizon looks for); Nova's compute service is the
  compute host, so cinder_ma's hypervisor role is not used;
* Placement 16 and Nova 34 (:mod:`tests.openstack.nova`), Nova's compute
  service with the fake virt driver;
* the Neutron stub (:mod:`tests.openstack.neutron_stub`), the only fake;
* Horizon 27 (:mod:`tests.openstack.horizon`), when its tests ask.

The virtualenvs of Nova and Horizon come from ``CINDER_MA_NOVA_VENV`` and
``CINDER_MA_HORIZON_VENV`` (tox makes them); the services' files are
kept in ``CINDER_MA_OPENSTACK_LOGDIR`` (the tox env's log directory).
"""

import atexit
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import urllib.parse

import fixtures
import requests

from tests import fixtures as cm_fixtures
from tests.functional import fixtures as f_fixtures
from tests.openstack import nova as nova_fixtures

HERE = os.path.dirname(os.path.abspath(__file__))
HTTP_TIMEOUT = 30


def log_dir():
    """Where the cloud's files and the screenshots go."""
    path = os.environ.get('CINDER_MA_OPENSTACK_LOGDIR')
    if not path:
        path = tempfile.mkdtemp(prefix='cinder-ma-openstack-')
        os.environ['CINDER_MA_OPENSTACK_LOGDIR'] = path
    os.makedirs(path, exist_ok=True)
    return path


def venv(name):
    """The virtualenv of ``nova`` or ``horizon``, or None (not made)."""
    path = os.environ.get('CINDER_MA_%s_VENV' % name.upper())
    if path and os.path.exists(os.path.join(path, 'bin', 'python')):
        return path
    return None


class CinderMA(f_fixtures.Deployment):
    """cinder_ma's API under gunicorn and its manager (the functional
    tests' :class:`~tests.functional.fixtures.Deployment`, on MariaDB,
    with Keystone's tokens)."""

    def __init__(self, keystone, config, directory):
        super().__init__(cm_fixtures.MYSQL_URL, report_interval=2,
                         service_down_time=30, config=config,
                         directory=directory)
        self.keystone = keystone

    def _start_api(self, index):
        port = self.port
        api = self.useFixture(nova_fixtures.gunicorn(
            os.path.dirname(f_fixtures.BIN_DIR),
            'cinder_ma.wsgi.api:application', port, self.directory,
            'cinder-ma-api', f_fixtures.environ(
                OS_CINDER_MA_CONFIG_FILES=self.config_file), workers=2))
        url = 'http://127.0.0.1:%d' % port
        f_fixtures.wait_for(lambda: f_fixtures.http_get(url + '/'),
                            'answer of cinder-ma-api', processes=[api])
        self.apis.append(api)
        self.api_urls.append(url)

    def services(self, **query):
        """The os-services list, as Keystone's admin."""
        session = self.keystone.admin_session()
        project = session.get_project_id()
        try:
            response = session.get(
                self.project_url(project) + '/os-services', params=query,
                raise_exc=False, timeout=HTTP_TIMEOUT)
        except requests.RequestException:
            return None
        if response.status_code != 200:
            return None
        return response.json()['services']


class NBDBackend(fixtures.Fixture):
    """The ``nbd`` backend of the cloud's cinder_ma (``[nbd]``): exports
    that are an attachment's own, so that fencing and promotion work (the
    ``file`` backend's connections are its hosts').

    Only volumes of a type asking for it (``volume_backend_name = nbd``)
    go there: the scheduler puts a volume in the pool with the most free
    space less its ``reserved_percentage``, and both backends keep their
    files on the same filesystem, so the nbd backend reserves about half
    of the space free when the cloud starts (at least 1%); every other
    volume goes to ``file``, which reserves none.

    Its nbdkit daemons outlive the manager (as in a deployment, see
    docs/admin/nbd-driver.rst): on cleanup, which runs after the manager
    stopped, every export recorded in ``nbd_exports_dir`` is stopped by
    the pid of its pidfile (SIGTERM, then SIGKILL), when that pid still
    runs an nbdkit of this directory.
    """

    NAME = 'nbd'
    #: Ports of the exports: the first is free when the cloud starts.
    PORTS = 20
    #: Seconds an nbdkit may take to exit after SIGTERM.
    STOP_TIMEOUT = 5

    def __init__(self, state_path):
        super().__init__()
        self.state_path = state_path
        self.exports_dir = os.path.join(state_path, 'nbd-exports')

    @staticmethod
    def available():
        return all(shutil.which(p) for p in ('nbdkit', 'nbdinfo'))

    def _setUp(self):
        os.makedirs(self.state_path, exist_ok=True)
        st = os.statvfs(self.state_path)
        self.reserved_percentage = max(1, 50 * st.f_bavail // st.f_blocks)
        first = f_fixtures.free_port()
        self.config = {
            'volume_driver': 'nbd',
            'nbd_exports_dir': self.exports_dir,
            'nbd_port_min': first,
            'nbd_port_max': min(first + self.PORTS, 65535),
            'reserved_percentage': self.reserved_percentage}
        self.addCleanup(self.stop_exports)

    def running(self):
        """{export key: pid} of the recorded exports whose nbdkit runs."""
        try:
            names = os.listdir(self.exports_dir)
        except FileNotFoundError:
            return {}
        running = {}
        for name in names:
            if not name.endswith('.pid'):
                continue
            try:
                with open(os.path.join(self.exports_dir, name)) as f:
                    pid = int(f.read().strip())
                # pids are reused: only an nbdkit with its credentials
                # in this directory.
                with open('/proc/%d/cmdline' % pid, 'rb') as f:
                    argv = f.read().split(b'\0')
            except (OSError, ValueError):
                continue
            if os.path.basename(argv[0]) == b'nbdkit' and any(
                    os.fsencode(self.exports_dir + os.sep) in arg
                    for arg in argv):
                running[name[:-len('.pid')]] = pid
        return running

    def exports(self, volume_id):
        """{attachment id: access mode} of the running exports of a
        volume, as the driver recorded them."""
        exports = {}
        for key in self.running():
            try:
                with open(os.path.join(self.exports_dir,
                                       key + '.json')) as f:
                    record = json.load(f)
            except (OSError, ValueError):
                continue
            if record.get('volume_id') == volume_id:
                exports[record.get('attachment_id')] = record[
                    'access_mode']
        return exports

    def stop_exports(self):
        pids = list(self.running().values())
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + self.STOP_TIMEOUT
        while pids and time.monotonic() < deadline:
            time.sleep(0.1)
            pids = [pid for pid in pids
                    if os.path.exists('/proc/%d/cmdline' % pid)]
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


class NovaSide(fixtures.Fixture):
    """The Neutron stub, Placement and Nova of the cloud.

    :ivar nova: the :class:`tests.openstack.nova.Nova` fixture.
    :ivar placement: the :class:`tests.openstack.nova.Placement` fixture.
    """

    def __init__(self, nova_venv, keystone, directory):
        super().__init__()
        self.nova_venv = nova_venv
        self.keystone = keystone
        self.directory = directory

    def _setUp(self):
        neutron_port = f_fixtures.free_port()
        stub = self.useFixture(f_fixtures.Process(
            'neutron-stub', [sys.executable,
                             os.path.join(HERE, 'neutron_stub.py'),
                             '--port', str(neutron_port)],
            self.directory, log_file=None))
        neutron_url = 'http://127.0.0.1:%d' % neutron_port
        f_fixtures.wait_for(
            lambda: f_fixtures.http_get(neutron_url + '/'),
            'answer of the Neutron stub', processes=[stub])
        self.placement = self.useFixture(nova_fixtures.Placement(
            self.nova_venv, self.keystone,
            os.path.join(self.directory, 'placement')))
        self.nova = self.useFixture(nova_fixtures.Nova(
            self.nova_venv, self.keystone,
            os.path.join(self.directory, 'nova'), neutron_url))


class _SetUpThread(threading.Thread):
    """Sets a fixture up on a thread; :attr:`error` is what it raised (a
    fixture that fails to set up has cleaned up after itself)."""

    def __init__(self, fixture):
        super().__init__(name='set-up-%s' % type(fixture).__name__,
                         daemon=True)
        self.fixture = fixture
        self.error = None

    def run(self):
        try:
            self.fixture.setUp()
        except BaseException as exc:
            self.error = exc


class Cloud(fixtures.Fixture):
    """Keystone, cinder_ma (and its ``nbd`` backend, :attr:`nbd`, None
    without nbdkit), Placement, Nova and the Neutron stub."""

    def _setUp(self):
        self.directory = os.path.join(log_dir(), 'cloud-%d' % os.getpid())
        os.makedirs(self.directory, exist_ok=True)
        started = time.monotonic()
        keystone_db = self.useFixture(f_fixtures.ServerDatabase(
            cm_fixtures.MYSQL_URL))
        self.keystone = self.useFixture(f_fixtures.Keystone(
            connection=keystone_db.url, threads=8,
            directory=os.path.join(self.directory, 'keystone')))
        self.cinder_user = self.keystone.service_user(
            f_fixtures.unique('cinder-ma'))
        # admin too: Nova finds other projects' instances, to which the
        # managers send volume-extended events, only for an admin.
        self.keystone.grant(self.keystone.user_id(self.cinder_user[0]),
                            self.cinder_user[3], 'admin')
        cinder_dir = os.path.join(self.directory, 'cinder-ma')
        config = {
            'DEFAULT': {'auth_strategy': 'keystone'},
            'keystone_authtoken': dict(
                self.keystone.authtoken_config(self.cinder_user),
                service_type='block-storage'),
            # Nova learns of extends (the volume-extended event) from the
            # managers, as cinder_ma's service user.
            'nova': nova_fixtures.auth_section(self.keystone,
                                               self.cinder_user),
        }
        # Placement and Nova need only Keystone: they start on a thread
        # of their own while cinder_ma starts here (a third of the
        # cloud's start).
        nova_venv = venv('nova')
        nova_side = starter = None
        if nova_venv:
            nova_side = NovaSide(nova_venv, self.keystone, self.directory)
            starter = _SetUpThread(nova_side)
            starter.start()
        try:
            self._set_up_cinder(config, cinder_dir)
        finally:
            if starter is not None:
                starter.join()
                if starter.error is None:
                    self.addCleanup(nova_side.cleanUp)
        if starter is not None and starter.error is not None:
            raise starter.error
        self.nova = nova_side and nova_side.nova
        self.placement = nova_side and nova_side.placement
        print('openstack gate: cloud up in %.0f s (keystone %s, cinder_ma '
              '%s, nova %s); files in %s' % (
                  time.monotonic() - started, self.keystone.auth_url,
                  self.cinder.endpoint, self.nova and self.nova.endpoint,
                  self.directory), file=sys.stderr, flush=True)

    def _set_up_cinder(self, config, cinder_dir):
        self.nbd = None
        if NBDBackend.available():
            # Before cinder_ma: its exports are stopped after the manager.
            self.nbd = self.useFixture(NBDBackend(
                os.path.join(cinder_dir, 'state')))
            config['DEFAULT']['enabled_backends'] = '%s,%s' % (
                CinderMA.BACKEND, NBDBackend.NAME)
            config[NBDBackend.NAME] = self.nbd.config
        self.cinder = self.useFixture(CinderMA(self.keystone, config,
                                               cinder_dir))
        if self.nbd is not None:
            backend = '%s@%s' % (self.cinder.host, NBDBackend.NAME)
            f_fixtures.wait_for(
                lambda: self.cinder.service_states().get(
                    ('cinder-volume', backend)) == 'up',
                'backend %s up' % backend,
                processes=[self.cinder.manager])
        self.cinder_endpoint = self.cinder.endpoint
        for service_type in ('block-storage', 'volumev3'):
            self.keystone.register_service(
                service_type, 'cinder-ma',
                self.cinder.endpoint + '/%(project_id)s')


_CLOUD = None
_FAILURE = None


def require(testcase):
    """Skip ``testcase`` (fail it under CINDER_MA_REQUIRE_SERVICES=1)
    unless MariaDB and RabbitMQ are reachable."""
    cm_fixtures.server_url_or_skip(testcase, 'mysql')
    parts = urllib.parse.urlsplit(cm_fixtures.RABBIT_URL)
    if not cm_fixtures.port_open(parts.hostname or '127.0.0.1',
                                 parts.port or 5672):
        cm_fixtures.skip_or_fail(testcase, 'RabbitMQ is not reachable at '
                                           '%s' % parts.netloc)


def get(testcase):
    """The cloud of this process, started on the first call.

    A cloud that failed to start is not tried again by every test: the
    later ones fail at once with the first one's error.
    """
    global _CLOUD, _FAILURE
    require(testcase)
    if _FAILURE is not None:
        raise AssertionError('the cloud failed to start (see the first '
                             'failing test): %s' % _FAILURE)
    if _CLOUD is None:
        cloud = Cloud()
        try:
            # A failed set-up has cleaned up after itself.
            cloud.setUp()
        except Exception as exc:
            _FAILURE = str(exc).splitlines()[0] if str(exc) else repr(exc)
            raise
        _CLOUD = cloud
        atexit.register(cloud.cleanUp)
        # A runner stopped by SIGTERM (a CI timeout) exits through atexit,
        # so the cloud's processes, databases and vhost go with it.
        signal.signal(signal.SIGTERM,
                      lambda signo, frame: sys.exit(128 + signo))
    return _CLOUD
