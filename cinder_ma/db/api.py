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

"""Database API: every read and write of cinder_ma's tables.

One enginefacade; readers and writers take the request context. State
changes are compare-and-swap UPDATEs whose WHERE clause carries the expected
state (see :func:`conditional_update`); lists load their children eagerly so
that a page costs a constant number of queries whatever its size.
"""

import collections
import contextlib
import datetime
import fcntl
import functools
import operator
import os
import threading
import types as types_module
import uuid

from oslo_config import cfg
from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_db.sqlalchemy import utils as sqlalchemyutils
from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import timeutils
import sqlalchemy as sa

from cinder_ma.db import models
from cinder_ma import exception

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

main_context_manager = enginefacade.transaction_context()
# oslo.db's checkin hook sleeps to let eventlet switch; threads need not.
main_context_manager.configure(thread_checkin=False)
_ENGINE_LOCK = threading.Lock()

# What the transaction being started on this thread is: readers begin a
# deferred SQLite transaction, writers an immediate one.
_TXN = threading.local()

# SQLite takes one writer at a time; the writers of this process queue
# on a lock, and those of several processes (the workers of cinder-ma-all,
# cinder-ma-manage) on a lock file next to the database, instead of polling
# the database lock with SQLite's busy handler, which sleeps up to 100 ms
# between tries. Other programs writing the file still meet the busy
# timeout.
_SQLITE_WRITER_LOCK = threading.Lock()


class _WriterLockFile:
    """An exclusive flock(2) on ``<database>.lock``, taken by a writer
    that holds :data:`_SQLITE_WRITER_LOCK`.

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


_SQLITE_WRITER_FILE = _WriterLockFile()

retry_on_deadlock = oslo_db_api.wrap_db_retry(max_retries=5,
                                              retry_on_deadlock=True,
                                              retry_interval=0.05,
                                              inc_retry_interval=True)


def _sqlite_events(engine):
    """Make a SQLite file database hold up under concurrent clients.

    WAL lets readers run beside the writer. Writer transactions start with
    BEGIN IMMEDIATE, taking the write lock up front (waiting up to
    ``sqlite_busy_timeout``) instead of failing with "database is locked"
    when a read later wants to write; reader transactions start with a
    deferred BEGIN and never wait. Connections are pooled (oslo.db gives
    SQLite files a NullPool, which opens a connection per transaction and
    checkpoints the WAL each time the last one closes).
    """
    timeout_ms = CONF.database.sqlite_busy_timeout
    file_db = engine.url.database not in (None, '', ':memory:')

    def _connect(dbapi_con, con_record):
        dbapi_con.execute('PRAGMA busy_timeout = %d' % timeout_ms)
        if file_db:
            dbapi_con.execute('PRAGMA journal_mode = WAL')
            dbapi_con.execute('PRAGMA synchronous = NORMAL')
        dbapi_con.execute('PRAGMA foreign_keys = ON')

    def _begin(conn):
        if 'in_transaction' not in conn.info:
            conn.exec_driver_sql(
                'BEGIN' if _starting_reader() else 'BEGIN IMMEDIATE')
            conn.info['in_transaction'] = True

    def _do_connect(dialect, conn_rec, cargs, cparams):
        # Pooled connections move between threads.
        cparams['check_same_thread'] = False

    sa.event.listen(engine, 'connect', _connect)
    # oslo.db's own 'begin' listener emits a deferred BEGIN and sets the
    # same marker (its commit/rollback listener clears it); insert=True
    # does not put ours before it on an Engine, so remove it.
    for listener in list(engine.dispatch.begin):
        if getattr(listener, '__name__', None) == '_sqlite_emit_begin':
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
    engine = main_context_manager.writer.get_engine()
    if not getattr(engine, '_cinder_ma_ready', False):
        with _ENGINE_LOCK:
            if not getattr(engine, '_cinder_ma_ready', False):
                if engine.dialect.name == 'sqlite':
                    _sqlite_events(engine)
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
    starts is a reader or a writer and, for a SQLite writer, holds the
    process's writer lock around it (once per thread: a nested writer
    with another context does not wait for its own thread)."""

    def __init__(self, engine, readonly):
        self.lock = (_SQLITE_WRITER_LOCK if not readonly and
                     engine.dialect.name == 'sqlite' else None)
        self.database = engine.url.database
        if self.database in ('', ':memory:'):
            self.database = None
        self.readonly = readonly
        self.take_lock = False

    def __enter__(self):
        if self.lock is not None and not getattr(_TXN, 'holds_lock', False):
            self.lock.acquire()
            if self.database is not None:
                try:
                    _SQLITE_WRITER_FILE.acquire(self.database)
                except BaseException:
                    self.lock.release()
                    raise
            _TXN.holds_lock = self.take_lock = True
        _TXN.__dict__.setdefault('stack', []).append(self.readonly)

    def __exit__(self, *exc):
        _TXN.stack.pop()
        if self.take_lock:
            _TXN.holds_lock = False
            if self.database is not None:
                _SQLITE_WRITER_FILE.release()
            self.lock.release()


