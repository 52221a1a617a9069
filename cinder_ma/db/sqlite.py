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

"""The embedded default's database: SQLite's tuning and its writer queue.

:func:`tune` makes a SQLite engine hold up under concurrent clients (WAL,
busy timeout, writers that take the write lock up front, pooled
connections); :data:`WRITER_QUEUE` makes the writers of every process of
one database take turns. :mod:`cinder_ma.db.api` applies both; nothing
else here knows about transactions.

Two things have no public API and are used as they are;
``tests/unit/db/test_sqlite.py`` fails, naming them, when either changes:

- oslo.db's listener that starts every SQLite transaction with a
  deferred ``BEGIN`` is found by its function name, ``_sqlite_emit_begin``
  (:mod:`oslo_db.sqlalchemy.engines`), and removed, so that writers can
  begin with ``BEGIN IMMEDIATE``. oslo.db has no option to leave it out.
- the NullPool oslo.db gives a SQLite file is replaced by a QueuePool
  built from the old pool's connect function, dialect and event
  dispatcher (SQLAlchemy's ``Pool._creator``, ``Pool._dialect`` and the
  ``_dispatch`` argument): a pool has no public way to change its class,
  and oslo.db no option to choose it.

The writer queue is a flock(2) of its own rather than fasteners'
``InterProcessLock``: that one waits by polling (sleeps of 10 to 100 ms
between tries), which is what the queue exists to avoid.
"""

import fcntl
import os
import threading

from oslo_config import cfg
import sqlalchemy as sa

CONF = cfg.CONF

# The name of oslo.db's begin listener for SQLite (see the docstring).
OSLO_DB_BEGIN_LISTENER = '_sqlite_emit_begin'


def file_database(engine):
    """The path of the engine's SQLite file, or None for a database in
    memory."""
    database = engine.url.database
    if database in (None, '', ':memory:'):
        return None
    return database


class WriterLockFile:
    """An exclusive flock(2) on ``<database>.lock``, taken by a writer
    that holds the process's writer lock (see :class:`WriterQueue`).

    The file is opened once per process: a lock held through a descriptor
    inherited across fork() would be shared with the parent.
    """

    def __init__(self):
        self._fd = None
        self._pid = None
        self._path = None

    def _open(self, path):
        if self._fd is not None:
            os.close(self._fd)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC,
                           0o600)
        self._pid, self._path = os.getpid(), path

    def acquire(self, database):
        path = database + '.lock'
        if self._pid != os.getpid() or self._path != path:
            self._open(path)
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def release(self):
        fcntl.flock(self._fd, fcntl.LOCK_UN)


class WriterQueue:
    """SQLite takes one writer at a time; the writers of this process queue
    on a lock, and those of several processes (the workers of cinder-ma-all,
    cinder-ma-manage) on a lock file next to the database, instead of
    polling the database lock with SQLite's busy handler, which sleeps up
    to 100 ms between tries. Other programs writing the file still meet the
    busy timeout.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._file = WriterLockFile()

    def acquire(self, database):
        """Wait for this writer's turn (``database``: the file, or None
        for a database in memory, whose writers are all in this
        process)."""
        self._lock.acquire()
        if database is not None:
            try:
                self._file.acquire(database)
            except BaseException:
                self._lock.release()
                raise

    def release(self, database):
        if database is not None:
            self._file.release()
        self._lock.release()


WRITER_QUEUE = WriterQueue()


def tune(engine, starting_reader):
    """Make a SQLite file database hold up under concurrent clients.

    WAL lets readers run beside the writer. Writer transactions start with
    BEGIN IMMEDIATE, taking the write lock up front (waiting up to
    ``sqlite_busy_timeout``) instead of failing with "database is locked"
    when a read later wants to write; reader transactions start with a
    deferred BEGIN and never wait. Connections are pooled (oslo.db gives
    SQLite files a NullPool, which opens a connection per transaction and
    checkpoints the WAL each time the last one closes).

    :param starting_reader: called with no argument when a transaction
        begins: whether it is a reader's.
    """
    timeout_ms = CONF.database.sqlite_busy_timeout
    file_db = file_database(engine) is not None

    def _connect(dbapi_con, con_record):
        dbapi_con.execute('PRAGMA busy_timeout = %d' % timeout_ms)
        if file_db:
            dbapi_con.execute('PRAGMA journal_mode = WAL')
            dbapi_con.execute('PRAGMA synchronous = NORMAL')
        dbapi_con.execute('PRAGMA foreign_keys = ON')

    def _begin(conn):
        if 'in_transaction' not in conn.info:
            conn.exec_driver_sql(
                'BEGIN' if starting_reader() else 'BEGIN IMMEDIATE')
            conn.info['in_transaction'] = True

    def _do_connect(dialect, conn_rec, cargs, cparams):
        # Pooled connections move between threads.
        cparams['check_same_thread'] = False

    sa.event.listen(engine, 'connect', _connect)
    # oslo.db's own 'begin' listener emits a deferred BEGIN and sets the
    # same marker (its commit/rollback listener clears it); insert=True
    # does not put ours before it on an Engine, so remove it.
    for listener in oslo_db_begin_listeners(engine):
        sa.event.remove(engine, 'begin', listener)
    sa.event.listen(engine, 'begin', _begin, insert=True)
    if file_db and isinstance(engine.pool, sa.pool.NullPool):
        sa.event.listen(engine, 'do_connect', _do_connect)
        old = engine.pool
        # Pool has no public way to change class; _creator is the
        # engine's connect function (dialect events included).
        engine.pool = sa.pool.QueuePool(
            old._creator, pool_size=8, max_overflow=64, timeout=60,
            pre_ping=False, dialect=old._dialect, _dispatch=old.dispatch)
        old.dispose()


def oslo_db_begin_listeners(engine):
    """oslo.db's listeners of the engine's ``begin`` event (see the
    module's docstring)."""
    return [listener for listener in engine.dispatch.begin
            if getattr(listener, '__name__', None) ==
            OSLO_DB_BEGIN_LISTENER]
