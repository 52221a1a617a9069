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

"""Database API of volumes: their rows, metadata and lists (with their
children read in a constant number of queries), counts and usage.

Readers return :class:`cinder_ma.db.records.Volume` records."""

import collections
import operator
import uuid

import sqlalchemy as sa

from cinder_ma.db.api import conditional_update
from cinder_ma.db.api import connection_of
from cinder_ma.db.api import paginate
from cinder_ma.db.api import reader
from cinder_ma.db.api import soft_delete
from cinder_ma.db.api import utcnow
from cinder_ma.db.api import writer
from cinder_ma.db import models
from cinder_ma.db import records
from cinder_ma.db.services import host_filter
from cinder_ma import exception


_VOLUME_SORT_KEYS = {'id', 'name', 'description', 'status', 'size',
                     'created_at', 'updated_at', 'availability_zone',
                     'volume_type_id', 'host', 'bootable', 'multiattach',
                     'project_id'}


_VOLUME_TABLE = models.Volume.__table__
_META_TABLE = models.VolumeMetadata.__table__
_LIVE_VOLUMES = sa.select(*_VOLUME_TABLE.columns).where(
    _VOLUME_TABLE.c.deleted == sa.false())


def _live(project_id=None):
    """The Core select of the live volumes (of a project)."""
    if project_id is None:
        return _LIVE_VOLUMES
    return _LIVE_VOLUMES.where(_VOLUME_TABLE.c.project_id == project_id)


def volume_create(context, values, quota=None, volume_type=None):
    """Record a volume; returns its record with its children (its type,
    its metadata, no attachments).

    :param quota: called as ``quota(context, None)`` in the transaction
        before the row is added (to charge the project's quota); what it
        raises rolls the transaction back.
    :param volume_type: the :class:`~cinder_ma.db.records.VolumeType` of
        ``values['volume_type_id']`` when the caller has read it (the
        API has); read after the transaction otherwise.
    """
    # The record is built from the row as the database stored it (the
    # INSERT returns it) and from what was inserted with it: a new volume
    # has the metadata it was given and no attachment. Reading it back
    # (four queries) was a fifth of the cost of a create.
    row, metadata = _volume_insert(context, values, quota)
    if volume_type is None:
        volume_type = _volume_type_record(context, row.volume_type_id)
    return records.volume_from_row(row, volume_type, metadata, ())


@reader
def _volume_type_record(context, type_id):
    return _types_of(connection_of(context), [type_id]).get(type_id)


_INSERT_VOLUME = sa.insert(_VOLUME_TABLE)
_INSERT_VOLUME_RETURNING = _INSERT_VOLUME.returning(*_VOLUME_TABLE.columns)
_INSERT_METADATA = sa.insert(models.VolumeMetadata.__table__)


@writer
def _volume_insert(context, values, quota):
    """Insert a volume and its metadata; returns (its row as stored, its
    metadata)."""
    values = dict(values)
    if quota is not None:
        quota(context, None)
    metadata = values.pop('metadata', None) or {}
    values['id'] = values.get('id') or str(uuid.uuid4())
    # Core statements built once, on the transaction's connection.
    connection = connection_of(context)
    if connection.dialect.insert_returning:
        row = connection.execute(_INSERT_VOLUME_RETURNING, values).one()
    else:
        # MySQL has no INSERT ... RETURNING: the row is read back (its
        # created_at as the column keeps it, to the second).
        connection.execute(_INSERT_VOLUME, values)
        row = connection.execute(_VOLUME_ROW,
                                 {'volume_id': values['id']}).one()
    if metadata:
        connection.execute(_INSERT_METADATA, [
            {'volume_id': values['id'], 'key': key, 'value': value}
            for key, value in metadata.items()])
    # In the order of their keys, as reading them back gives them on
    # SQLite (by the index of volume_id and key).
    return row, dict(sorted(metadata.items()))


