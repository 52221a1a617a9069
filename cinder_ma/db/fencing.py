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

"""Database API of fencing and standby promotion (extension
``cinder-ma-fencing``).

An attachment is *fenced* (``fenced_at`` set) when its access was revoked
at the storage target; its ``generation`` counts the connections it was
given. Every change here is a compare-and-swap UPDATE whose WHERE clause
carries what the request read (status, mode, generation, fenced or not),
so that concurrent requests get exactly one winner and the others a 409
naming what changed:

* :func:`attachment_fence`: a connected attachment becomes fenced (one
  UPDATE of the attachment; the volume row is not touched, so that an
  attachment can be fenced whatever the volume is doing);
* :func:`attachment_promote`: in one transaction that starts with the
  volume row's compare-and-swap (which serializes it with reservations
  and other promotions of the volume), the live writer the request saw
  is made read-only and fenced (when it holds a connection), and the
  read-only standby becomes the writer at the next generation;
* :func:`attachment_record_connection`: the connection info of the new
  writer's read-write connection, recorded while it is still that
  generation's unfenced writer;
* :func:`attachment_reconnect`: a fenced attachment connected again (new
  connector, new connection info), unfenced at the next generation, in
  the volume's transaction since its status changes; and
  :func:`attachment_unreconnect`, its undo.
"""

import sqlalchemy as sa

from cinder_ma.db.api import connection_of
from cinder_ma.db.api import reader
from cinder_ma.db.api import utcnow
from cinder_ma.db.api import writer
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import models
from cinder_ma.db import records
from cinder_ma.db.volumes import volume_get_in_txn
from cinder_ma import exception
from cinder_ma import status as vstatus

_VA = models.VolumeAttachment.__table__
_C = _VA.c

#: Statuses of an attachment that may hold a connection, and can be
#: fenced when it does.
FENCEABLE_STATUSES = (vstatus.ATTACH_ATTACHING, vstatus.ATTACH_ATTACHED,
                      vstatus.ATTACH_DETACHING,
                      vstatus.ATTACH_ERROR_DETACHING)
#: Statuses of a standby that can be promoted, and of a writer whose
#: promotion can be finished.
PROMOTABLE_STATUSES = (vstatus.ATTACH_ATTACHING, vstatus.ATTACH_ATTACHED)
#: Statuses of a fenced attachment that its consumer can connect again.
RECONNECTABLE_STATUSES = (vstatus.ATTACH_ATTACHING, vstatus.ATTACH_ATTACHED)


def _get(context, attachment_id):
    return attachment_db.attachment_get_in_txn(context, attachment_id)


def is_connected(attachment):
    """Whether an attachment holds a connection that could be revoked."""
    return (attachment.attach_status in FENCEABLE_STATUSES and
            attachment.connection_info is not None)


def not_connected_error(attachment):
    return exception.Conflict(
        reason='attachment %s is %s and holds no connection: there is no '
               'access to revoke' % (attachment.id,
                                     attachment.attach_status))


@writer
def attachment_fence(context, attachment_id):
    """Fence a connected attachment, compare-and-swap.

    Idempotent: an attachment fenced already stays as it is.

    :raises VolumeAttachmentNotFound: no such attachment.
    :raises Conflict: it holds no connection (not connected, or in a
        status without one).
    :returns: ``(attachment record, newly)``: ``newly`` is False when it
        was fenced already.
    """
    now = utcnow()
    result = connection_of(context).execute(
        sa.update(_VA).where(
            _C.id == attachment_id, _C.deleted == sa.false(),
            _C.attach_status.in_(FENCEABLE_STATUSES),
            _C.connection_info.isnot(None),
            _C.fenced_at.is_(None)).values(fenced_at=now, updated_at=now))
    attachment = _get(context, attachment_id)
    if result.rowcount == 1:
        return attachment, True
    if attachment.fenced_at is not None and is_connected(attachment):
        return attachment, False
    raise not_connected_error(attachment)


