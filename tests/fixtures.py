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

"""Test fixtures: configuration, databases, policy.

Service-backed fixtures skip when the service is absent, unless
``CINDER_MA_REQUIRE_SERVICES=1`` (set by .ci/run) turns the skip into a
failure.
"""

import atexit
import os
import shutil
import socket
import tempfile
import threading
import urllib.parse
import uuid

import fixtures
from oslo_config import cfg
from oslo_config import fixture as config_fixture
from oslo_db.sqlalchemy import test_fixtures
import redis
import sqlalchemy as sa

from cinder_ma import conf as cinder_ma_conf  # noqa: F401  registers opts
from cinder_ma import coordination
from cinder_ma.db import api as db_api
from cinder_ma.db import migration
from cinder_ma.manager import rpcapi
from cinder_ma import policy

CONF = cfg.CONF

POSTGRESQL_URL = os.environ.get(
    'CINDER_MA_TEST_POSTGRESQL_URL',
    'postgresql+psycopg2://postgres@127.0.0.1:5432/postgres')
MYSQL_URL = os.environ.get(
    'CINDER_MA_TEST_MYSQL_URL',
    'mysql+pymysql://root@127.0.0.1:3306/mysql')
RABBIT_URL = os.environ.get(
    'CINDER_MA_TEST_TRANSPORT_URL', 'rabbit://guest:guest@127.0.0.1:5672/')
REDIS_URL = os.environ.get(
    'CINDER_MA_TEST_REDIS_URL', 'redis://127.0.0.1:6379')


def services_required():
    return os.environ.get('CINDER_MA_REQUIRE_SERVICES') == '1'


def skip_or_fail(testcase, reason):
    if services_required():
        testcase.fail('%s (CINDER_MA_REQUIRE_SERVICES=1)' % reason)
    testcase.skipTest(reason)


def port_open(host, port):
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


class ConfFixture(fixtures.Fixture):
    """Fresh configuration in a temporary state directory."""

    def _setUp(self):
        self.conf = self.useFixture(config_fixture.Config(CONF)).conf
        self.state_path = self.useFixture(fixtures.TempDir()).path
        self.conf.set_default('state_path', self.state_path)
        self.conf.set_default('host', 'testhost')
        # Commands run in the test process serve from it (no fork).
        self.conf.set_default('workers', 1, group='api')
        self.conf.set_default('lock_path', os.path.join(
            self.state_path, 'locks'), group='oslo_concurrency')
        self.conf([], project='cinder_ma', default_config_files=[])
        policy.reset()
        self.addCleanup(policy.reset)
        # The process's coordinator starts on first use, on this test's
        # [coordination] backend_url (lock files in its state directory).
        self.addCleanup(coordination.COORDINATOR.stop)


class EngineFacade(fixtures.Fixture):
    """cinder_ma's enginefacade (``db_api.main_context_manager``) pointed
    at ``url`` for the test, through oslo.db's public test API.

    A new manager made from the application's one (so it keeps its
    configuration) is configured with the URL and plugged in with
    oslo.db's :class:`~oslo_db.sqlalchemy.test_fixtures.
    ReplaceEngineFacadeFixture`, which puts the original back on cleanup;
    ``[database] connection`` says the same URL, for the code that reads
    it (the commands, the workers). The database itself is left as it is,
    and no engine is made before the code under test asks for one.
    """

    def __init__(self, url):
        super().__init__()
        self.url = url

    def _setUp(self):
        CONF.set_override('connection', self.url, group='database')
        self.addCleanup(CONF.clear_override, 'connection', group='database')
        manager = db_api.main_context_manager.make_new_manager()
        manager.configure(connection=self.url)
        self.addCleanup(manager.dispose_pool)
        self.useFixture(test_fixtures.ReplaceEngineFacadeFixture(
            db_api.main_context_manager, manager))


class TransactionCounter(fixtures.Fixture):
    """Counts the transactions begun on the data layer's engine while it
    is in use (``count``), and the statements run in them
    (``statements``, their SQL: transaction control and PRAGMAs not
    counted).

    :param this_thread: count only what the thread that set the fixture
        up runs (a request served in process, the manager's work of an
        RPC call included: the in-process transport calls its endpoint
        in the caller's thread), not what background threads (a
        service's heartbeat, a reconcile loop) run meanwhile.
    """

    NOT_COUNTED = ('BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE',
                   'PRAGMA')

    def __init__(self, this_thread=False):
        super().__init__()
        self.this_thread = this_thread

    def _counted(self):
        return (self.thread is None or
                threading.get_ident() == self.thread)

    def _setUp(self):
        self.thread = threading.get_ident() if self.this_thread else None
        self.count = 0
        self.statements = []
        engine = db_api.get_engine()
        sa.event.listen(engine, 'begin', self._begun)
        self.addCleanup(sa.event.remove, engine, 'begin', self._begun)
        sa.event.listen(engine, 'before_cursor_execute', self._executed)
        self.addCleanup(sa.event.remove, engine, 'before_cursor_execute',
                        self._executed)

    def _begun(self, conn):
        if self._counted():
            self.count += 1

    def _executed(self, conn, cursor, statement, *args):
        if self._counted() and not statement.lstrip().upper().startswith(
                self.NOT_COUNTED):
            self.statements.append(statement)