_VOLUME_ROW = sa.select(_VOLUME_TABLE).where(
    _VOLUME_TABLE.c.id == sa.bindparam('volume_id'),
    _VOLUME_TABLE.c.deleted == sa.false())
_PROJECT_VOLUME_ROW = _VOLUME_ROW.where(
    _VOLUME_TABLE.c.project_id == sa.bindparam('project_id'))


def volume_get_in_txn(context, volume_id, project_id=None, children=True):
    """:func:`volume_get` in the caller's transaction."""
    # Read with Core statements built once: the attach path reads the
    # volume several times per request, and the ORM costs ten times more.
    if project_id is None:
        row = connection_of(context).execute(
            _VOLUME_ROW, {'volume_id': volume_id}).first()
    else:
        row = connection_of(context).execute(
            _PROJECT_VOLUME_ROW, {'volume_id': volume_id,
                                  'project_id': project_id}).first()
    if row is None:
        raise exception.VolumeNotFound(volume_id=volume_id)
    if children:
        return _volume_records(context, [row])[0]
    return records.volume_from_row(row)


@reader
def volume_get(context, volume_id, project_id=None, children=True):
    """A volume with its type, metadata and live attachments.

    :param project_id: when not None, a volume of another project is not
        found.
    :param children: False for the volume row alone (one query, for the
        hot attach path): its record has None as its children.
    :returns: a :class:`cinder_ma.db.records.Volume`.
    """
    return volume_get_in_txn(context, volume_id, project_id, children)


# Time comparison filters of volume lists (microversion 3.60).
TIME_OPERATORS = {'gt': operator.gt, 'gte': operator.ge, 'lt': operator.lt,
                  'lte': operator.le, 'eq': operator.eq, 'neq': operator.ne}


def _apply_volume_filters(statement, filters):
    columns = _VOLUME_TABLE.c
    for key, value in (filters or {}).items():
        if key in ('created_at', 'updated_at') and isinstance(value, dict):
            # {operator name: naive UTC datetime}: all must hold.
            for name, when in value.items():
                statement = statement.where(
                    TIME_OPERATORS[name](columns[key], when))
            continue
        if key == 'metadata':
            for mkey, mvalue in value.items():
                statement = statement.where(sa.exists().where(
                    _META_TABLE.c.volume_id == columns.id,
                    _META_TABLE.c.deleted == sa.false(),
                    _META_TABLE.c.key == mkey,
                    _META_TABLE.c.value == mvalue))
        elif key == 'name~':
            statement = statement.where(columns.name.contains(value))
        elif key in ('status', 'id') and isinstance(value, (list, tuple)):
            statement = statement.where(columns[key].in_(value))
        elif key in columns:
            statement = statement.where(columns[key] == value)
        else:
            raise exception.InvalidInput(
                reason='invalid filter key %s' % key)
    return statement


@reader
def volume_get_all(context, project_id=None, filters=None, marker=None,
                   limit=None, sort_keys=None, sort_dirs=None):
    """A page of volumes, children loaded in a constant number of
    queries. Their attachments' records hold the columns that a listed
    volume shows (:data:`~cinder_ma.db.records.LISTED_ATTACHMENT_FIELDS`)
    and their defaults in the others: read a volume or an attachment for
    those."""
    statement = _live(project_id)
    connection = connection_of(context)
    statement = paginate(connection, _apply_volume_filters(statement,
                                                           filters),
                         models.Volume, statement, marker, limit, sort_keys,
                         sort_dirs, _VOLUME_SORT_KEYS, 'created_at', 'desc')
    rows = connection.execute(statement).all()
    return _volume_records(context, rows, _PAGE_ATTACHMENTS)


