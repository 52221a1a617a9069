"""Fault tests: a manager SIGKILLed at every step of every flow, a worker
of cinder-ma-all SIGKILLed in the middle of work; everything ends stable
and every request answered 2xx takes effect, with nobody restarting or
repairing anything but the service supervisor.

A test hook (``CINDER_MA_TEST_HOLD_FLOW``, see
:mod:`cinder_ma.manager.flows`) holds a flow before its N-th task so that
the process can be killed exactly there. The lease on in-flight work is
short here (``[manager] work_lease_time``) so that recovery takes seconds.

The multi-process tests skip when PostgreSQL or RabbitMQ is down (they
fail instead under ``CINDER_MA_REQUIRE_SERVICES=1``).
"""

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import threading
import time
import uuid

import fixtures
import requests
import testtools

from cinder_ma.manager.flows import TEST_HOLD_ENV
from tests import fixtures as cm_fixtures
from tests.functional import fixtures as func_fixtures

PROJECT = 'demo'
GIB = 1024 ** 3
LEASE = 4
#: Seconds to wait for a hold, and for recovery (lease + loop + a flow).
HOLD_WAIT = 60
RECOVERY_WAIT = 60
TRANSIENT = ('creating', 'deleting', 'extending', 'attaching',
             'detaching', 'reserved')

#: Tasks per flow (cinder_ma/manager/flows/*.py).
STEPS = {'create_volume': 3, 'delete_volume': 3, 'extend_volume': 3,
         'attach_volume': 11, 'detach_volume': 9}

FAULT_CONFIG = {
    # Load, not quotas, is what these tests are about.
    'DEFAULT': {'quota_volumes': -1, 'quota_gigabytes': -1},
    'manager': {'work_lease_time': LEASE, 'reconcile_interval': 1},
    'hypervisor': {'driver': 'fake'},
}


def _headers(service=False):
    headers = {'X-Auth-Token': 'alice:%s' % PROJECT,
               'X-Roles': 'member,reader',
               'OpenStack-API-Version': 'volume 3.55'}
    if service:
        headers['X-Service-Roles'] = 'service'
    return headers


class _FaultBase(testtools.TestCase):

    def request(self, method, path, body=None, service=False, admin=False):
        headers = _headers(service)
        if admin:
            del headers['X-Roles']
            headers['Cinder-MA-Extensions'] = 'cinder-ma-recovery'
        return requests.request(
            method, self.server.project_url(PROJECT) + path, json=body,
            headers=headers, timeout=func_fixtures.HTTP_TIMEOUT)

    def volume(self, volume_id):
        response = self.request('GET', '/volumes/' + volume_id, admin=True)
        if response.status_code == 404:
            return None
        self.assertEqual(200, response.status_code, response.text)
        return response.json()['volume']

    def attachment(self, attachment_id):
        response = self.request('GET', '/attachments/' + attachment_id)
        if response.status_code == 404:
            return None
        self.assertEqual(200, response.status_code, response.text)
        return response.json()['attachment']

    def settled(self, getter, item_id, timeout=RECOVERY_WAIT):
        """The item once out of a transient status (None: gone)."""
        deadline = time.monotonic() + timeout
        while True:
            item = getter(item_id)
            if item is None or item['status'] not in TRANSIENT:
                return item
            if time.monotonic() > deadline:
                self.fail('%s still %s after %s s' % (item_id,
                                                      item['status'],
                                                      timeout))
            time.sleep(0.2)

    def create_volume(self, size=1):
        response = self.request('POST', '/volumes',
                                {'volume': {'size': size}})
        self.assertEqual(202, response.status_code, response.text)
        return response.json()['volume']['id']

    def attach(self, volume_id, instance):
        # As an administrator: the fake hypervisor driver does not know
        # who owns these instances, and members attach only into their
        # own.
        response = self.request('POST', '/attachments', {'attachment': {
            'volume_uuid': volume_id, 'instance_uuid': instance,
            'cinder-ma-manager-attach:instance_host': self.server.host}},
            admin=True)
        self.assertEqual(200, response.status_code, response.text)
        return response.json()['attachment']['id']

    def detach(self, attachment_id):
        response = self.request('DELETE', '/attachments/' + attachment_id,
                                service=True)
        self.assertEqual(200, response.status_code, response.text)

    def creates_during(self, fault):
        """Create volumes without pause from another thread while
        ``fault()`` runs (with 2 s of load before and after it).

        :returns: (ids of the volumes answered 202, every status).
        """
        accepted, statuses = [], []
        stop = threading.Event()

        def load():
            while not stop.is_set():
                try:
                    response = self.request('POST', '/volumes',
                                            {'volume': {'size': 1}})
                except requests.RequestException:
                    continue
                statuses.append(response.status_code)
                if response.status_code == 202:
                    accepted.append(response.json()['volume']['id'])

        thread = threading.Thread(target=load)
        thread.start()
        try:
            time.sleep(2)
            fault()
            time.sleep(2)
        finally:
            stop.set()
            thread.join()
        return accepted, statuses

    def wait_for_holds(self, directory, names, processes):
        def held():
            # A marker is created, then its process id written: wait for
            # the id too.
            return all(os.path.exists(os.path.join(directory, name)) and
                       os.path.getsize(os.path.join(directory, name))
                       for name in names)
        func_fixtures.wait_for(held, 'flows held at %s' % ', '.join(names),
                               timeout=HOLD_WAIT, processes=processes)
        pids = set()
        for name in names:
            with open(os.path.join(directory, name)) as f:
                pids.add(int(f.read()))
        return pids


