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

"""Database API of snapshots: their rows, metadata and lists, and the
transitions of their volume that depend on them (a delete refused while
the volume has snapshots, or deleting them with it).

Readers return :class:`cinder_ma.db.records.Snapshot` records, with
their metadata.

A snapshot is recorded in the transaction that checks its volume: the
insert first moves the volume's ``updated_at`` by a compare-and-swap
whose WHERE holds the statuses a snapshot may be taken in, which also
takes the volume row's lock; a volume delete (whose compare-and-swap
requires that no snapshot exists, :func:`no_snapshots`) takes the same
lock, so the two serialize on every database.
"""

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

_TABLE = models.Snapshot.__table__
_META = models.SnapshotMetadata.__table__

_SORT_KEYS = {'id', 'name', 'description', 'status', 'volume_size',
              'created_at', 'updated_at', 'volume_id', 'project_id'}
#: Cinder's sort key of the snapshot's size.
SORT_ALIASES = {'size': 'volume_size', 'display_name': 'name'}

_ROW = sa.select(_TABLE).where(_TABLE.c.id == sa.bindparam('snapshot_id'),
                               _TABLE.c.deleted == sa.false())
_METADATA = sa.select(_META.c.snapshot_id, _META.c.key, _META.c.value).where(
    _META.c.snapshot_id.in_(sa.bindparam('ids', expanding=True)),
    _META.c.deleted == sa.false()).order_by(_META.c.snapshot_id,
                                            _META.c.key)


def no_snapshots(volume_id_column=None):
    """The condition that a volume has no live snapshot (an expression
    for a compare-and-swap of the volume row)."""
    column = models.Volume.__table__.c.id if volume_id_column is None \
        else volume_id_column
    return ~sa.exists().where(_TABLE.c.volume_id == column,
                              _TABLE.c.deleted == sa.false())


def _records(context, rows):
    """Records of snapshot rows, with their metadata (one more query)."""
    if not rows:
        return []
    metadata = {}
    for snapshot_id, key, value in connection_of(context).execute(
            _METADATA, {'ids': [row.id for row in rows]}):
        metadata.setdefault(snapshot_id, {})[key] = value
    return [records.snapshot_from_row(row, metadata.get(row.id, {}))
            for row in rows]


def snapshot_get_in_txn(context, snapshot_id, project_id=None):
    row = connection_of(context).execute(
        _ROW, {'snapshot_id': snapshot_id}).first()
    if row is None or (project_id is not None and
                       row.project_id != project_id):
        raise exception.SnapshotNotFound(snapshot_id=snapshot_id)
    return _records(context, [row])[0]


@reader
def snapshot_get(context, snapshot_id, project_id=None):
    """A snapshot with its metadata.

    :param project_id: when not None, another project's is not found.
    :raises SnapshotNotFound:
    """
    return snapshot_get_in_txn(context, snapshot_id, project_id)


@writer
def snapshot_create(context, values, volume_statuses, quota=None):
    """Record a snapshot of a volume in one of ``volume_statuses``.

    :param values: the columns, and ``metadata`` (a dict).
    :param quota: called as ``quota(context, None)`` in the transaction
        before the row is added; what it raises rolls it back.
    :raises InvalidVolume: the volume is not (any more) in one of
        ``volume_statuses``, or is gone.
    """
    values = dict(values)
    metadata = values.pop('metadata', None) or {}
    values['id'] = values.get('id') or str(uuid.uuid4())
    volume_id = values['volume_id']
    # The volume row's lock, and the check of its status, in one UPDATE.
    if not conditional_update(context, models.Volume, volume_id,
                              {}, {'status': tuple(volume_statuses)}):
        current = connection_of(context).execute(
            sa.select(models.Volume.status).where(
                models.Volume.id == volume_id,
                models.Volume.deleted == sa.false())).scalar()
        if current is None:
            raise exception.VolumeNotFound(volume_id=volume_id)
        raise exception.InvalidVolume(
            reason='Volume %s status must be %s, but current status is: '
                   '%s.' % (volume_id, ', '.join(volume_statuses), current))
    if quota is not None:
        quota(context, None)
    connection = connection_of(context)
    now = utcnow()
    values.setdefault('created_at', now)
    connection.execute(sa.insert(_TABLE), values)
    if metadata:
        connection.execute(sa.insert(_META), [
            {'snapshot_id': values['id'], 'key': key, 'value': value,
             'created_at': now} for key, value in metadata.items()])
    return snapshot_get_in_txn(context, values['id'])