def _live_writers(volume_id):
    return sa.select(_C.id).where(
        _C.volume_id == volume_id, _C.deleted == sa.false(),
        _C.attach_mode == 'rw',
        _C.attach_status.in_(vstatus.LIVE_ATTACH_STATUSES)).with_for_update(
            read=True)


@writer
def attachment_promote(context, attachment_id, generation, writer_ids):
    """Make the read-only attachment ``attachment_id`` the writer of its
    volume and the writers ``writer_ids`` read-only, fenced when they
    hold a connection, in one transaction.

    :param generation: the standby's generation as the request read it;
        it becomes ``generation + 1``.
    :param writer_ids: the live read-write attachments of the volume as
        the request read them (at most one under a one-writer policy).
    :raises Conflict: the writers or the standby changed meanwhile (a
        concurrent promotion won; the message names the writer now).
    :raises InvalidVolume: the volume is in a status where attachments do
        not change.
    :returns: ``(promoted record, [records of the writers demoted])``.
    """
    current = _get(context, attachment_id)
    volume_id = current.volume_id
    if not attachment_db.lock_volume(context, volume_id):
        volume = volume_get_in_txn(context, volume_id)
        raise exception.InvalidVolume(
            reason='volume %s is %s' % (volume_id, volume.status))
    # Under the volume row's lock: every promotion and reservation of
    # the volume committed before is seen here.
    writers = sorted(row.id for row in connection_of(context).execute(
        _live_writers(volume_id)))
    if writers != sorted(writer_ids):
        raise exception.Conflict(
            reason='the writer of volume %s changed concurrently (now %s); '
                   'attachment %s was not promoted' % (
                       volume_id, ', '.join(writers) or 'none',
                       attachment_id))
    now = utcnow()
    for writer_id in writer_ids:
        result = connection_of(context).execute(
            sa.update(_VA).where(
                _C.id == writer_id, _C.deleted == sa.false(),
                _C.attach_mode == 'rw').values(
                    attach_mode='ro', updated_at=now,
                    fenced_at=sa.case(
                        (sa.and_(
                            _C.attach_status.in_(FENCEABLE_STATUSES),
                            _C.connection_info.isnot(None),
                            _C.fenced_at.is_(None)), now),
                        else_=_C.fenced_at)))
        if result.rowcount != 1:
            raise exception.Conflict(
                reason='writer %s of volume %s changed concurrently' % (
                    writer_id, volume_id))
    result = connection_of(context).execute(
        sa.update(_VA).where(
            _C.id == attachment_id, _C.deleted == sa.false(),
            _C.attach_mode == 'ro', _C.fenced_at.is_(None),
            _C.generation == generation,
            _C.attach_status.in_(PROMOTABLE_STATUSES),
            _C.connection_info.isnot(None)).values(
                attach_mode='rw', generation=generation + 1,
                updated_at=now))
    if result.rowcount != 1:
        raise exception.Conflict(
            reason='attachment %s changed concurrently (it is no longer '
                   'the connected, unfenced, read-only attachment of '
                   'generation %d it was)' % (attachment_id, generation))
    return (_get(context, attachment_id),
            [_get(context, writer_id) for writer_id in writer_ids])


@writer
def attachment_record_connection(context, attachment_id, generation,
                                 connection_info):
    """Record the connection info of a promoted writer's read-write
    connection, while it is still the unfenced writer of ``generation``.

    :raises Conflict: it is not (fenced, demoted or detached meanwhile).
    """
    values = {'connection_info': records.dumps(connection_info),
              'updated_at': utcnow()}
    result = connection_of(context).execute(
        sa.update(_VA).where(
            _C.id == attachment_id, _C.deleted == sa.false(),
            _C.attach_mode == 'rw', _C.fenced_at.is_(None),
            _C.generation == generation,
            _C.attach_status.in_(PROMOTABLE_STATUSES)).values(values))
    if result.rowcount != 1:
        raise exception.Conflict(
            reason='attachment %s is no longer the unfenced writer of '
                   'generation %d' % (attachment_id, generation))