# The children of a page of volumes, by the ids of its volumes (an
# expanding IN), built once. A type comes with its live extra specs: a
# row per spec (one with a NULL key when it has none).
_TYPE_TABLE = models.VolumeType.__table__
_SPEC_TABLE = models.VolumeTypeExtraSpecs.__table__
_PAGE_TYPES = sa.select(
    *(_TYPE_TABLE.c[name] for name in records.columns_of(
        records.VolumeType)),
    _SPEC_TABLE.c.key.label('spec_key'),
    _SPEC_TABLE.c.value.label('spec_value'),
).select_from(_TYPE_TABLE.outerjoin(_SPEC_TABLE, sa.and_(
    _SPEC_TABLE.c.volume_type_id == _TYPE_TABLE.c.id,
    _SPEC_TABLE.c.deleted == sa.false()))).where(
        _TYPE_TABLE.c.id.in_(sa.bindparam('ids', expanding=True)))


def _types_of(connection, type_ids):
    """{id: :class:`~cinder_ma.db.records.VolumeType` with its extra
    specs} of the types of ``type_ids`` (one query)."""
    rows = connection.execute(_PAGE_TYPES, {'ids': type_ids}).all()
    specs = {}
    for row in rows:
        these = specs.setdefault(row.id, ({}, row))[0]
        if row.spec_key is not None:
            these[row.spec_key] = row.spec_value
    return {type_id: records.from_row(records.VolumeType, row, these)
            for type_id, (these, row) in specs.items()}


_PAGE_METADATA = sa.select(
    _META_TABLE.c.volume_id, _META_TABLE.c.key, _META_TABLE.c.value).where(
        _META_TABLE.c.volume_id.in_(sa.bindparam('ids', expanding=True)),
        _META_TABLE.c.deleted == sa.false())
_ATT_TABLE = models.VolumeAttachment.__table__


def _attachments_of_volumes(columns):
    """The ``columns`` of the live attachments of the volumes of the ids
    ``ids``, by volume, oldest first (the order of the index
    ``volume_attachment_volume_order_idx``: no sort)."""
    return sa.select(*columns).where(
        _ATT_TABLE.c.volume_id.in_(sa.bindparam('ids', expanding=True)),
        _ATT_TABLE.c.deleted == sa.false()).order_by(
            _ATT_TABLE.c.volume_id, _ATT_TABLE.c.created_at)


_VOLUME_ATTACHMENTS = _attachments_of_volumes(
    _ATT_TABLE.c[name] for name in records.ATTACHMENT_FIELDS)
# A page reads of its attachments what a listed volume shows of them
# (their records have the defaults in the other columns): reading, and on
# SQLite parsing the timestamps of, every column of thousands of
# attachments made the list a quarter slower.
_PAGE_ATTACHMENTS = _attachments_of_volumes(
    _ATT_TABLE.c[name] for name in records.LISTED_ATTACHMENT_FIELDS)


def _volume_records(context, rows, attachments_query=_VOLUME_ATTACHMENTS):
    """The records of volume rows, with their type, metadata and live
    attachments (read by ``attachments_query``) in three more queries,
    whatever the number of rows."""
    if not rows:
        return []
    # Core statements, run on the transaction's connection (a session's
    # execute costs twice as much per statement).
    connection = connection_of(context)
    ids = [row.id for row in rows]
    type_ids = list({row.volume_type_id for row in rows})
    vtypes = _types_of(connection, type_ids)
    metadata = {}
    for volume_id, key, value in connection.execute(
            _PAGE_METADATA, {'ids': ids}).all():
        metadata.setdefault(volume_id, {})[key] = value
    attachments = {}
    for attachment in records.attachments_from_result(
            connection.execute(attachments_query, {'ids': ids})):
        attachments.setdefault(attachment.volume_id, []).append(attachment)
    # The rows' columns are matched to the record's fields once.
    pick = records.picker(records.Volume, rows[0])
    make = records.Volume._make
    return [make(pick(row) + (vtypes.get(row.volume_type_id),
                              metadata.get(row.id, {}),
                              tuple(attachments.get(row.id, ()))))
            for row in rows]