def in_transaction():
    """Whether this thread runs inside a reader or writer of this
    module."""
    return bool(getattr(_TXN, 'stack', None))


def _starting_reader():
    stack = getattr(_TXN, 'stack', None)
    return bool(stack) and stack[-1]


def reader(func):
    """Run ``func(context, ...)`` in a reader transaction."""
    wrapped = main_context_manager.reader(func)

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
        with main_context_manager.reader.using(context):
            yield


def writer(func):
    """Run ``func(context, ...)`` in a writer transaction, retried on
    deadlock."""
    wrapped = main_context_manager.writer(func)

    def locked(context, *args, **kwargs):
        with _Transaction(get_engine(), readonly=False):
            return wrapped(context, *args, **kwargs)

    return functools.wraps(func)(retry_on_deadlock(locked))


def _now():
    return timeutils.utcnow()


def conditional_update(session, model, row_id, values, expected=None):
    """Compare-and-swap: update a row only if it is in the expected state.

    :param expected: {column: value} or {column: (value1, value2, ...)}
        conditions that must hold; a value may also be a SQLAlchemy
        expression.
    :returns: True when the row was updated, False when a condition did
        not hold (nothing was changed).
    """
    query = sa.update(model).where(model.id == row_id,
                                   model.deleted == sa.false())
    for column, value in (expected or {}).items():
        if isinstance(value, sa.sql.ClauseElement):
            query = query.where(value)
            continue
        col = getattr(model, column)
        if isinstance(value, (list, tuple, set, frozenset)):
            query = query.where(col.in_(list(value)))
        elif value is None:
            query = query.where(col.is_(None))
        else:
            query = query.where(col == value)
    values = dict(values)
    if 'updated_at' not in values:
        values['updated_at'] = _now()
    result = session.execute(query.values(**values).execution_options(
        synchronize_session=False))
    return result.rowcount == 1


def deleted_values(model, now=None):
    """The values that soft-delete a row of ``model``: ``deleted``, its
    time and, for tables with soft-delete-aware unique constraints
    (:class:`~cinder_ma.db.models.SoftDeleteKeyMixin`), ``deleted_key``
    set to the row's id.
    """
    now = now or _now()
    values = {'deleted': True, 'deleted_at': now, 'updated_at': now}
    if hasattr(model, 'deleted_key'):
        values['deleted_key'] = sa.cast(model.id, sa.String(36))
    return values


@contextlib.contextmanager
def _unique(error):
    """Turn a unique constraint's refusal into ``error`` (a Conflict):
    the loser of a race between two writers of the same unique key."""
    try:
        yield
    except db_exc.DBDuplicateEntry:
        raise error from None


