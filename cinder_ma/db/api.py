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

"""The data layer's common ground: the enginefacade, its readers and
writers, compare-and-swap, pagination, soft delete and time.

One enginefacade; readers and writers take the request context. State
changes are compare-and-swap UPDATEs whose WHERE clause carries the expected
state (see :func:`conditional_update`). The queries of each resource live
in a module of their own beside this one (:mod:`~cinder_ma.db.volumes`,
:mod:`~cinder_ma.db.types`, :mod:`~cinder_ma.db.services`,
:mod:`~cinder_ma.db.attachments`, ...), which import this one and never
the other way round; the embedded default's SQLite tuning and writer queue
are :mod:`cinder_ma.db.sqlite`.

Every module runs Core statements of the tables (the models are their
definitions) on the transaction's connection,
``connection_of(context).execute``, and returns the records of
:mod:`cinder_ma.db.records`. Readers and writers run in the
enginefacade's connection mode: no ORM session is made for a
transaction.
"""

import contextlib
import functools
import threading

from oslo_config import cfg
from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_db.sqlalchemy import utils as sqlalchemyutils
from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from cinder_ma.db import sqlite
from cinder_ma import exception

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

main_context_manager = enginefacade.transaction_context()
# oslo.db's checkin hook sleeps to let eventlet switch; threads need not.
main_context_manager.configure(thread_checkin=False)
_ENGINE_LOCK = threading.Lock()
# Its writer and reader modes, made once: each access to ``writer`` or
# ``reader`` makes a new one. They follow a replaced factory (a test's),
# which is the root's.
_WRITER_MODE = main_context_manager.writer
_READER_MODE = main_context_manager.reader
# Their connection modes: a transaction of Core statements needs no ORM
# session (which costs CPU to open, to find its connection at every
# statement, and to close).
_WRITER_CONNECTION = _WRITER_MODE.connection
_READER_CONNECTION = _READER_MODE.connection

# What the transaction being started on this thread is: readers begin a
# deferred SQLite transaction, writers an immediate one.
_TXN = threading.local()

retry_on_deadlock = oslo_db_api.wrap_db_retry(max_retries=5,
                                              retry_on_deadlock=True,
                                              retry_interval=0.05,
                                              inc_retry_interval=True)


def _mysql_events(engine):
    """READ COMMITTED, as on PostgreSQL: a statement of a transaction that
    waited for a volume's row lock sees what the holder committed."""
    def _connect(dbapi_con, con_record):
        with dbapi_con.cursor() as cursor:
            cursor.execute('SET SESSION TRANSACTION ISOLATION LEVEL '
                           'READ COMMITTED')

    sa.event.listen(engine, 'connect', _connect)
    # Connections opened before the listener existed.
    engine.dispose()


def get_engine():
    """The writer engine, with our per-dialect settings applied once."""
    engine = _WRITER_MODE.get_engine()
    if not getattr(engine, '_cinder_ma_ready', False):
        with _ENGINE_LOCK:
            if not getattr(engine, '_cinder_ma_ready', False):
                if engine.dialect.name == 'sqlite':
                    sqlite.tune(engine, _starting_reader)
                elif engine.dialect.name == 'mysql':
                    _mysql_events(engine)
                engine._cinder_ma_ready = True
    return engine


def dispose_engine():
    """Close the pooled database connections of this process.

    For a process about to fork workers: a connection must not be used on
    both sides of fork().
    """
    get_engine().dispose()


class _Transaction:
    """Tells the SQLite ``begin`` hook whether the transaction this thread
    starts is a reader or a writer and, for a SQLite writer, waits for its
    turn in :data:`cinder_ma.db.sqlite.WRITER_QUEUE` (once per thread: a
    nested writer with another context does not wait for its own
    thread)."""

    def __init__(self, engine, readonly):
        self.queue = (sqlite.WRITER_QUEUE if not readonly and
                      engine.dialect.name == 'sqlite' else None)
        self.database = sqlite.file_database(engine)
        self.readonly = readonly
        self.take_lock = False

    def __enter__(self):
        if self.queue is not None and not getattr(_TXN, 'holds_lock', False):
            self.queue.acquire(self.database)
            _TXN.holds_lock = self.take_lock = True
        _TXN.__dict__.setdefault('stack', []).append(self.readonly)

    def __exit__(self, *exc):
        _TXN.stack.pop()
        if self.take_lock:
            _TXN.holds_lock = False
            self.queue.release(self.database)


def _starting_reader():
    stack = getattr(_TXN, 'stack', None)
    return bool(stack) and stack[-1]


def connection_of(context):
    """The connection of the transaction ``context`` is in (the readers
    and writers here run in the enginefacade's connection mode)."""
    return context.connection