class ManagerKilledAtEveryStepTestCase(_FaultBase):
    """The API and a manager as separate processes on RabbitMQ and
    PostgreSQL; in round N the manager is SIGKILLed with a create, a
    delete, an extend, an attach and a detach each held before its N-th
    task (the last one for shorter flows), then a new manager is
    started."""

    def setUp(self):
        super().setUp()
        admin_url = func_fixtures.require_deployment_services(self)
        self.server = self.useFixture(func_fixtures.Deployment(
            admin_url, config=FAULT_CONFIG))
        self.server.attach_logs_on_failure(self)
        self.holds = self.useFixture(fixtures.TempDir()).path

    def prepare(self):
        """A volume to delete, one to extend, one to attach and one
        attached, made by the running manager."""
        ids = [self.create_volume() for _ in range(4)]
        for volume_id in ids:
            self.assertEqual('available',
                             self.settled(self.volume, volume_id)['status'])
        attachment = self.attach(ids[3], str(uuid.uuid4()))
        self.assertEqual('attached', self.settled(
            self.attachment, attachment)['status'])
        return {'delete': ids[0], 'extend': ids[1], 'attach': ids[2],
                'detach': attachment, 'detach_volume': ids[3]}

    def test_kill_at_every_step(self):
        spec_file = os.path.join(self.holds, 'spec')
        env = func_fixtures.environ(**{TEST_HOLD_ENV: spec_file})
        self.server.manager.stop()
        self.start_manager(env)
        for step in range(max(STEPS.values())):
            todo = self.prepare()
            directory = os.path.join(self.holds, str(step))
            os.makedirs(directory)
            holds = {flow: min(step, count - 1)
                     for flow, count in STEPS.items()}
            with open(spec_file, 'w') as f:
                f.write('%s;%s' % (directory, ','.join(
                    '%s:%d' % item for item in sorted(holds.items()))))
            created = self.create_volume()
            self.assertEqual(202, self.request(
                'DELETE', '/volumes/' + todo['delete']).status_code)
            self.assertEqual(202, self.request(
                'POST', '/volumes/%s/action' % todo['extend'],
                {'os-extend': {'new_size': 2}}).status_code)
            attached = self.attach(todo['attach'], str(uuid.uuid4()))
            self.detach(todo['detach'])
            self.wait_for_holds(
                directory, ['held-%s-%d' % item for item in holds.items()],
                [self.server.manager])
            self.server.manager.kill()
            # The new manager finds the markers: it holds nothing.
            self.start_manager(env)
            # Every request answered 2xx took effect.
            self.assertEqual('available', self.settled(
                self.volume, created)['status'], 'step %d' % step)
            self.assertIsNone(self.settled(self.volume, todo['delete']),
                              'step %d' % step)
            self.assertFalse(os.path.exists(os.path.join(
                self.server.volumes_dir, 'volume-' + todo['delete'])))
            extended = self.settled(self.volume, todo['extend'])
            self.assertEqual(('available', 2),
                             (extended['status'], extended['size']),
                             'step %d' % step)
            self.assertEqual(2 * GIB, os.stat(os.path.join(
                self.server.volumes_dir,
                'volume-' + todo['extend'])).st_size)
            self.assertEqual('attached', self.settled(
                self.attachment, attached)['status'], 'step %d' % step)
            self.assertIsNone(self.settled(self.attachment, todo['detach']),
                              'step %d' % step)
            self.assertEqual('available', self.settled(
                self.volume, todo['detach_volume'])['status'])
            self.assertIsNone(self.volume(created)[
                'cinder-ma-recovery:failure_reason'])
            os.unlink(spec_file)

    def start_manager(self, env=None):
        """Start a manager; return once it reported and serves (so that
        the API sees it up)."""
        manager = self.server.start_manager(env=env)
        ready = 'Manager of %s started' % self.server.host

        def started():
            if not os.path.exists(manager.log_path):
                return False
            with open(manager.log_path, errors='replace') as f:
                return ready in f.read()
        func_fixtures.wait_for(started, ready, processes=[manager])
        return manager