def _apply_filters(statement, filters):
    for key, value in (filters or {}).items():
        if key == 'metadata':
            for mkey, mvalue in value.items():
                statement = statement.where(sa.exists().where(
                    _META.c.snapshot_id == _TABLE.c.id,
                    _META.c.deleted == sa.false(), _META.c.key == mkey,
                    _META.c.value == mvalue))
        elif key in ('status', 'volume_id', 'id') and isinstance(
                value, (list, tuple)):
            statement = statement.where(_TABLE.c[key].in_(value))
        elif key in _TABLE.c:
            statement = statement.where(_TABLE.c[key] == value)
        else:
            raise exception.InvalidInput(
                reason='invalid filter key %s' % key)
    return statement


def _live(project_id):
    statement = sa.select(*_TABLE.columns).where(_TABLE.c.deleted ==
                                                 sa.false())
    if project_id is not None:
        statement = statement.where(_TABLE.c.project_id == project_id)
    return statement


@reader
def snapshot_get_all(context, project_id=None, filters=None, marker=None,
                     limit=None, sort_keys=None, sort_dirs=None, offset=None):
    """A page of snapshots (every project's when ``project_id`` is None),
    newest first by default, with their metadata.

    :param offset: how many of the sorted snapshots after ``marker`` to
        skip (Cinder's ``offset``).
    :raises MarkerNotFound: no visible snapshot has the marker's id.
    """
    sort_keys = [SORT_ALIASES.get(key, key) for key in sort_keys or ()]

    connection = connection_of(context)
    visible = _live(project_id)
    statement = paginate(connection, _apply_filters(visible, filters),
                         models.Snapshot, visible, marker, limit,
                         sort_keys, sort_dirs, _SORT_KEYS, 'created_at',
                         'desc')
    if offset:
        statement = statement.offset(offset)
    rows = connection.execute(statement).all()
    return _records(context, rows)


@reader
def snapshot_count(context, project_id=None, filters=None):
    statement = _apply_filters(_live(project_id), filters).subquery()
    return connection_of(context).execute(
        sa.select(sa.func.count()).select_from(statement)).scalar()


_OF_VOLUME = _live(None).where(
    _TABLE.c.volume_id == sa.bindparam('volume_id')).order_by(
        _TABLE.c.created_at, _TABLE.c.id)


@reader
def snapshots_of_volume(context, volume_id):
    """The live snapshots of a volume, oldest first."""
    rows = connection_of(context).execute(
        _OF_VOLUME, {'volume_id': volume_id}).all()
    return _records(context, rows)


def snapshots_of_volume_in_txn(context, volume_id):
    """:func:`snapshots_of_volume` in the caller's transaction, without
    their metadata (None: not read)."""
    return records.from_result(records.Snapshot,
                               connection_of(context).execute(
                                   _OF_VOLUME, {'volume_id': volume_id}))


def _describe(snapshot_id, current, expected):
    wanted = expected.get('status')
    if isinstance(wanted, (list, tuple, set, frozenset)):
        wanted = ' or '.join(wanted)
    return exception.Conflict(
        reason='snapshot %s is %s, expected %s' % (
            snapshot_id, current.status, wanted or 'a different state'))