def _soft_delete(context, model, *conditions):
    """Soft-delete the live rows of ``model`` matching ``conditions``.

    :returns: how many rows were deleted.
    """
    return context.session.execute(
        sa.update(model).where(model.deleted == sa.false(), *conditions)
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


def paginate(query, model, base_query, marker, limit, sort_keys, sort_dirs,
             allowed_keys, default_key, default_dir):
    """A page of ``query`` after ``marker``, sorted, as Cinder pages.

    NULL sorts as the smallest value on every database (first when
    ascending, last when descending), and a marker whose sort keys are
    NULL pages on exactly after it: every row is on one page and one
    only, whatever the keys. oslo.db's ``paginate_query`` orders the rows
    (with its ``-nullsfirst``/``-nullslast`` directions on nullable
    keys); the rows after the marker are selected here, because
    ``paginate_query`` skips the keys whose marker value is NULL, which
    repeats or loses rows (and includes NULLs on the wrong side of a
    descending key).

    :param base_query: the query the marker must be found in (the
        caller's visible rows, before filters).
    :raises InvalidSortKey: a key outside ``allowed_keys``.
    :raises InvalidMarker: no visible row has the marker's id.
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
        # Only the marker's sort keys: not the model with its children.
        marker_row = base_query.with_entities(
            *[getattr(model, key) for key in sort_keys]).filter(
                model.id == marker).first()
        if marker_row is None:
            raise exception.InvalidMarker(marker=marker)
        query = query.filter(_after(model, sort_keys, sort_dirs,
                                    marker_row))
    directions = [
        direction + ('-nullsfirst' if direction == 'asc' else '-nullslast')
        if _nullable(model, key) else direction
        for key, direction in zip(sort_keys, sort_dirs)]
    return sqlalchemyutils.paginate_query(query, model, limit, sort_keys,
                                          sort_dirs=directions)


# Volumes

_VOLUME_SORT_KEYS = {'id', 'name', 'description', 'status', 'size',
                     'created_at', 'updated_at', 'availability_zone',
                     'volume_type_id', 'host', 'bootable', 'multiattach',
                     'project_id'}


def _volume_query(context, project_id=None):
    query = context.session.query(models.Volume).filter(
        models.Volume.deleted == sa.false())
    if project_id is not None:
        query = query.filter(models.Volume.project_id == project_id)
    return query


def volume_create(context, values, quota=None):
    """Record a volume; returns it as a plain record with its children
    (as :func:`volume_get_all` gives them).

    :param quota: called as ``quota(context, None)`` in the transaction
        before the row is added (to charge the project's quota); what it
        raises rolls the transaction back.
    """
    # The volume is read back after the writer transaction: with SQLite
    # every writer of the deployment queues on one lock, and loading the
    # volume with its children (three queries) inside it was most of the
    # time the lock was held by volume creates. Read as a plain record,
    # it costs a third of the ORM's load.
    return _volume_record(context, _volume_insert(context, values, quota))


@writer
def _volume_insert(context, values, quota):
    values = dict(values)
    if quota is not None:
        quota(context, None)
    metadata = values.pop('metadata', None) or {}
    volume = models.Volume(id=values.pop('id', None) or str(uuid.uuid4()),
                           **values)
    context.session.add(volume)
    context.session.flush()
    for key, value in metadata.items():
        context.session.add(models.VolumeMetadata(
            volume_id=volume.id, key=key, value=value))
    context.session.flush()
    return volume.id


_VOLUME_TABLE = models.Volume.__table__
_VOLUME_ROW = sa.select(_VOLUME_TABLE).where(
    _VOLUME_TABLE.c.id == sa.bindparam('volume_id'),
    _VOLUME_TABLE.c.deleted == sa.false())
_PROJECT_VOLUME_ROW = _VOLUME_ROW.where(
    _VOLUME_TABLE.c.project_id == sa.bindparam('project_id'))


def _volume_get(context, volume_id, project_id=None, children=True):
    if children:
        volume = _volume_query(context, project_id).filter(
            models.Volume.id == volume_id).populate_existing().first()
    elif project_id is None:
        # The row alone, read with a Core statement built once: the attach
        # path reads it several times per request, and the ORM costs ten
        # times more.
        volume = context.session.execute(
            _VOLUME_ROW, {'volume_id': volume_id}).first()
    else:
        volume = context.session.execute(
            _PROJECT_VOLUME_ROW, {'volume_id': volume_id,
                                  'project_id': project_id}).first()
    if volume is None:
        raise exception.VolumeNotFound(volume_id=volume_id)
    return volume


@reader
def volume_get(context, volume_id, project_id=None, children=True):
    """A volume with its type, metadata and live attachments.

    :param project_id: when not None, a volume of another project is not
        found.
    :param children: False for the volume row alone (one Core query, for
        the hot attach path): a read-only row with the columns as
        attributes and no relationships.
    """
    return _volume_get(context, volume_id, project_id, children)


# Time comparison filters of volume lists (microversion 3.60).
TIME_OPERATORS = {'gt': operator.gt, 'gte': operator.ge, 'lt': operator.lt,
                  'lte': operator.le, 'eq': operator.eq, 'neq': operator.ne}


def _apply_volume_filters(query, filters):
    for key, value in (filters or {}).items():
        if key in ('created_at', 'updated_at') and isinstance(value, dict):
            # {operator name: naive UTC datetime}: all must hold.
            column = getattr(models.Volume, key)
            for name, when in value.items():
                query = query.filter(TIME_OPERATORS[name](column, when))
            continue
        if key == 'metadata':
            for mkey, mvalue in value.items():
                query = query.filter(models.Volume.volume_metadata.any(
                    sa.and_(models.VolumeMetadata.key == mkey,
                            models.VolumeMetadata.value == mvalue)))
        elif key == 'name~':
            query = query.filter(models.Volume.name.contains(value))
        elif key == 'status' and isinstance(value, (list, tuple)):
            query = query.filter(models.Volume.status.in_(value))
        elif key in ('id',) and isinstance(value, (list, tuple)):
            query = query.filter(models.Volume.id.in_(value))
        elif hasattr(models.Volume, key):
            query = query.filter(getattr(models.Volume, key) == value)
        else:
            raise exception.InvalidInput(
                reason='invalid filter key %s' % key)
    return query


@reader
def volume_get_all(context, project_id=None, filters=None, marker=None,
                   limit=None, sort_keys=None, sort_dirs=None):
    """A page of volumes, children loaded in a constant number of
    queries."""
    query = _apply_volume_filters(_volume_query(context, project_id),
                                  filters)
    query = paginate(query, models.Volume,
                     _volume_query(context, project_id),
                     marker, limit, sort_keys, sort_dirs, _VOLUME_SORT_KEYS,
                     'created_at', 'desc')
    # The page's rows as Core rows: run on the session's connection, the
    # statement skips the ORM's processing of each row.
    rows = context.session.connection().execute(
        query.with_entities(*_VOLUME_TABLE.columns).statement).all()
    return _volume_records(context, rows)


# The children of a page of volumes, by the ids of its volumes (an
# expanding IN), built once. Of attachments, what a volume view shows (not
# the connector and connection_info, which can be long) and manager_host.
_TYPE_TABLE = models.VolumeType.__table__
_SPEC_TABLE = models.VolumeTypeExtraSpecs.__table__
_PAGE_TYPES = sa.select(
    _TYPE_TABLE.c.id, _TYPE_TABLE.c.name,
    sa.select(_SPEC_TABLE.c.value).where(
        _SPEC_TABLE.c.volume_type_id == _TYPE_TABLE.c.id,
        _SPEC_TABLE.c.key == models.WRITERS_SPEC,
        _SPEC_TABLE.c.deleted == sa.false()).limit(1).scalar_subquery()
).where(_TYPE_TABLE.c.id.in_(sa.bindparam('ids', expanding=True)))
_META_TABLE = models.VolumeMetadata.__table__
_PAGE_METADATA = sa.select(
    _META_TABLE.c.volume_id, _META_TABLE.c.key, _META_TABLE.c.value).where(
        _META_TABLE.c.volume_id.in_(sa.bindparam('ids', expanding=True)),
        _META_TABLE.c.deleted == sa.false())
_ATT_TABLE = models.VolumeAttachment.__table__
_PAGE_ATTACHMENTS = sa.select(
    _ATT_TABLE.c.id, _ATT_TABLE.c.volume_id, _ATT_TABLE.c.instance_uuid,
    _ATT_TABLE.c.attached_host, _ATT_TABLE.c.mountpoint,
    _ATT_TABLE.c.attach_mode, _ATT_TABLE.c.attach_status,
    _ATT_TABLE.c.attach_time, _ATT_TABLE.c.manager_host).where(
        _ATT_TABLE.c.volume_id.in_(sa.bindparam('ids', expanding=True)),
        _ATT_TABLE.c.deleted == sa.false()).order_by(_ATT_TABLE.c.created_at)

# Records of the children: named tuples of the selected columns, whose
# attributes read several times faster than those of SQLAlchemy's Row (a
# list view reads a few of each of thousands of attachments).
MetadataRecord = collections.namedtuple(
    'MetadataRecord', [c.name for c in _PAGE_METADATA.selected_columns])
AttachmentRecord = collections.namedtuple(
    'AttachmentRecord', [c.name for c in _PAGE_ATTACHMENTS.selected_columns])


def _by_volume(result, record_type):
    """{volume_id: [record, ...]} of the rows of ``result``, in order."""
    grouped = {}
    make = record_type._make
    for row in result.all():
        record = make(row)
        grouped.setdefault(record.volume_id, []).append(record)
    return grouped


@reader
def _volume_record(context, volume_id):
    row = context.session.execute(_VOLUME_ROW,
                                  {'volume_id': volume_id}).first()
    if row is None:
        raise exception.VolumeNotFound(volume_id=volume_id)
    return _volume_records(context, [row])[0]


def _volume_records(context, rows):
    """Plain records of a page of volume rows, with their type, metadata
    and live attachments read in three more queries (whatever the page
    size): views read them like models, without the ORM's cost per
    object.

    A volume is a SimpleNamespace of its columns plus ``volume_type``
    (with its ``name`` and ``writers_spec``, or None), ``volume_metadata``
    (:class:`MetadataRecord` list) and ``volume_attachment``
    (:class:`AttachmentRecord` list, oldest first).
    """
    if not rows:
        return []
    records = []
    keys = rows[0]._fields
    for row in rows:
        record = types_module.SimpleNamespace()
        record.__dict__.update(zip(keys, row))
        records.append(record)
    session = context.session
    ids = [record.id for record in records]
    type_ids = list({record.volume_type_id for record in records})
    types = {type_id: types_module.SimpleNamespace(name=name,
                                                   writers_spec=writers)
             for type_id, name, writers in session.execute(
                 _PAGE_TYPES, {'ids': type_ids})}
    metadata = _by_volume(session.execute(_PAGE_METADATA, {'ids': ids}),
                          MetadataRecord)
    attachments = _by_volume(
        session.execute(_PAGE_ATTACHMENTS, {'ids': ids}), AttachmentRecord)
    for record in records:
        record.volume_type = types.get(record.volume_type_id)
        record.volume_metadata = metadata.get(record.id, [])
        record.volume_attachment = attachments.get(record.id, [])
    return records


@reader
def volume_count(context, project_id=None, filters=None):
    query = _apply_volume_filters(_volume_query(context, project_id),
                                  filters)
    return query.count()


def _usage(query):
    count, gigabytes = query.with_entities(
        sa.func.count(models.Volume.id),
        sa.func.coalesce(sa.func.sum(models.Volume.size), 0)).one()
    return int(count), int(gigabytes)


@reader
def volume_usage_on_host(context, host):
    """((count, GiB), project ids) of the live volumes of a host (matched
    as :func:`host_filter` does)."""
    query = _volume_query(context).filter(
        host_filter(models.Volume.host, host))
    projects = sorted(p for (p,) in query.with_entities(
        models.Volume.project_id).distinct())
    return _usage(query), projects


@reader
def volume_usage_of_project(context, project_id):
    """(count, GiB) of the live volumes of a project."""
    return _usage(_volume_query(context, project_id))


@reader
def volume_summary(context, project_id=None, filters=None):
    """(count, total size, {metadata key: sorted distinct values}) of the
    volumes matching ``filters``."""
    query = _apply_volume_filters(_volume_query(context, project_id),
                                  filters)
    ids = query.with_entities(models.Volume.id).subquery()
    count, size = query.with_entities(
        sa.func.count(models.Volume.id),
        sa.func.coalesce(sa.func.sum(models.Volume.size), 0)).one()
    metadata = collections.defaultdict(set)
    for key, value in context.session.execute(
            sa.select(models.VolumeMetadata.key,
                      models.VolumeMetadata.value).distinct().where(
                models.VolumeMetadata.volume_id.in_(sa.select(ids)),
                models.VolumeMetadata.deleted == sa.false())):
        metadata[key].add(value)
    return int(count), int(size), {key: sorted(values)
                                   for key, values in metadata.items()}


@writer
def volume_update(context, volume_id, values, expected=None,
                  metadata=None, quota=None, children=True):
    """Update a volume, optionally only from an expected state.

    :param metadata: when not None, replaces the volume's metadata.
    :param quota: called as ``quota(context, volume)`` in the transaction
        once the update is made (``volume`` is the row before it); what
        it raises rolls the update back.
    :raises VolumeNotFound: no such volume.
    :raises Conflict: ``expected`` did not hold.
    :param children: False to get back the row alone (see volume_get).
    :returns: the updated volume, read after the update's transaction
        (outside SQLite's writer lock, as in volume_create).
    """
    _volume_change(context, volume_id, values, expected, metadata, quota)
    return volume_get(context, volume_id, children=children)


@writer
def _volume_change(context, volume_id, values, expected, metadata, quota):
    before = None
    if quota is not None:
        before = _volume_get(context, volume_id, children=False)
    if values or expected:
        if not conditional_update(context.session, models.Volume,
                                  volume_id, values or {}, expected):
            current = _volume_get(context, volume_id, children=False)
            raise exception.Conflict(
                reason='volume %s is in status %s, expected %s' % (
                    volume_id, current.status, _describe(expected)))
    else:
        _volume_get(context, volume_id, children=False)
    if quota is not None:
        quota(context, before)
    if metadata is not None:
        _metadata_replace(context, volume_id, metadata)


def _describe(expected):
    parts = []
    for key, value in (expected or {}).items():
        if isinstance(value, sa.sql.ClauseElement):
            continue
        if isinstance(value, (list, tuple, set, frozenset)):
            parts.append('%s in (%s)' % (key, ', '.join(map(str, value))))
        else:
            parts.append('%s=%s' % (key, value))
    return ', '.join(parts) or 'a different state'


def _metadata_replace(context, volume_id, metadata):
    _soft_delete(context, models.VolumeMetadata,
                 models.VolumeMetadata.volume_id == volume_id)
    for key, value in metadata.items():
        context.session.add(models.VolumeMetadata(
            volume_id=volume_id, key=key, value=value))
    context.session.flush()


@writer
def volume_destroy(context, volume_id, quota=None):
    """Soft-delete a volume and its metadata.

    :param quota: called as ``quota(context, volume)`` in the transaction
        with the row deleted (to release what it held of the quota).
    """
    volume = None
    if quota is not None:
        volume = _volume_get(context, volume_id, children=False)
    now = _now()
    values = {'deleted': True, 'deleted_at': now, 'status': 'deleted',
              'updated_at': now}
    if not conditional_update(context.session, models.Volume, volume_id,
                              values):
        raise exception.VolumeNotFound(volume_id=volume_id)
    if quota is not None:
        quota(context, volume)
    _soft_delete(context, models.VolumeMetadata,
                 models.VolumeMetadata.volume_id == volume_id)


# Volume types

def _type_query(context):
    return context.session.query(models.VolumeType).filter(
        models.VolumeType.deleted == sa.false())


def _type_get(context, type_id):
    vtype = _type_query(context).filter(
        models.VolumeType.id == type_id).populate_existing().first()
    if vtype is None:
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)
    return vtype


def _lock_type(context, type_id):
    """Touch a type's row: its lock serializes writers that check one
    another's changes to the type (multiattach spec vs. encryption)."""
    if not conditional_update(context.session, models.VolumeType, type_id,
                              {}):
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)


@writer
def volume_type_create(context, values, extra_specs=None):
    values = dict(values)
    name = values['name']
    if _type_query(context).filter(models.VolumeType.name == name).first():
        raise exception.VolumeTypeExists(name=name)
    vtype = models.VolumeType(id=values.pop('id', None) or str(uuid.uuid4()),
                              **values)
    with _unique(exception.VolumeTypeExists(name=name)):
        context.session.add(vtype)
        context.session.flush()
    for key, value in (extra_specs or {}).items():
        context.session.add(models.VolumeTypeExtraSpecs(
            volume_type_id=vtype.id, key=key, value=value))
    context.session.flush()
    return _type_get(context, vtype.id)


@reader
def volume_type_get(context, type_id):
    return _type_get(context, type_id)


@reader
def volume_type_get_by_name(context, name):
    vtype = _type_query(context).filter(
        models.VolumeType.name == name).first()
    if vtype is None:
        raise exception.VolumeTypeNotFoundByName(volume_type_name=name)
    return vtype


@reader
def volume_type_get_all(context, filters=None, marker=None, limit=None,
                        sort_keys=None, sort_dirs=None):
    query = _type_query(context)
    for key, value in (filters or {}).items():
        if key == 'is_public' and value is not None:
            query = query.filter(models.VolumeType.is_public == value)
        elif key == 'visible_to_project':
            query = query.filter(sa.or_(
                models.VolumeType.is_public == sa.true(),
                models.VolumeType.projects.any(sa.and_(
                    models.VolumeTypeProjects.project_id == value,
                    models.VolumeTypeProjects.deleted == sa.false()))))
        elif key == 'extra_specs':
            for skey, svalue in value.items():
                query = query.filter(models.VolumeType.extra_specs.any(
                    sa.and_(models.VolumeTypeExtraSpecs.key == skey,
                            models.VolumeTypeExtraSpecs.value == svalue)))
    query = paginate(query, models.VolumeType, _type_query(context), marker,
                     limit, sort_keys, sort_dirs,
                     ('id', 'name', 'description', 'is_public', 'created_at'),
                     'name', 'asc')
    return query.all()


@writer
def volume_type_update(context, type_id, values):
    vtype = _type_get(context, type_id)
    name = values.get('name')
    if name and name != vtype.name:
        if _type_query(context).filter(
                models.VolumeType.name == name).first():
            raise exception.VolumeTypeExists(name=name)
    with _unique(exception.VolumeTypeExists(name=name)):
        conditional_update(context.session, models.VolumeType, type_id,
                           values)
    return _type_get(context, type_id)


def _type_in_use(context, type_id):
    return context.session.query(models.Volume.id).filter(
        models.Volume.volume_type_id == type_id,
        models.Volume.deleted == sa.false()).first() is not None


@writer
def volume_type_destroy(context, type_id):
    _type_get(context, type_id)
    if _type_in_use(context, type_id):
        raise exception.VolumeTypeInUse(volume_type_id=type_id)
    conditional_update(context.session, models.VolumeType, type_id,
                       deleted_values(models.VolumeType))
    _soft_delete(context, models.VolumeTypeExtraSpecs,
                 models.VolumeTypeExtraSpecs.volume_type_id == type_id)


@reader
def volume_type_extra_specs_get(context, type_id):
    """Extra specs of a type as a dict (one query)."""
    return dict(context.session.query(
        models.VolumeTypeExtraSpecs.key,
        models.VolumeTypeExtraSpecs.value).filter(
            models.VolumeTypeExtraSpecs.volume_type_id == type_id,
            models.VolumeTypeExtraSpecs.deleted == sa.false()).all())


@writer
def volume_type_extra_specs_update_or_create(context, type_id, specs,
                                             expected=None):
    """Set extra specs of a type.

    :param expected: a SQL condition that must hold for the type in this
        transaction (for instance: it has no encryption).
    """
    _type_get(context, type_id)
    if expected is not None:
        # Take the type's row lock first, so that a concurrent encryption
        # create (which does the same) is serialized with this check.
        _lock_type(context, type_id)
    if expected is not None and not context.session.query(
            models.VolumeType.id).filter(models.VolumeType.id == type_id,
                                         expected).first():
        raise exception.InvalidVolumeType(
            reason='volume type %s changed concurrently' % type_id)
    now = _now()
    for key, value in specs.items():
        row = context.session.query(models.VolumeTypeExtraSpecs).filter(
            models.VolumeTypeExtraSpecs.volume_type_id == type_id,
            models.VolumeTypeExtraSpecs.key == key,
            models.VolumeTypeExtraSpecs.deleted == sa.false()).first()
        if row is None:
            context.session.add(models.VolumeTypeExtraSpecs(
                volume_type_id=type_id, key=key, value=value))
        else:
            row.value = value
            row.updated_at = now
    with _unique(exception.Conflict(
            reason='extra specs %s of volume type %s were set by a '
                   'concurrent request' % (', '.join(sorted(specs)),
                                           type_id))):
        context.session.flush()
    return {s.key: s.value for s in _type_get(context, type_id).extra_specs}


@writer
def volume_type_extra_specs_delete(context, type_id, key):
    _type_get(context, type_id)
    if not _soft_delete(context, models.VolumeTypeExtraSpecs,
                        models.VolumeTypeExtraSpecs.volume_type_id == type_id,
                        models.VolumeTypeExtraSpecs.key == key):
        raise exception.VolumeTypeExtraSpecsNotFound(
            volume_type_id=type_id, extra_specs_key=key)


@reader
def volume_type_access_get_all(context, type_id):
    return [p.project_id for p in _type_get(context, type_id).projects]


@writer
def volume_type_access_add(context, type_id, project_id):
    vtype = _type_get(context, type_id)
    if project_id in {p.project_id for p in vtype.projects}:
        raise exception.VolumeTypeAccessExists(volume_type_id=type_id,
                                               project_id=project_id)
    with _unique(exception.VolumeTypeAccessExists(volume_type_id=type_id,
                                                  project_id=project_id)):
        context.session.add(models.VolumeTypeProjects(
            volume_type_id=type_id, project_id=project_id))
        context.session.flush()


@writer
def volume_type_access_remove(context, type_id, project_id):
    _type_get(context, type_id)
    if not _soft_delete(context, models.VolumeTypeProjects,
                        models.VolumeTypeProjects.volume_type_id == type_id,
                        models.VolumeTypeProjects.project_id == project_id):
        raise exception.VolumeTypeAccessNotFound(volume_type_id=type_id,
                                                 project_id=project_id)


@writer
def volume_type_encryption_create(context, type_id, values,
                                  expected_specs=None):
    """Make a type encrypted.

    :param expected_specs: a SQL condition on the type that must still
        hold (no multiattach spec), checked in the same transaction.
    """
    _lock_type(context, type_id)
    vtype = _type_get(context, type_id)
    if vtype.encryption is not None:
        raise exception.VolumeTypeEncryptionExists(type_id=type_id)
    if expected_specs is not None:
        ok = context.session.query(models.VolumeType.id).filter(
            models.VolumeType.id == type_id, expected_specs).first()
        if not ok:
            raise exception.InvalidVolumeType(
                reason='volume type %s changed concurrently' % type_id)
    context.session.add(models.Encryption(
        encryption_id=str(uuid.uuid4()), volume_type_id=type_id, **values))
    context.session.flush()
    return _type_get(context, type_id).encryption


def _encryption_of(context, type_id):
    encryption = _type_get(context, type_id).encryption
    if encryption is None:
        raise exception.VolumeTypeEncryptionNotFound(type_id=type_id)
    return encryption


@writer
def volume_type_encryption_update(context, type_id, values):
    encryption = _encryption_of(context, type_id)
    conditional_update_pk(context.session, models.Encryption,
                          models.Encryption.encryption_id,
                          encryption.encryption_id, values)
    return _type_get(context, type_id).encryption


@writer
def volume_type_encryption_delete(context, type_id):
    encryption = _encryption_of(context, type_id)
    if _type_in_use(context, type_id):
        raise exception.VolumeTypeEncryptionInUse(type_id=type_id,
                                                  action='delete')
    conditional_update_pk(context.session, models.Encryption,
                          models.Encryption.encryption_id,
                          encryption.encryption_id,
                          {'deleted': True, 'deleted_at': _now()})


def type_has_no_encryption(type_id):
    """SQL condition: a type has no encryption (for conditional updates)."""
    return ~sa.exists().where(models.Encryption.volume_type_id == type_id,
                              models.Encryption.deleted == sa.false())


def type_has_no_multiattach_spec(type_id):
    """SQL condition: a type is not multiattach."""
    return ~sa.exists().where(
        models.VolumeTypeExtraSpecs.volume_type_id == type_id,
        models.VolumeTypeExtraSpecs.key == 'multiattach',
        sa.func.lower(models.VolumeTypeExtraSpecs.value) == '<is> true',
        models.VolumeTypeExtraSpecs.deleted == sa.false())


def conditional_update_pk(session, model, pk_column, pk, values):
    values = dict(values)
    values.setdefault('updated_at', _now())
    session.execute(sa.update(model).where(
        pk_column == pk, model.deleted == sa.false()).values(**values))


# Services

@writer
def service_create(context, values):
    values = dict(values)
    values.setdefault('uuid', str(uuid.uuid4()))
    service = models.Service(**values)
    context.session.add(service)
    context.session.flush()
    return service


@reader
def service_get_by_host_and_binary(context, host, binary):
    return context.session.query(models.Service).filter_by(
        host=host, binary=binary, deleted=False).first()


def host_filter(column, host):
    """Cinder's match of a host name: ``node`` matches ``node`` and what
    runs on it (``node@backend``, ``node@backend#pool``), ``node@backend``
    matches itself and its pools, a name with ``#`` only itself."""
    if '#' in host:
        return column == host
    conditions = [column == host, column.startswith(host + '#',
                                                    autoescape=True)]
    if '@' not in host:
        conditions.append(column.startswith(host + '@', autoescape=True))
    return sa.or_(*conditions)


@reader
def service_get_all(context, filters=None):
    """Live services; the ``host`` filter matches as
    :func:`host_filter` does, the others exactly."""
    query = context.session.query(models.Service).filter_by(deleted=False)
    for key, value in (filters or {}).items():
        if key == 'host':
            query = query.filter(host_filter(models.Service.host, value))
        else:
            query = query.filter(getattr(models.Service, key) == value)
    return query.order_by(models.Service.id).all()


@reader
def backend_is_frozen(context, host):
    """Whether the backend of a volume host (``node@backend#pool``) is
    frozen."""
    backend = host.split('#', 1)[0]
    return context.session.query(sa.exists().where(
        models.Service.host == backend, models.Service.frozen == sa.true(),
        models.Service.deleted == sa.false())).scalar()


@writer
def service_update(context, service_id, values):
    values = dict(values)
    if 'capabilities' in values and not isinstance(
            values['capabilities'], (str, type(None))):
        values['capabilities'] = jsonutils.dumps(values['capabilities'])
    if not conditional_update(context.session, models.Service, service_id,
                              values):
        raise exception.ServiceNotFound(service_id=service_id)


def service_is_up(service):
    """Whether a service heartbeat is recent enough to schedule to it."""
    if service.heartbeat_at is None:
        return False
    age = _now() - service.heartbeat_at
    return age <= datetime.timedelta(
        seconds=CONF.manager.service_down_time)