def reader(func):
    """Run ``func(context, ...)`` in a reader transaction."""
    wrapped = _READER_CONNECTION(func)

    @functools.wraps(func)
    def inner(context, *args, **kwargs):
        with _Transaction(get_engine(), readonly=True):
            return wrapped(context, *args, **kwargs)
    return inner


@contextlib.contextmanager
def reading(context):
    """One reader transaction for several reads of a request: the reader
    functions called inside join it instead of opening their own."""
    with _Transaction(get_engine(), readonly=True):
        with _READER_CONNECTION.using(context):
            yield


def in_writer(context, func, *args, **kwargs):
    """``func(*args, **kwargs)`` in one writer transaction of ``context``
    (the readers and writers it calls with ``context`` join it), retried
    on deadlock: for a request whose reads and write are one
    transaction."""
    @retry_on_deadlock
    def run():
        with _Transaction(get_engine(), readonly=False):
            with _WRITER_CONNECTION.using(context):
                return func(*args, **kwargs)
    return run()


def writer(func):
    """Run ``func(context, ...)`` in a writer transaction, retried on
    deadlock."""
    wrapped = _WRITER_CONNECTION(func)

    def locked(context, *args, **kwargs):
        with _Transaction(get_engine(), readonly=False):
            return wrapped(context, *args, **kwargs)

    return functools.wraps(func)(retry_on_deadlock(locked))


def utcnow():
    """The time the data layer writes (naive UTC)."""
    return timeutils.utcnow()


def conditional_update(context, model, row_id, values, expected=None):
    """Compare-and-swap: update a row only if it is in the expected state,
    in the transaction of ``context``.

    :param expected: {column: value} or {column: (value1, value2, ...)}
        conditions that must hold; a value may also be a SQLAlchemy
        expression.
    :returns: True when the row was updated, False when a condition did
        not hold (nothing was changed).
    """
    # The statement of the plain values and conditions is built once per
    # model and shape (:func:`_conditional_statement`), their values bound
    # at execution; SQL expressions, of values or conditions, are added to
    # it per call.
    params = {'cu_row_id': row_id}
    value_keys, expressions = [], {}
    for key, value in values.items():
        if isinstance(value, sa.sql.ClauseElement):
            expressions[key] = value
        else:
            value_keys.append(key)
            params['cu_set_' + key] = value
    if 'updated_at' not in values:
        value_keys.append('updated_at')
        params['cu_set_updated_at'] = utcnow()
    shape, conditions = [], []
    for column, value in (expected or {}).items():
        if isinstance(value, sa.sql.ClauseElement):
            conditions.append(value)
        elif isinstance(value, (list, tuple, set, frozenset)):
            shape.append((column, 'in'))
            params['cu_expect_' + column] = list(value)
        elif value is None:
            shape.append((column, 'null'))
        else:
            shape.append((column, 'eq'))
            params['cu_expect_' + column] = value
    statement = _conditional_statement(model, tuple(value_keys),
                                       tuple(shape))
    if conditions:
        statement = statement.where(*conditions)
    if expressions:
        statement = statement.values(expressions)
    return connection_of(context).execute(statement, params).rowcount == 1


@functools.lru_cache(maxsize=256)
def _conditional_statement(model, value_keys, shape):
    """The UPDATE of :func:`conditional_update` setting ``value_keys``
    where the conditions of ``shape`` ((column, 'eq' | 'in' | 'null'),
    ...) hold, with bound parameters ``cu_row_id``, ``cu_set_<key>`` and
    ``cu_expect_<column>``."""
    table = model.__table__
    where = [table.c.id == sa.bindparam('cu_row_id'),
             table.c.deleted == sa.false()]
    for column, kind in shape:
        col = table.c[column]
        if kind == 'null':
            where.append(col.is_(None))
        elif kind == 'in':
            where.append(col.in_(sa.bindparam('cu_expect_' + column,
                                              expanding=True)))
        else:
            where.append(col == sa.bindparam('cu_expect_' + column))
    return sa.update(table).where(*where).values({
        key: sa.bindparam('cu_set_' + key, type_=table.c[key].type)
        for key in value_keys})


def deleted_values(model, now=None):
    """The values that soft-delete a row of ``model``: ``deleted``, its
    time and, for tables with soft-delete-aware unique constraints
    (:class:`~cinder_ma.db.models.SoftDeleteKeyMixin`), ``deleted_key``
    set to the row's id.
    """
    now = now or utcnow()
    values = {'deleted': True, 'deleted_at': now, 'updated_at': now}
    if hasattr(model, 'deleted_key'):
        values['deleted_key'] = sa.cast(model.id, sa.String(36))
    return values


@contextlib.contextmanager
def on_duplicate_raise(error):
    """Turn a unique constraint's refusal into ``error`` (a Conflict):
    the loser of a race between two writers of the same unique key."""
    try:
        yield
    except db_exc.DBDuplicateEntry:
        raise error from None