@writer
def snapshot_change(context, snapshot_id, values, expected=None,
                    metadata=None):
    """Update a snapshot, compare-and-swap when ``expected`` is given.

    :param metadata: when not None, replaces its metadata.
    :raises SnapshotNotFound: no such snapshot.
    :raises Conflict: ``expected`` did not hold.
    """
    if values or expected:
        if not conditional_update(context, models.Snapshot,
                                  snapshot_id, values or {}, expected):
            current = snapshot_get_in_txn(context, snapshot_id)
            raise _describe(snapshot_id, current, expected or {})
    else:
        snapshot_get_in_txn(context, snapshot_id)
    if metadata is not None:
        soft_delete(context, models.SnapshotMetadata,
                    models.SnapshotMetadata.snapshot_id == snapshot_id)
        now = utcnow()
        if metadata:
            connection_of(context).execute(sa.insert(_META), [
                {'snapshot_id': snapshot_id, 'key': key, 'value': value,
                 'created_at': now} for key, value in metadata.items()])


def snapshot_update(context, snapshot_id, values, expected=None,
                    metadata=None):
    """:func:`snapshot_change`, then the snapshot as it is now."""
    snapshot_change(context, snapshot_id, values, expected, metadata)
    return snapshot_get(context, snapshot_id)


@writer
def snapshot_destroy(context, snapshot_id, quota=None):
    """Soft-delete a snapshot and its metadata.

    :param quota: called as ``quota(context, snapshot)`` in the
        transaction (to give back what it held).
    :raises SnapshotNotFound: it is gone already.
    """
    snapshot = snapshot_get_in_txn(context, snapshot_id)
    now = utcnow()
    if not conditional_update(context, models.Snapshot, snapshot_id,
                              {'deleted': True, 'deleted_at': now,
                               'status': 'deleted', 'updated_at': now}):
        raise exception.SnapshotNotFound(snapshot_id=snapshot_id)
    if quota is not None:
        quota(context, snapshot)
    soft_delete(context, models.SnapshotMetadata,
                models.SnapshotMetadata.snapshot_id == snapshot_id)
    return snapshot


@writer
def volume_delete_begin(context, volume_id, values, expected, cascade=False,
                        snapshot_statuses=None):
    """Move a volume to ``values`` (its status ``deleting``) by a
    compare-and-swap on ``expected`` and, without ``cascade``, on its
    having no snapshot; with ``cascade``, move its snapshots to
    ``deleting`` in the same transaction, each only from
    ``snapshot_statuses`` (None: any).

    :returns: True when the volume moved; False when a condition did not
        hold (nothing changed).
    """
    conditions = dict(expected)
    if not cascade:
        conditions['no_snapshots'] = no_snapshots()
        # The volume row's lock first, in a statement of its own: a
        # snapshot create holding it (it locks the row as it checks the
        # volume) has committed once this returns, and the next
        # statement sees its snapshot (PostgreSQL's READ COMMITTED reads
        # a new snapshot per statement, but re-checks only the row itself
        # of an UPDATE that waited for its lock, not the EXISTS).
        conditional_update(context, models.Volume, volume_id, {})
    if not conditional_update(context, models.Volume, volume_id,
                              values, conditions):
        return False
    if cascade:
        where = [_TABLE.c.volume_id == volume_id,
                 _TABLE.c.deleted == sa.false()]
        if snapshot_statuses is not None and \
                connection_of(context).execute(
                    sa.select(sa.func.count()).where(
                        *where, _TABLE.c.status.notin_(snapshot_statuses))
                ).scalar():
            # Rolled back with the volume's move.
            raise _CascadeRefused()
        connection_of(context).execute(sa.update(_TABLE).where(*where).values(
            status='deleting', updated_at=utcnow()))
    return True


class _CascadeRefused(Exception):
    pass


def volume_delete_begin_checked(context, *args, **kwargs):
    """:func:`volume_delete_begin`, False also when a snapshot is in a
    status a cascade may not delete from."""
    try:
        return volume_delete_begin(context, *args, **kwargs)
    except _CascadeRefused:
        return False