class AllInOneWorkerKilledTestCase(_FaultBase):
    """cinder-ma-all with two workers: the worker running a create and an
    attach is SIGKILLed mid-flow; the launcher replaces it and the
    reconcile loop of the workers finishes both."""

    def setUp(self):
        super().setUp()
        self.holds = self.useFixture(fixtures.TempDir()).path
        spec_file = os.path.join(self.holds, 'spec')
        with open(spec_file, 'w') as f:
            f.write('%s;create_volume:1,attach_volume:5' % self.holds)
        self.server = self.useFixture(func_fixtures.AllInOne(
            config=FAULT_CONFIG,
            env=func_fixtures.environ(**{TEST_HOLD_ENV: spec_file})))
        self.server.attach_logs_on_failure(self)

    def test_killed_worker(self):
        target = self.create_volume()
        # The create is held: make a volume to attach with a second
        # create (held flows run only once per process tree).
        attached = None
        pids = self.wait_for_holds(self.holds, ['held-create_volume-1'],
                                   [self.server.process])
        volume = self.create_volume()
        self.assertEqual('available',
                         self.settled(self.volume, volume)['status'])
        attached = self.attach(volume, str(uuid.uuid4()))
        pids |= self.wait_for_holds(self.holds, ['held-attach_volume-5'],
                                    [self.server.process])
        self.assertNotIn(self.server.process.proc.pid, pids)
        for pid in pids:
            os.kill(pid, 9)
        self.assertEqual('available',
                         self.settled(self.volume, target)['status'])
        self.assertEqual('attached',
                         self.settled(self.attachment, attached)['status'])
        self.assertTrue(self.server.process.running())


class PrivatePostgreSQL(fixtures.Fixture):
    """A PostgreSQL cluster of its own, made with initdb as the postgres
    user in a temporary directory and served on a free port, so that a
    test can stop and start it (never the shared server)."""

    def __init__(self, testcase):
        super().__init__()
        self.testcase = testcase

    def _setUp(self):
        bindirs = sorted(glob.glob('/usr/lib/postgresql/*/bin'))
        try:
            user = pwd.getpwnam('postgres')
        except KeyError:
            user = None
        if not bindirs or user is None or os.geteuid() != 0:
            self.testcase.skipTest('a private PostgreSQL needs initdb and '
                                   'root to run it as postgres')
        self.bindir = bindirs[-1]
        self.directory = tempfile.mkdtemp(prefix='cinder-ma-pg-')
        self.addCleanup(shutil.rmtree, self.directory, True)
        os.chown(self.directory, user.pw_uid, user.pw_gid)
        self.data = os.path.join(self.directory, 'data')
        self.port = func_fixtures.free_port()
        self._as_postgres('initdb', '-D', self.data, '-A', 'trust', '-U',
                          'postgres')
        self.start()
        self.addCleanup(self.stop, 'immediate')
        self.admin_url = ('postgresql+psycopg2://postgres@127.0.0.1:%d/'
                          'postgres' % self.port)

    def _as_postgres(self, program, *args):
        subprocess.run(
            ['runuser', '-u', 'postgres', '--',
             os.path.join(self.bindir, program)] + list(args),
            check=True, cwd=self.directory, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, timeout=120)

    def start(self):
        self._as_postgres(
            'pg_ctl', '-D', self.data, '-w', '-l',
            os.path.join(self.directory, 'postgresql.log'), '-o',
            '-p %d -k %s -c listen_addresses=127.0.0.1' % (
                self.port, self.directory), 'start')

    def stop(self, mode='immediate'):
        try:
            self._as_postgres('pg_ctl', '-D', self.data, '-w', '-m', mode,
                              'stop')
        except subprocess.CalledProcessError:
            pass


class DatabaseRestartTestCase(_FaultBase):
    """The deployment's PostgreSQL stops abruptly and starts again under
    load: requests meanwhile get 202 or 503 (never 500), and every create
    answered 202 ends available."""

    def setUp(self):
        super().setUp()
        func_fixtures.require_deployment_services(self)
        self.postgresql = self.useFixture(PrivatePostgreSQL(self))
        self.server = self.useFixture(func_fixtures.Deployment(
            self.postgresql.admin_url, config=FAULT_CONFIG))
        self.server.attach_logs_on_failure(self)

    def test_restart_under_load(self):
        def fault():
            self.postgresql.stop('immediate')
            time.sleep(3)
            self.postgresql.start()

        accepted, statuses = self.creates_during(fault)
        # 400: no backend is up while the manager's heartbeats could not
        # be written (NoValidBackend, nothing recorded).
        self.assertEqual(set(), set(statuses) - {202, 400, 503}, statuses)
        self.assertIn(503, statuses)
        for volume_id in accepted:
            self.assertEqual('available', self.settled(
                self.volume, volume_id)['status'])
        # The API answers again.
        self.assertEqual('available', self.settled(
            self.volume, self.create_volume())['status'])