def _swap_with_volume(context, attachment_id, where, values,
                      not_connected_elsewhere=None):
    """A compare-and-swap of an attachment that may change its status:
    in the volume's transaction (its row locked, its status derived
    again)."""
    current = _get(context, attachment_id)
    if not attachment_db.lock_volume(context, current.volume_id):
        volume = volume_get_in_txn(context, current.volume_id)
        raise exception.InvalidVolume(
            reason='volume %s is %s' % (volume.id, volume.status))
    statement = sa.update(_VA).where(
        _C.id == attachment_id, _C.deleted == sa.false(), *where)
    params = {}
    if not_connected_elsewhere is not None:
        statement = statement.where(attachment_db.no_other_connection())
        params = {'other_volume_id': current.volume_id,
                  'other_instance_uuid': current.instance_uuid,
                  'other_host': not_connected_elsewhere,
                  'b_id': attachment_id}
    result = connection_of(context).execute(statement.values(values),
                                                  params)
    if result.rowcount == 1:
        attachment_db.recompute_volume_status(context, current.volume_id)
        return _get(context, attachment_id)
    if not_connected_elsewhere is not None:
        other = connection_of(context).execute(
            attachment_db.other_connection(),
            params).first()
        if other is not None:
            raise attachment_db.connected_elsewhere_conflict(
                current.instance_uuid, current.volume_id,
                not_connected_elsewhere, other.id)
    return None


@writer
def attachment_reconnect(context, attachment_id, generation, connector,
                         host, connection_info, mountpoint=None):
    """Record a fenced attachment connected again: 'attaching' with the
    new connector and connection info, unfenced, at ``generation + 1``.

    :param generation: the generation the request read (fenced).
    :raises Conflict: it is no longer fenced at that generation, or its
        instance has the volume connected on ``host`` through another
        attachment.
    :returns: the attachment's record.
    """
    updated = _swap_with_volume(
        context, attachment_id,
        [_C.fenced_at.isnot(None), _C.generation == generation,
         _C.attach_status.in_(RECONNECTABLE_STATUSES)],
        {'attach_status': vstatus.ATTACH_ATTACHING,
         'connector': records.dumps(connector),
         'attached_host': host, 'mountpoint': mountpoint,
         'connection_info': records.dumps(connection_info),
         'fenced_at': None, 'generation': generation + 1,
         'error_reason': None, 'updated_at': utcnow()},
        not_connected_elsewhere=host)
    if updated is None:
        raise exception.Conflict(
            reason='attachment %s is no longer fenced at generation %d '
                   '(connected again or detached meanwhile)' % (
                       attachment_id, generation))
    return updated


@writer
def attachment_unreconnect(context, attachment_id, generation, previous):
    """Undo :func:`attachment_reconnect`: the attachment fenced at
    ``generation`` again, with the ``previous`` values of its columns
    (status, connector, host, mountpoint, connection info, fenced_at).

    :returns: True when it was undone (False: it moved on meanwhile).
    """
    values = dict(previous, generation=generation, updated_at=utcnow())
    for key in ('connector', 'connection_info'):
        values[key] = records.dumps(values.get(key))
    return _swap_with_volume(
        context, attachment_id,
        [_C.fenced_at.is_(None), _C.generation == generation + 1,
         _C.attach_status == vstatus.ATTACH_ATTACHING],
        values) is not None


@writer
def attachment_set_failure(context, attachment_id, reason):
    """Record why a fencing or promotion step failed on the attachment
    (its status, mode and generation stay as they are)."""
    connection_of(context).execute(
        sa.update(_VA).where(_C.id == attachment_id,
                             _C.deleted == sa.false()).values(
            error_reason=reason, updated_at=utcnow()))


@reader
def fenced_connections(context, volume_id):
    """The records of the fenced attachments of a volume that recorded
    a connection."""
    return records.attachments_from_result(
        connection_of(context).execute(sa.select(_VA).where(
            _C.volume_id == volume_id, _C.deleted == sa.false(),
            _C.fenced_at.isnot(None), _C.connection_info.isnot(None))))