@reader
def latest_snapshot(context, volume_id):
    """The newest live snapshot of a volume, or None."""
    row = connection_of(context).execute(
        _live(None).where(_TABLE.c.volume_id == volume_id).order_by(
            _TABLE.c.created_at.desc(), _TABLE.c.id.desc()).limit(1)).first()
    return None if row is None else _records(context, [row])[0]


@writer
def revert_begin(context, volume_id, snapshot_id):
    """Volume 'available' without attachment -> 'reverting' and its
    snapshot 'available' -> 'restoring', in one transaction.

    :raises InvalidVolume: the volume is not available, or has
        attachments (nothing changed).
    :raises InvalidSnapshot: the snapshot is not available.
    """
    if not conditional_update(context, models.Volume, volume_id,
                              {'status': 'reverting', 'error_reason': None},
                              {'status': 'available', 'attach_count': 0}):
        raise exception.InvalidVolume(
            reason="Can't revert volume %s to its latest snapshot %s. "
                   "Volume's status must be 'available' and it must have "
                   "no attachment." % (volume_id, snapshot_id))
    if not conditional_update(context, models.Snapshot, snapshot_id,
                              {'status': 'restoring'},
                              {'status': 'available',
                               'volume_id': volume_id}):
        raise exception.InvalidSnapshot(
            reason="Can't revert volume %s to its latest snapshot %s. "
                   "Snapshot's status must be 'available'." % (
                       volume_id, snapshot_id))


@writer
def revert_end(context, volume_id, snapshot_id, volume_status,
               error_reason=None, release=None):
    """The end of a revert: the volume leaves 'reverting' for
    ``volume_status``, the snapshot 'restoring' for 'available'.

    :param release: values of the volume's UPDATE that give up the
        flow's claim (:func:`cinder_ma.db.work.release_values`).
    """
    values = {'status': volume_status, 'error_reason': error_reason}
    values.update(release or {})
    conditional_update(context, models.Volume, volume_id, values,
                       {'status': 'reverting'})
    conditional_update(context, models.Snapshot, snapshot_id,
                       {'status': 'available'}, {'status': 'restoring'})


@reader
def volumes_made_from(context, snapshot_id):
    """The ids of the volumes being created from a snapshot."""
    volume = models.Volume
    return [row[0] for row in connection_of(context).execute(
        sa.select(volume.id).where(volume.snapshot_id == snapshot_id,
                                   volume.deleted == sa.false(),
                                   volume.status == 'creating'))]


@reader
def volumes_copying(context, volume_id):
    """The ids of the volumes being created as copies of a volume."""
    volume = models.Volume
    return [row[0] for row in connection_of(context).execute(
        sa.select(volume.id).where(volume.source_volid == volume_id,
                                   volume.deleted == sa.false(),
                                   volume.status == 'creating'))]


def _usage(statement):
    return statement.with_only_columns(
        sa.func.count(_TABLE.c.id),
        sa.func.coalesce(sa.func.sum(_TABLE.c.volume_size), 0))


@reader
def snapshot_usage_on_host(context, host):
    """(count, GiB) of the live snapshots of the volumes of a host
    (matched as :func:`cinder_ma.db.services.host_filter` does)."""
    volume = models.Volume.__table__
    count, gigabytes = connection_of(context).execute(_usage(
        sa.select(_TABLE.c.id).join(volume, volume.c.id ==
                                    _TABLE.c.volume_id).where(
            _TABLE.c.deleted == sa.false(),
            host_filter(volume.c.host, host)))).one()
    return int(count), int(gigabytes)


@reader
def snapshot_usage_of_project(context, project_id):
    """(count, GiB) of the live snapshots of a project."""
    count, gigabytes = connection_of(context).execute(_usage(
        sa.select(_TABLE.c.id).where(_TABLE.c.deleted == sa.false(),
                                     _TABLE.c.project_id == project_id))
    ).one()
    return int(count), int(gigabytes)