@reader
def volume_count(context, project_id=None, filters=None):
    statement = _apply_volume_filters(_live(project_id), filters)
    return connection_of(context).execute(
        sa.select(sa.func.count()).select_from(
            statement.subquery())).scalar()


def _usage(context, statement):
    count, gigabytes = connection_of(context).execute(
        statement.with_only_columns(
            sa.func.count(_VOLUME_TABLE.c.id),
            sa.func.coalesce(sa.func.sum(_VOLUME_TABLE.c.size), 0))).one()
    return int(count), int(gigabytes)


@reader
def volume_usage_on_host(context, host):
    """((count, GiB), project ids) of the live volumes of a host (matched
    as :func:`host_filter` does)."""
    statement = _live().where(host_filter(_VOLUME_TABLE.c.host, host))
    projects = sorted(connection_of(context).execute(
        statement.with_only_columns(
            _VOLUME_TABLE.c.project_id).distinct()).scalars())
    return _usage(context, statement), projects


@reader
def volume_usage_of_project(context, project_id):
    """(count, GiB) of the live volumes of a project."""
    return _usage(context, _live(project_id))


@reader
def volume_summary(context, project_id=None, filters=None):
    """(count, total size, {metadata key: sorted distinct values}) of the
    volumes matching ``filters``."""
    statement = _apply_volume_filters(_live(project_id), filters)
    count, size = _usage(context, statement)
    metadata = collections.defaultdict(set)
    for key, value in connection_of(context).execute(
            sa.select(_META_TABLE.c.key, _META_TABLE.c.value).distinct()
            .where(_META_TABLE.c.volume_id.in_(
                statement.with_only_columns(_VOLUME_TABLE.c.id)),
                _META_TABLE.c.deleted == sa.false())):
        metadata[key].add(value)
    return count, size, {key: sorted(values)
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
    volume_change(context, volume_id, values, expected, metadata, quota)
    return volume_get(context, volume_id, children=children)


@writer
def volume_change(context, volume_id, values, expected=None, metadata=None,
                  quota=None):
    """:func:`volume_update` without reading the volume back (for a
    caller that does not use it)."""
    before = None
    if quota is not None:
        before = volume_get_in_txn(context, volume_id, children=False)
    if values or expected:
        if not conditional_update(context, models.Volume,
                                  volume_id, values or {}, expected):
            current = volume_get_in_txn(context, volume_id, children=False)
            raise exception.Conflict(
                reason='volume %s is in status %s, expected %s' % (
                    volume_id, current.status, _describe(expected)))
    else:
        volume_get_in_txn(context, volume_id, children=False)
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
    soft_delete(context, models.VolumeMetadata,
                models.VolumeMetadata.volume_id == volume_id)
    soft_delete(context, models.Transfer,
                models.Transfer.volume_id == volume_id)
    if metadata:
        connection_of(context).execute(_INSERT_METADATA, [
            {'volume_id': volume_id, 'key': key, 'value': value}
            for key, value in metadata.items()])


@writer
def volume_destroy(context, volume_id, quota=None):
    """Soft-delete a volume, its metadata and its pending transfer (a
    volume awaiting transfer that an administrator force-deleted).

    :param quota: called as ``quota(context, volume)`` in the transaction
        with the row deleted (to release what it held of the quota).
    """
    volume = None
    if quota is not None:
        volume = volume_get_in_txn(context, volume_id, children=False)
    now = utcnow()
    values = {'deleted': True, 'deleted_at': now, 'status': 'deleted',
              'updated_at': now}
    if not conditional_update(context, models.Volume, volume_id,
                              values):
        raise exception.VolumeNotFound(volume_id=volume_id)
    if quota is not None:
        quota(context, volume)
    soft_delete(context, models.VolumeMetadata,
                models.VolumeMetadata.volume_id == volume_id)
    soft_delete(context, models.Transfer,
                models.Transfer.volume_id == volume_id)