def soft_delete(context, model, *conditions):
    """Soft-delete the live rows of ``model`` matching ``conditions``.

    :returns: how many rows were deleted.
    """
    return connection_of(context).execute(
        sa.update(model.__table__).where(model.deleted == sa.false(),
                                         *conditions)
        .values(**deleted_values(model))).rowcount


# Columns that are nullable in the schema but set on every insert (the
# models' default): sorted as they are, so that the default order of
# volume lists keeps to its index.
_SET_ON_INSERT = frozenset(('created_at',))


def _nullable(model, key):
    return key not in _SET_ON_INSERT and model.__table__.c[key].nullable


def _comparable(column, value):
    # Booleans cannot be compared with < and > everywhere (oslo.db does
    # the same cast in paginate_query).
    if isinstance(column.type, sa.Boolean):
        return sa.cast(column, sa.Integer), int(value)
    return column, value


def _beyond(model, key, direction, value):
    """Rows whose ``key`` comes after ``value`` in the order (NULL the
    smallest value), or None when none can."""
    column = getattr(model, key)
    if direction == 'asc':
        if value is None:
            return column.is_not(None)
        column, value = _comparable(column, value)
        return column > value
    if value is None:
        return None
    compared, value = _comparable(column, value)
    if _nullable(model, key):
        return sa.or_(compared < value, column.is_(None))
    return compared < value


def _same(model, key, value):
    column = getattr(model, key)
    return column.is_(None) if value is None else column == value


def _after(model, sort_keys, sort_dirs, marker_row):
    """The condition of the rows after the marker's: for some key, the
    keys before it equal to the marker's and it beyond (see
    paginate_query's docstring), with NULLs compared as values."""
    criteria = []
    for index, key in enumerate(sort_keys):
        beyond = _beyond(model, key, sort_dirs[index], marker_row[index])
        if beyond is None:
            continue
        same = [_same(model, before, marker_row[position])
                for position, before in enumerate(sort_keys[:index])]
        criteria.append(sa.and_(*same, beyond))
    return sa.or_(*criteria) if criteria else sa.false()


def paginate(connection, statement, model, visible, marker, limit,
             sort_keys, sort_dirs, allowed_keys, default_key, default_dir):
    """A page of the Core select ``statement`` of ``model``'s rows after
    ``marker``, sorted, as Cinder pages.

    NULL sorts as the smallest value on every database (first when
    ascending, last when descending), and a marker whose sort keys are
    NULL pages on exactly after it: every row is on one page and one
    only, whatever the keys. oslo.db's ``paginate_query`` orders the rows
    (with its ``-nullsfirst``/``-nullslast`` directions on nullable
    keys); the rows after the marker are selected here, because
    ``paginate_query`` skips the keys whose marker value is NULL, which
    repeats or loses rows (and includes NULLs on the wrong side of a
    descending key).

    :param connection: the transaction's connection, to read the marker.
    :param visible: the Core select of the rows the marker must be found
        in (the caller's visible rows, before filters); its sort keys
        are read, only when there is a marker.
    :raises InvalidSortKey: a key outside ``allowed_keys``.
    :raises MarkerNotFound: no visible row has the marker's id.
    """
    sort_keys = list(sort_keys or [default_key])
    sort_dirs = list(sort_dirs or [default_dir] * len(sort_keys))
    for key in sort_keys:
        if key not in allowed_keys:
            raise exception.InvalidSortKey(key=key)
    if 'id' not in sort_keys:
        # A unique last key keeps pages stable.
        sort_keys.append('id')
        sort_dirs.append(sort_dirs[0])
    if marker is not None:
        # Only the marker's sort keys.
        table = model.__table__
        marker_row = connection.execute(visible.with_only_columns(
            *[table.c[key] for key in sort_keys]).where(
                table.c.id == marker).limit(1)).first()
        if marker_row is None:
            raise exception.MarkerNotFound(marker=marker)
        statement = statement.where(_after(model, sort_keys, sort_dirs,
                                           marker_row))
    directions = [
        direction + ('-nullsfirst' if direction == 'asc' else '-nullslast')
        if _nullable(model, key) else direction
        for key, direction in zip(sort_keys, sort_dirs)]
    return sqlalchemyutils.paginate_query(statement, model, limit,
                                          sort_keys, sort_dirs=directions)


def conditional_update_pk(context, model, pk_column, pk, values):
    """Update the live row of ``model`` whose ``pk_column`` is ``pk``
    (for tables whose key is not ``id``), unconditionally."""
    values = dict(values)
    values.setdefault('updated_at', utcnow())
    connection_of(context).execute(sa.update(model.__table__).where(
        pk_column == pk, model.deleted == sa.false()).values(**values))