class Database(fixtures.Fixture):
    """A migrated database, the enginefacade pointed at it.

    :param url: None for a SQLite file in the state directory, or the
        admin URL of a PostgreSQL/MySQL server in which a throw-away
        database is created.
    """

    def __init__(self, url=None, state_path=None):
        super().__init__()
        self.admin_url = url
        self.state_path = state_path

    def _setUp(self):
        if self.admin_url is None:
            path = os.path.join(self.state_path or self.useFixture(
                fixtures.TempDir()).path, 'test.sqlite')
            # A copy of a file migrated once per process: running the
            # migrations for each of a thousand tests cost a fifth of a
            # second each.
            shutil.copyfile(_migrated_sqlite_file(), path)
            self.url = 'sqlite:///%s' % path
        else:
            self.url = self._create_server_db()
        self.useFixture(EngineFacade(self.url))
        self.engine = db_api.get_engine()
        if self.admin_url is not None:
            migration.upgrade('head', engine=self.engine)
        # Heartbeats seen in another database are not this one's.
        rpcapi.forget_heartbeats()
        self.addCleanup(rpcapi.forget_heartbeats)

    def _create_server_db(self):
        name = 'cinder_ma_test_%s' % uuid.uuid4().hex[:12]
        admin = sa.create_engine(self.admin_url,
                                 isolation_level='AUTOCOMMIT')
        with admin.connect() as conn:
            conn.execute(sa.text('CREATE DATABASE %s' % name))
        self.addCleanup(self._drop_server_db, admin, name)
        url = sa.engine.make_url(self.admin_url).set(database=name)
        if url.get_backend_name() == 'mysql':
            url = url.update_query_dict({'charset': 'utf8mb4'})
        return url.render_as_string(hide_password=False)

    def _drop_server_db(self, admin, name):
        # Fresh connections: the server may have restarted since (the
        # fault tests restart their own).
        admin.dispose()
        with admin.connect() as conn:
            if admin.dialect.name == 'postgresql':
                conn.execute(sa.text(
                    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity '
                    'WHERE datname = :n AND pid <> pg_backend_pid()'),
                    {'n': name})
            conn.execute(sa.text('DROP DATABASE IF EXISTS %s' % name))
        admin.dispose()


_MIGRATED_SQLITE = None
_MIGRATED_SQLITE_LOCK = threading.Lock()
#: The temporary directory of the process, as it was before a test's
#: fixtures.NestedTempfile moved tempfile's into a directory of the test.
_PROCESS_TMP = tempfile.gettempdir()


def _migrated_sqlite_file():
    """A SQLite file migrated to the head revision, made on the first call
    in this process (in a directory removed at exit): the
    :class:`Database` fixtures copy it."""
    global _MIGRATED_SQLITE
    with _MIGRATED_SQLITE_LOCK:
        if _MIGRATED_SQLITE is None:
            directory = tempfile.mkdtemp(prefix='cinder-ma-test-schema-',
                                         dir=_PROCESS_TMP)
            atexit.register(_remove_if_mine, directory, os.getpid())
            path = os.path.join(directory, 'head.sqlite')
            engine = sa.create_engine('sqlite:///%s' % path)
            try:
                migration.upgrade('head', engine=engine)
            finally:
                # No connection left open: the file holds everything.
                engine.dispose()
            _MIGRATED_SQLITE = path
        return _MIGRATED_SQLITE


def _remove_if_mine(directory, pid):
    # Not from a forked child's exit: the parent's tests still copy it.
    if os.getpid() == pid:
        shutil.rmtree(directory, ignore_errors=True)


def server_url_or_skip(testcase, backend):
    """The admin URL of a database server, or skip/fail the test."""
    if backend == 'postgresql':
        url, port = POSTGRESQL_URL, 5432
    elif backend == 'mysql':
        url, port = MYSQL_URL, 3306
    else:
        return None
    host = sa.engine.make_url(url).host or '127.0.0.1'
    port = sa.engine.make_url(url).port or port
    if not port_open(host, port):
        skip_or_fail(testcase, '%s is not reachable at %s:%s' % (
            backend, host, port))
    return url


class RedisNamespace(fixtures.Fixture):
    """A coordination ``backend_url`` on the test Redis server
    (:data:`REDIS_URL`) with a namespace of its own, whose keys are
    deleted on cleanup, so that tests running at the same time never
    share a lock. Skips (or fails) the test when Redis is not reachable.

    :param testcase: the test to skip.
    """

    def __init__(self, testcase):
        super().__init__()
        self.testcase = testcase

    def _setUp(self):
        parts = urllib.parse.urlsplit(REDIS_URL)
        host, port = parts.hostname or '127.0.0.1', parts.port or 6379
        if not port_open(host, port):
            skip_or_fail(self.testcase, 'Redis is not reachable at %s:%s'
                         % (host, port))
        self.namespace = 'cinder_ma_test_%s' % uuid.uuid4().hex[:12]
        query = urllib.parse.urlencode({'namespace': self.namespace})
        self.url = parts._replace(
            query='&'.join(q for q in (parts.query, query) if q)).geturl()
        self.addCleanup(self._delete_keys)

    def keys(self):
        """The keys of this namespace on the server."""
        client = redis.Redis.from_url(REDIS_URL)
        try:
            return sorted(client.scan_iter(match=self.namespace + '*'))
        finally:
            client.close()

    def _delete_keys(self):
        client = redis.Redis.from_url(REDIS_URL)
        try:
            for key in client.scan_iter(match=self.namespace + '*'):
                client.delete(key)
        finally:
            client.close()


def child_pids(pid):
    """The processes whose parent is ``pid`` (the workers of a server)."""
    children = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as stat:
                fields = stat.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != 'Z':
            children.append(int(entry))
    return children