class PrivateRabbitMQ(fixtures.Fixture):
    """A RabbitMQ node of its own (node name, ports, database, config and
    plugins file in a temporary directory), run as the rabbitmq user, so
    that a test can kill and restart it (never the shared broker)."""

    SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server'

    def __init__(self, testcase):
        super().__init__()
        self.testcase = testcase
        self.proc = None

    def _setUp(self):
        try:
            user = pwd.getpwnam('rabbitmq')
        except KeyError:
            user = None
        if (user is None or os.geteuid() != 0 or
                not os.path.exists(self.SERVER)):
            self.testcase.skipTest('a private RabbitMQ needs '
                                   'rabbitmq-server and root')
        self.directory = tempfile.mkdtemp(prefix='cinder-ma-rmq-')
        self.addCleanup(shutil.rmtree, self.directory, True)
        self.port = func_fixtures.free_port()
        files = {'rabbitmq.conf': 'listeners.tcp.local = 127.0.0.1:%d\n'
                                  % self.port,
                 'enabled_plugins': '[].\n', 'rabbitmq-env.conf': ''}
        for name, text in files.items():
            with open(os.path.join(self.directory, name), 'w') as f:
                f.write(text)
        for root, dirs, names in os.walk(self.directory):
            for name in [root] + [os.path.join(root, n) for n in names]:
                os.chown(name, user.pw_uid, user.pw_gid)
        self.env = func_fixtures.environ(
            HOME=self.directory,
            RABBITMQ_NODENAME='cmtest%d@localhost' % self.port,
            RABBITMQ_NODE_PORT=str(self.port),
            RABBITMQ_DIST_PORT=str(func_fixtures.free_port()),
            RABBITMQ_MNESIA_BASE=os.path.join(self.directory, 'mnesia'),
            RABBITMQ_LOG_BASE=os.path.join(self.directory, 'log'),
            RABBITMQ_CONFIG_FILE=os.path.join(self.directory,
                                              'rabbitmq.conf'),
            RABBITMQ_ENABLED_PLUGINS_FILE=os.path.join(self.directory,
                                                       'enabled_plugins'),
            RABBITMQ_CONF_ENV_FILE=os.path.join(self.directory,
                                                'rabbitmq-env.conf'),
            RABBITMQ_PID_FILE=os.path.join(self.directory, 'pid'),
            ERL_EPMD_ADDRESS='127.0.0.1')
        self.url = 'rabbit://guest:guest@127.0.0.1:%d/' % self.port
        self.start()
        self.addCleanup(self.kill)

    def start(self):
        out = open(os.path.join(self.directory, 'out'), 'a')
        self.addCleanup(out.close)
        self.proc = subprocess.Popen(
            ['runuser', '-u', 'rabbitmq', '--', 'env'] +
            ['%s=%s' % item for item in self.env.items()
             if item[0].startswith(('RABBITMQ_', 'ERL_', 'HOME'))] +
            [self.SERVER], cwd=self.directory, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True)
        func_fixtures.wait_for(
            lambda: cm_fixtures.port_open('127.0.0.1',
                                                        self.port),
            'private RabbitMQ on port %d' % self.port, timeout=120)

    def kill(self):
        """SIGKILL the node (an abrupt broker failure)."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 9)
            except ProcessLookupError:
                pass
            self.proc.wait()
        func_fixtures.wait_for(
            lambda: not cm_fixtures.port_open(
                '127.0.0.1', self.port),
            'private RabbitMQ to stop', timeout=30)


class BrokerRestartTestCase(_FaultBase):
    """The broker is killed and restarted under load: every create
    answered 202 ends available (casts lost with the broker are run by the
    reconcile loop), and requests meanwhile get 202 or 503, never 500."""

    def setUp(self):
        super().setUp()
        admin_url = func_fixtures.require_deployment_services(self)
        self.broker = self.useFixture(PrivateRabbitMQ(self))
        config = dict(FAULT_CONFIG)
        config['DEFAULT'] = dict(FAULT_CONFIG['DEFAULT'],
                                 transport_url=self.broker.url)
        self.server = self.useFixture(func_fixtures.Deployment(
            admin_url, config=config))
        self.server.attach_logs_on_failure(self)

    def test_kill_and_restart_under_load(self):
        def fault():
            self.broker.kill()
            time.sleep(2)
            self.broker.start()

        accepted, statuses = self.creates_during(fault)
        self.assertEqual(set(), set(statuses) - {202, 503}, statuses)
        self.assertTrue(accepted)
        for volume_id in accepted:
            self.assertEqual('available', self.settled(
                self.volume, volume_id)['status'])
