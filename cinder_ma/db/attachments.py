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

"""Database API of volume attachments.

Every attachment transition runs in one writer transaction that starts
with a compare-and-swap UPDATE of the volume row. That UPDATE carries the
reservation rules in its WHERE clause, changes the live-attachment count,
and takes the volume's row lock, so that concurrent transitions of one
volume serialize on every database; the transaction then changes the
attachment (itself compare-and-swap on its status) and writes the volume
status that status.derive() gives for the attachments now present.

Readers and writers return :class:`cinder_ma.db.records.Attachment`
records (``connector`` and ``connection_info`` decoded); writers take
those two as dicts.
"""

import datetime
import functools
import uuid

from oslo_serialization import jsonutils
import sqlalchemy as sa

from cinder_ma import connection_info as cm_connection_info
from cinder_ma.db import api as db_api
from cinder_ma.db.api import conditional_update
from cinder_ma.db.api import reader
from cinder_ma.db.api import utcnow
from cinder_ma.db.api import writer
from cinder_ma.db import models
from cinder_ma.db import records
from cinder_ma.db.volumes import volume_get_in_txn
from cinder_ma.db import work
from cinder_ma import exception
from cinder_ma.policies import attachments as attachment_policies
from cinder_ma import status as vstatus


def _live_attachments(project_id=None):
    """The Core select of the live attachments (of the volumes of a
    project)."""
    va = models.VolumeAttachment.__table__
    statement = sa.select(va).where(va.c.deleted == sa.false())
    if project_id is not None:
        volumes = models.Volume.__table__
        statement = statement.join(
            volumes, volumes.c.id == va.c.volume_id).where(
                volumes.c.project_id == project_id)
    return statement


# The statements of the attach hot path are built once, with bound
# parameters: SQLAlchemy then skips building them and their cache keys on
# every call. They read and write the tables with Core: an attachment is
# handed around as a record (:mod:`cinder_ma.db.records`), not an ORM
# object.
_VA = models.VolumeAttachment
_VA_TABLE = _VA.__table__
_VOLUME_TABLE = models.Volume.__table__
_VOLUME_PREFIX = 'volume__'

_GET_ATTACHMENT = sa.select(_VA_TABLE).where(
    _VA_TABLE.c.id == sa.bindparam('attachment_id'),
    _VA_TABLE.c.deleted == sa.false())
_GET_PROJECT_ATTACHMENT = _GET_ATTACHMENT.select_from(_VA_TABLE.join(
    _VOLUME_TABLE, _VOLUME_TABLE.c.id == _VA_TABLE.c.volume_id)).where(
        _VOLUME_TABLE.c.project_id == sa.bindparam('project_id'))
_GET_ATTACHMENT_AND_VOLUME = sa.select(
    _VA_TABLE, *[column.label(_VOLUME_PREFIX + column.name)
                 for column in _VOLUME_TABLE.c]).select_from(
    _VA_TABLE.join(_VOLUME_TABLE,
                   _VOLUME_TABLE.c.id == _VA_TABLE.c.volume_id)).where(
    _VA_TABLE.c.id == sa.bindparam('attachment_id'),
    _VA_TABLE.c.deleted == sa.false(),
    _VOLUME_TABLE.c.deleted == sa.false())
_GET_PROJECT_ATTACHMENT_AND_VOLUME = _GET_ATTACHMENT_AND_VOLUME.where(
    _VOLUME_TABLE.c.project_id == sa.bindparam('project_id'))
_OTHER_ATTACHMENTS = sa.select(_VA_TABLE).where(
    _VA_TABLE.c.volume_id == sa.bindparam('volume_id'),
    _VA_TABLE.c.id != sa.bindparam('attachment_id'),
    _VA_TABLE.c.deleted == sa.false()).order_by(
        _VA_TABLE.c.created_at.desc(), _VA_TABLE.c.id.desc())


def _constant(value):
    """A status, a constant of the code, written into the SQL of a
    statement built once: a bound parameter costs CPU at every
    execution (an IN list of them most)."""
    if not value.replace('-', '').replace('_', '').isalnum():
        raise ValueError('not a status: %r' % value)
    return sa.literal_column("'%s'" % value, sa.String())


def _constants(values):
    return [_constant(value) for value in values]


def _derived_status_statement():
    """The UPDATE writing the status :func:`cinder_ma.status.derive` gives
    for a volume's (not deleted) attachments, decided in the statement:
    one CASE of :data:`cinder_ma.status.DERIVED`'s precedence."""
    va = _VA_TABLE.c

    def counts_as(attach_status):
        # status.counted_status() in SQL.
        if attach_status == vstatus.ATTACH_ATTACHED:
            return sa.and_(va.attach_status == _constant(attach_status),
                           va.detach_begun_at.is_(None))
        if attach_status == vstatus.ATTACH_DETACHING:
            return sa.or_(va.attach_status == _constant(attach_status),
                          sa.and_(va.attach_status ==
                                  _constant(vstatus.ATTACH_ATTACHED),
                                  va.detach_begun_at.isnot(None)))
        return va.attach_status == _constant(attach_status)

    def any_attachment(attach_status):
        return sa.exists().where(
            va.volume_id == _VOLUME_TABLE.c.id, va.deleted == sa.false(),
            counts_as(attach_status))

    return sa.update(_VOLUME_TABLE).where(
        _VOLUME_TABLE.c.id == sa.bindparam('volume_id'),
        _VOLUME_TABLE.c.deleted == sa.false(),
        _VOLUME_TABLE.c.status.in_(
            _constants(vstatus.ATTACHABLE_STATUSES))).values(
            status=sa.case(*[(any_attachment(attach_status),
                              _constant(volume_status))
                             for attach_status, volume_status
                             in vstatus.DERIVED],
                           else_=_constant(vstatus.AVAILABLE)))


_SET_DERIVED_STATUS = _derived_status_statement()
_INSERT_ATTACHMENT = sa.insert(_VA_TABLE)
_READONLY = sa.select(_VOLUME_TABLE.c.readonly).where(
    _VOLUME_TABLE.c.id == sa.bindparam('volume_id'))
_ATTACHMENT_COLUMNS = tuple(column.name for column in _VA_TABLE.c)


def _lock_statement(delta):
    volume = _VOLUME_TABLE.c
    assignments = []
    if delta < 0:
        # The last live attachment gone frees the reservation. Assigned
        # first: MySQL evaluates SET clauses left to right, seeing values
        # assigned before (attach_count is still the old one here).
        assignments.append((volume.reserved_instance_uuid, sa.case(
            (volume.attach_count + delta <= 0, sa.null()),
            else_=volume.reserved_instance_uuid)))
    if delta:
        assignments.append((volume.attach_count,
                            volume.attach_count + delta))
    assignments.append((volume.updated_at, sa.bindparam('now_')))
    return sa.update(_VOLUME_TABLE).where(
        volume.id == sa.bindparam('volume_id'),
        volume.deleted == sa.false(),
        volume.status.in_(_constants(vstatus.ATTACHABLE_STATUSES))
    ).ordered_values(*assignments)


_LOCK_VOLUME = {delta: _lock_statement(delta) for delta in (-1, 0, 1)}


def _reserve_statement(capped, exclusive_bootable, returning):
    volume = _VOLUME_TABLE.c
    instance = sa.bindparam('instance_uuid')
    where = [sa.or_(volume.multiattach == sa.true(),
                    volume.attach_count == 0,
                    volume.reserved_instance_uuid == instance)]
    if capped:
        where.append(volume.attach_count < sa.bindparam('max_attachments'))
    if exclusive_bootable:
        # A bootable volume stays with one instance: the volume is then
        # only ever held by that instance, recorded as its holder.
        where.append(sa.or_(volume.bootable == sa.false(),
                            volume.attach_count == 0,
                            volume.reserved_instance_uuid == instance))
    holder = sa.case((volume.attach_count == 0, instance),
                     else_=volume.reserved_instance_uuid)
    # reserved_instance_uuid is assigned first: MySQL evaluates SET
    # clauses left to right, seeing values assigned before.
    statement = sa.update(_VOLUME_TABLE).where(
        volume.id == sa.bindparam('volume_id'),
        volume.deleted == sa.false(),
        volume.status.in_(_constants(vstatus.ATTACHABLE_STATUSES)),
        *where).ordered_values(
            (volume.reserved_instance_uuid, holder),
            (volume.attach_count, volume.attach_count + 1),
            (volume.updated_at, sa.bindparam('now_')))
    # Where UPDATE ... RETURNING exists, the swap also answers whether the
    # volume is read-only, as it is under the row lock the swap takes.
    return statement.returning(volume.readonly) if returning else statement


_RESERVE = {(capped, exclusive, returning):
            _reserve_statement(capped, exclusive, returning)
            for capped in (False, True) for exclusive in (False, True)
            for returning in (False, True)}


def _other_connection_conditions(other):
    """SQL conditions on ``other`` (an alias of the attachments): another
    attachment of the same instance and volume is connected (or
    connecting) on the host bound as ``other_host``."""
    return (other.c.volume_id == sa.bindparam('other_volume_id'),
            other.c.instance_uuid == sa.bindparam('other_instance_uuid'),
            other.c.attached_host == sa.bindparam('other_host'),
            other.c.id != sa.bindparam('b_id'),
            other.c.deleted == sa.false(),
            other.c.attach_status.in_(_constants((vstatus.ATTACH_ATTACHING,
                                                  vstatus.ATTACH_ATTACHED))))


def no_other_connection():
    """SQL condition: no other attachment of the same instance and volume
    is connected (or connecting) on the host bound as ``other_host``."""
    other = _VA_TABLE.alias('other')
    return ~sa.exists().where(*_other_connection_conditions(other))


@functools.cache
def other_connection():
    """The id of the other attachment :func:`no_other_connection` looks
    for (one, if any); built once, as every statement of the attach
    path."""
    other = _VA_TABLE.alias('other')
    return sa.select(other.c.id).where(
        *_other_connection_conditions(other)).limit(1)


@functools.lru_cache(maxsize=64)
def _swap_statement(keys, single_connection, held=False, free=False):
    """The compare-and-swap UPDATE of an attachment setting ``keys`` (with
    ``held``, only while the claim ``b_claim`` holds it; with ``free``,
    only while no valid claim holds it at ``b_now``)."""
    where = [_VA_TABLE.c.id == sa.bindparam('b_id'),
             _VA_TABLE.c.deleted == sa.false(),
             _VA_TABLE.c.attach_status == sa.bindparam('b_status')]
    if held:
        where.append(_VA_TABLE.c.claimed_by == sa.bindparam('b_claim'))
    if free:
        where.append(sa.or_(_VA_TABLE.c.claimed_by.is_(None),
                            _VA_TABLE.c.claimed_until < sa.bindparam('b_now')))
    if single_connection:
        where.append(no_other_connection())
    return sa.update(_VA_TABLE).where(*where).values(
        {key: sa.bindparam('v_' + key) for key in keys})


def attachment_get_in_txn(context, attachment_id, project_id=None):
    if project_id is None:
        row = db_api.connection_of(context).execute(
            _GET_ATTACHMENT, {'attachment_id': attachment_id}).first()
    else:
        row = db_api.connection_of(context).execute(
            _GET_PROJECT_ATTACHMENT, {'attachment_id': attachment_id,
                                      'project_id': project_id}).first()
    if row is None:
        raise exception.VolumeAttachmentNotFound(
            filter='attachment_id = %s' % attachment_id)
    return records.attachment_from_row(row)


def recompute_volume_status(context, volume_id):
    """Write the status a volume's attachments give it (see
    :func:`cinder_ma.status.derive`), unless the volume is in a status
    that attachments do not decide.

    :returns: whether it was written (the volume is in an attachable
        status).
    """
    return db_api.connection_of(context).execute(
        _SET_DERIVED_STATUS, {'volume_id': volume_id}).rowcount == 1


def _not_attachable(context, volume_id):
    volume = volume_get_in_txn(context, volume_id)
    return _not_attachable_error(volume)


def _not_attachable_error(volume):
    return exception.InvalidVolume(
        reason='volume %s is %s' % (volume.id, volume.status))


def lock_volume(context, volume_id, live_delta=0):
    """The compare-and-swap UPDATE that starts an attachment transition:
    the volume must be in an attachable status; its live-attachment count
    changes by ``live_delta``.

    :returns: True when the volume row was updated (and is now locked).
    """
    result = db_api.connection_of(context).execute(
        _LOCK_VOLUME[live_delta], {'volume_id': volume_id, 'now_': utcnow()})
    return result.rowcount == 1


def of_instance(instance_uuid, none='no instance'):
    """'instance <uuid>' for a message, or ``none`` for an attachment
    that names no instance (reserved by os-reserve, or by a consumer of
    the attachments API that gave none)."""
    return 'instance %s' % instance_uuid if instance_uuid else none


def _reservation_refusal(context, volume_id, instance_uuid,
                         max_attachments, exclusive_bootable, cap_source):
    volume = volume_get_in_txn(context, volume_id)
    if volume.status not in vstatus.ATTACHABLE_STATUSES:
        return exception.InvalidVolume(
            reason='volume %s is %s; attachments can only be made to a '
                   'volume that is one of %s' % (
                       volume_id, volume.status,
                       ', '.join(vstatus.ATTACHABLE_STATUSES)))
    if (exclusive_bootable and volume.bootable and volume.multiattach and
            volume.attach_count > 0 and (
                instance_uuid is None or
                volume.reserved_instance_uuid != instance_uuid)):
        return exception.PolicyNotAuthorized(
            action=attachment_policies.MULTIATTACH_BOOTABLE)
    if (max_attachments is not None and
            volume.attach_count >= max_attachments):
        return exception.InvalidVolume(
            reason='volume %s already has %d attachments: at most %d are '
                   'allowed (%s)' % (
                       volume_id, volume.attach_count, max_attachments,
                       cap_source))
    if not volume.multiattach:
        # os-reserve names no instance.
        wanted = ('attached to %s' % of_instance(instance_uuid)
                  if instance_uuid else 'reserved again')
        return exception.InvalidVolume(
            reason='volume %s is not multiattach and is already held by '
                   '%s; it cannot be %s' % (
                       volume_id,
                       of_instance(volume.reserved_instance_uuid,
                                   'an attachment of no instance'),
                       wanted))
    return exception.Conflict(reason='volume %s changed concurrently' %
                              volume_id)


def _live_writer(volume_id):
    """A live rw attachment of ``volume_id`` (its id and instance)."""
    va = _VA_TABLE.c
    return sa.select(va.id, va.instance_uuid).where(
        va.volume_id == volume_id, va.deleted == sa.false(),
        va.attach_mode == 'rw',
        va.attach_status.in_(vstatus.LIVE_ATTACH_STATUSES)).limit(
            1).with_for_update(read=True)


@writer
def attachment_reserve(context, volume_id, instance_uuid, attach_mode='rw',
                       connector=None, manager_host=None,
                       max_attachments=None, exclusive_bootable=False,
                       one_writer=False,
                       cap_source='multiattach:max_attachments',
                       claim=None):
    """Reserve an attachment of a volume for an instance.

    A volume that is not multiattach takes attachments for one instance at
    a time (a second one for the same instance is allowed: live migration
    reserves one for the destination host). ``max_attachments`` caps the
    live attachments of the volume (its refusal names the cap and
    ``cap_source``, what set it); a read-only volume's are
    ``ro`` whatever ``attach_mode`` asks. With ``exclusive_bootable``
    (the caller may not attach a bootable shareable volume to several
    instances: ``volume:multiattach_bootable_volume``), a bootable volume
    takes attachments for one instance at a time too. All of it is
    decided by the WHERE clause of one UPDATE, so that concurrent
    reservations give exactly the winners the rules allow, on every
    database.

    ``one_writer`` (a volume type with ``multiattach:writers=one``): an
    ``rw`` reservation is refused while another live ``rw`` attachment
    exists. That check runs in the same transaction, after the UPDATE
    above locked the volume row, so reservations of one volume are
    serialized and each sees the writers the others committed. (A
    NOT EXISTS in the UPDATE's WHERE would not do: on PostgreSQL the
    re-check of a row updated concurrently does not see rows other
    transactions inserted.)

    :param claim: the values of a claim on the new attachment's work
        (:func:`cinder_ma.db.work.claim_values`), for a reservation
        whose connect flow follows in the same request.
    :raises InvalidVolume: with the reason the rules refuse.
    :raises PolicyNotAuthorized: a bootable shareable volume held by
        another instance, and ``exclusive_bootable``.
    :raises Conflict: the volume already has its one writer (named).
    :returns: the new attachment's record.
    """
    now = utcnow()
    connection = db_api.connection_of(context)
    returning = connection.dialect.update_returning
    result = connection.execute(
        _RESERVE[max_attachments is not None, bool(exclusive_bootable),
                 returning],
        {'volume_id': volume_id, 'instance_uuid': instance_uuid,
         'max_attachments': max_attachments, 'now_': now})
    if returning:
        swapped = result.first()
        reserved = swapped is not None
    else:
        reserved = result.rowcount == 1
    if not reserved:
        raise _reservation_refusal(context, volume_id, instance_uuid,
                                   max_attachments, exclusive_bootable,
                                   cap_source)
    # Read under the row lock the swap took: a read-only volume's
    # attachments are 'ro' whatever mode is asked.
    if attach_mode != 'ro' and (
            swapped.readonly if returning else
            connection.execute(_READONLY, {'volume_id': volume_id}).scalar()):
        attach_mode = 'ro'
    if one_writer and attach_mode == 'rw':
        writer_row = db_api.connection_of(context).execute(
            _live_writer(volume_id)).first()
        if writer_row is not None:
            raise exception.Conflict(
                reason='volume %s has a writer already: attachment %s of '
                       '%s; its volume type allows one read-write '
                       'attachment at a time (multiattach:writers=one): '
                       'attach read-only' % (
                           volume_id, writer_row.id,
                           of_instance(writer_row.instance_uuid)))
    values = dict.fromkeys(_ATTACHMENT_COLUMNS)
    values.update(
        id=str(uuid.uuid4()), volume_id=volume_id,
        instance_uuid=instance_uuid, attach_mode=attach_mode,
        attach_status=vstatus.ATTACH_RESERVED,
        attached_host=manager_host, manager_host=manager_host,
        connector=records.dumps(connector or None),
        created_at=now, deleted=False, generation=1)
    if claim:
        values.update(claim)
    db_api.connection_of(context).execute(_INSERT_ATTACHMENT, values)
    recompute_volume_status(context, volume_id)
    return records.attachment_from_row(values)


def _is_live(status):
    return status in vstatus.LIVE_ATTACH_STATUSES


def _attachment_and_volume_in_txn(context, attachment_id, project_id=None):
    if project_id is None:
        row = db_api.connection_of(context).execute(
            _GET_ATTACHMENT_AND_VOLUME,
            {'attachment_id': attachment_id}).first()
    else:
        row = db_api.connection_of(context).execute(
            _GET_PROJECT_ATTACHMENT_AND_VOLUME,
            {'attachment_id': attachment_id,
             'project_id': project_id}).first()
    if row is None:
        raise exception.VolumeAttachmentNotFound(
            filter='attachment_id = %s' % attachment_id)
    return (records.attachment_from_row(row),
            records.volume_from_row(row, prefix=_VOLUME_PREFIX))


class _NoStableUser(Exception):
    """The other user of a connection that a delete counted on (see
    :func:`attachment_delete_or_hand_over`) is not there under the
    volume's row lock: the transaction is rolled back."""


@writer
def _attachment_update(context, attachment_id, values,
                       expected_status=None, not_connected_elsewhere=None,
                       project_id=None, check=None, held_by=None,
                       claim=None, current=None, decide=None):
    """See :func:`attachment_update` (and, for ``decide``,
    :func:`attachment_delete_or_hand_over`)."""
    shared_host = None
    if decide is not None:
        current, volume = _attachment_and_volume_in_txn(
            context, attachment_id, project_id)
        values, claim, shared_host = decide(current, volume)
    elif check is not None:
        current, volume = _attachment_and_volume_in_txn(
            context, attachment_id, project_id)
        check(current, volume)
    elif current is None:
        current = attachment_get_in_txn(context, attachment_id)
    if isinstance(expected_status, str):
        expected_status = (expected_status,)
    if expected_status and current.attach_status not in expected_status:
        raise exception.Conflict(
            reason='attachment %s is %s, expected %s' % (
                attachment_id, current.attach_status,
                ' or '.join(expected_status)))
    values = dict(values)
    values.setdefault('updated_at', utcnow())
    if held_by is not None:
        if current.claimed_by != held_by:
            raise exception.Conflict(
                reason='attachment %s is no longer claimed by this flow' %
                attachment_id)
        # The flow's last write gives its claim up.
        values.update(claimed_by=None, claimed_until=None,
                      pending_work=None)
    now = utcnow()
    if claim is not None:
        if current.claimed_by is not None and current.claimed_until and \
                current.claimed_until >= now:
            raise exception.Conflict(
                reason='another flow works on attachment %s' %
                attachment_id)
        values.update(claim)
    if values.get('attach_status', current.attach_status) != \
            current.attach_status:
        # The mark of os-begin_detaching belongs to the attached state it
        # was set in (status.counted_status).
        values.setdefault('detach_begun_at', None)
    # The record's values (decoded), and the columns' (encoded).
    changes = dict(values)
    for key in records.JSON_FIELDS:
        if key in values:
            values[key] = records.dumps(values[key])
            changes[key] = records.loads(values[key])
    new_status = values.get('attach_status', current.attach_status)
    delta = int(_is_live(new_status)) - int(_is_live(current.attach_status))
    # On every database alike (SQLite included): the compare-and-swap of
    # the volume row first, which also locks it.
    if not lock_volume(context, current.volume_id, live_delta=delta):
        raise _not_attachable(context, current.volume_id)
    if shared_host is not None and db_api.connection_of(context).execute(
            _STABLE_USER, {'volume_id': current.volume_id,
                           'host': shared_host,
                           'exclude_id': attachment_id}).first() is None:
        # Read under the row lock: the prediction did not hold.
        raise _NoStableUser()
    # The status read above is part of the swap: the count applied to the
    # volume is right only while the attachment is still in that status.
    params = {'v_' + key: value for key, value in values.items()}
    params.update(b_id=attachment_id, b_status=current.attach_status,
                  b_claim=held_by, b_now=now)
    if not_connected_elsewhere is not None:
        params.update(other_volume_id=current.volume_id,
                      other_instance_uuid=current.instance_uuid,
                      other_host=not_connected_elsewhere)
    result = db_api.connection_of(context).execute(
        _swap_statement(tuple(sorted(values)),
                        not_connected_elsewhere is not None,
                        held_by is not None, claim is not None), params)
    if result.rowcount != 1:
        if not_connected_elsewhere is not None:
            other = db_api.connection_of(context).execute(
                other_connection(),
                params).first()
            if other is not None:
                raise connected_elsewhere_conflict(
                    current.instance_uuid, current.volume_id,
                    not_connected_elsewhere, other.id)
        raise exception.Conflict(
            reason='attachment %s changed concurrently' % attachment_id)
    if values.get('instance_uuid'):
        # os-attach names the instance of an os-reserve reservation.
        db_api.connection_of(context).execute(
            sa.update(_VOLUME_TABLE)
            .where(_VOLUME_TABLE.c.id == current.volume_id,
                   _VOLUME_TABLE.c.reserved_instance_uuid.is_(None))
            .values(reserved_instance_uuid=values['instance_uuid']))
    recompute_volume_status(context, current.volume_id)
    # The row now holds the values: hand them back without reading it
    # again.
    return current.replace(**changes)


def attachment_update(context, attachment_id, values, expected_status=None,
                      not_connected_elsewhere=None, project_id=None,
                      check=None, held_by=None, claim=None, current=None):
    """Move an attachment to a new state, compare-and-swap.

    :param values: columns of the attachment; ``connector`` and
        ``connection_info`` may be dicts.
    :param expected_status: a status or a tuple of the statuses the
        attachment must be in.
    :param not_connected_elsewhere: a host: refuse (409) when another
        attachment of the same instance and volume is connected there,
        in the same compare-and-swap (the double-attach race of Cinder
        bug 1833736).
    :param check: called as ``check(attachment, volume)`` with their
        records, read in this transaction (in one query) before anything
        is written; what it raises is raised, and nothing is changed
        (an authorization of the request, done in its one transaction).
        It may run again when the transaction is retried.
    :param project_id: with ``check``: only an attachment of a volume of
        this project (another is not found).
    :param held_by: the claim of the flow that writes (its last write):
        refused (409) unless it still holds the attachment, and given up
        with its pending flow in the same compare-and-swap.
    :param claim: the values of a claim on the attachment's work
        (:func:`cinder_ma.db.work.claim_values`) written with ``values``,
        refused (409) while another valid claim holds it: the request
        hands the work to a manager that adopts the claim.
    :param current: the attachment's record as the flow that writes got
        it with its claim (``held_by``, or the reconcile loop's), which
        the update takes for the row instead of reading it (the
        compare-and-swap on the status, and on the claim with
        ``held_by``, is what holds it to the row: nothing else changes
        an attachment a valid claim holds in the status it was claimed
        in).
    :raises VolumeAttachmentNotFound: no such attachment.
    :raises Conflict: the attachment is not in an expected status.
    :raises InvalidVolume: the volume is not in an attachable status.
    :returns: the updated attachment's record.
    """
    return _attachment_update(context, attachment_id, values,
                              expected_status, not_connected_elsewhere,
                              project_id, check, held_by, claim, current)


#: Another user of an attachment's connection on its host that stays:
#: attaching or attached, and claimed by no flow (a flow that holds it
#: may be ending its connection after counting the users, under the
#: connection lock). Read under the volume's row lock; FOR SHARE (left
#: out on SQLite, whose writers take turns) so that a claim taken on
#: that row concurrently waits for this transaction, or is seen.
_STABLE_USER = sa.select(_VA_TABLE.c.id).where(
    _VA_TABLE.c.volume_id == sa.bindparam('volume_id'),
    _VA_TABLE.c.attached_host == sa.bindparam('host'),
    _VA_TABLE.c.id != sa.bindparam('exclude_id'),
    _VA_TABLE.c.connector.isnot(None),
    _VA_TABLE.c.deleted == sa.false(),
    _VA_TABLE.c.claimed_by.is_(None),
    _VA_TABLE.c.attach_status.in_(_constants(
        (vstatus.ATTACH_ATTACHING, vstatus.ATTACH_ATTACHED)))).limit(
            1).with_for_update(read=True)

#: The statuses of :data:`_STABLE_USER`.
STABLE_USER_STATUSES = (vstatus.ATTACH_ATTACHING, vstatus.ATTACH_ATTACHED)


def is_stable_user(attachment, host):
    """Whether ``attachment`` (a record) is what :data:`_STABLE_USER`
    looks for on ``host``: for a prediction, from records read before
    the volume's row lock."""
    return (attachment.attach_status in STABLE_USER_STATUSES and
            attachment.claimed_by is None and
            attachment.connector is not None and
            attachment.attached_host == host)


def destroy_values():
    """The values of an attachment's soft delete (recorded detached)."""
    now = utcnow()
    return {'attach_status': vstatus.ATTACH_DETACHED, 'deleted': True,
            'deleted_at': now, 'detach_time': now}


def attachment_delete_or_hand_over(context, attachment_id, expected_status,
                                   project_id, decide):
    """The one transaction of a consumer's delete of an attachment: read
    it and its volume, then either delete it at once or record it
    ``detaching`` with the claim of the flow that ends its connection.

    ``decide(attachment, volume, may_delete)`` (authorizing, reading what
    the request answers, in the transaction) returns ``(values, claim,
    shared_host)``: the values to write, the claim to write with them
    (or None), and, for a delete at once of an attachment that holds the
    connection of ``shared_host``, that host: another user that stays
    there (:data:`_STABLE_USER`) must then be found under the volume's
    row lock, or the transaction is rolled back and run again with
    ``may_delete`` False.

    Why a delete at once is safe (docs/contributor/performance.rst):
    every attachment that decides to keep a shared connection and
    leaves later holds a claim then, or is not attaching/attached; an
    attachment that leaves at once leaves behind a user that is neither,
    and two of them serialize on the volume's row lock. The last user to
    leave counts none and ends the connection under the connection lock.

    :returns: the attachment as written.
    """
    try:
        return _attachment_update(
            context, attachment_id, None, expected_status,
            project_id=project_id,
            decide=lambda att, vol: decide(att, vol, True))
    except _NoStableUser:
        return _attachment_update(
            context, attachment_id, None, expected_status,
            project_id=project_id,
            decide=lambda att, vol: decide(att, vol, False))


@writer
def attachment_destroy_if_shared(context, attachment, host, held_by=None):
    """Delete ``attachment`` (a record in ``detaching``, as its flow got
    it) in the transaction that counts the other users of its connection
    on ``host``, when there are some: its connection stays. Under the
    connection lock.

    :returns: True when deleted; False (nothing written) when it is the
        last user of the connection.
    """
    users = db_api.connection_of(context).execute(
        _SHARING[False], {'volume_id': attachment.volume_id, 'host': host,
                          'exclude_id': attachment.id,
                          'service_uuid': None}).scalar()
    if not users:
        return False
    _attachment_update(context, attachment.id, destroy_values(),
                       vstatus.ATTACH_DETACHING, held_by=held_by,
                       current=attachment)
    return True


@writer
def attachment_claim_checked(context, attachment_id, owner, statuses, lease,
                             pending, project_id=None, check=None):
    """Read an attachment and its volume (of ``project_id``), check them,
    and claim the attachment's work for ``owner`` with its ``pending``
    flow (:func:`cinder_ma.db.work.claim`), in one transaction: a request
    that hands the work to a manager.

    :param check: ``check(attachment, volume)``, whose exception is
        raised (nothing is claimed); a false answer: claim nothing.
    :returns: ``(attachment, volume, claimed)``; the attachment's record
        carries the claim (its ``claimed_until`` no later than the one
        written) when ``claimed``.
    """
    attachment, volume = _attachment_and_volume_in_txn(
        context, attachment_id, project_id)
    if check is not None and not check(attachment, volume):
        return attachment, volume, False
    before = utcnow()
    if not work.claim(context, 'attachment', attachment_id, owner, statuses,
                      lease, pending=pending):
        return attachment, volume, False
    return attachment.replace(
        claimed_by=owner,
        claimed_until=before + datetime.timedelta(seconds=lease),
        pending_work=pending), volume, True


#: Cinder's answer to os-begin_detaching on a volume that is not in-use.
BEGIN_DETACHING_REFUSAL = ("Unable to detach volume. Volume status must be "
                           "'in-use' and attach_status must be 'attached' "
                           "to detach.")


def _attached_unmarked(volume_id):
    va = _VA_TABLE.c
    return sa.select(va.id).where(
        va.volume_id == volume_id, va.deleted == sa.false(),
        va.attach_status == vstatus.ATTACH_ATTACHED,
        va.detach_begun_at.is_(None)).order_by(va.created_at)


@writer
def attachment_begin_detaching(context, volume_id, attachment_id=None):
    """os-begin_detaching: mark the attachment its consumer is about to
    detach (see :func:`cinder_ma.status.counted_status`), under the
    volume's row lock.

    As in Cinder, the volume must be ``in-use``. Without
    ``attachment_id``, the volume's one attached attachment whose detach
    has not begun is marked; when it has several, none is (which one the
    consumer detaches is told by its delete of it) and the volume stays
    ``in-use``. With ``attachment_id``, that attachment is marked; it must
    be an attached attachment of the volume whose detach has not begun.

    :raises InvalidVolume: the volume is not in-use, or the attachment
        named cannot be marked (nothing is changed).
    :returns: the id of the attachment marked, or None.
    """
    locked = lock_volume(context, volume_id)
    volume = volume_get_in_txn(context, volume_id, children=False)
    if not locked or volume.status != vstatus.IN_USE:
        raise exception.InvalidVolume(
            reason='%s Volume %s is %s.' % (BEGIN_DETACHING_REFUSAL,
                                            volume_id, volume.status))
    connection = db_api.connection_of(context)
    candidates = list(connection.execute(
        _attached_unmarked(volume_id)).scalars())
    if attachment_id is None:
        if len(candidates) != 1:
            return None
        attachment_id = candidates[0]
    elif attachment_id not in candidates:
        raise exception.InvalidVolume(
            reason='%s Volume %s has no attachment %s that is attached '
                   'and not already detaching.' % (
                       BEGIN_DETACHING_REFUSAL, volume_id, attachment_id))
    now = utcnow()
    va = _VA_TABLE.c
    # The compare-and-swap itself: the reads above may predate a
    # concurrent begin that committed while this one waited for the lock
    # (a database whose reads see the transaction's first snapshot).
    marked = connection.execute(sa.update(_VA_TABLE).where(
        va.id == attachment_id, va.deleted == sa.false(),
        va.attach_status == vstatus.ATTACH_ATTACHED,
        va.detach_begun_at.is_(None)).values(
            detach_begun_at=now, updated_at=now)).rowcount
    if marked != 1:
        raise exception.InvalidVolume(
            reason='%s Attachment %s of volume %s is already detaching.' % (
                BEGIN_DETACHING_REFUSAL, attachment_id, volume_id))
    recompute_volume_status(context, volume_id)
    return attachment_id


@writer
def attachment_roll_detaching(context, volume_id, attachment_id=None):
    """os-roll_detaching: drop the marks of :func:`attachment_begin_detaching`
    of the volume's attachments (of ``attachment_id`` only, when given).

    As in Cinder, never refused: a volume that is not in an attachable
    status, or has nothing marked, is left as it is.

    :returns: the number of attachments whose mark was dropped.
    """
    if not lock_volume(context, volume_id):
        return 0
    va = _VA_TABLE.c
    conditions = [va.volume_id == volume_id, va.deleted == sa.false(),
                  va.detach_begun_at.isnot(None)]
    if attachment_id is not None:
        conditions.append(va.id == attachment_id)
    rolled = db_api.connection_of(context).execute(
        sa.update(_VA_TABLE).where(*conditions).values(
            detach_begun_at=None, updated_at=utcnow())).rowcount
    if rolled:
        recompute_volume_status(context, volume_id)
    return rolled


def attachment_destroy(context, attachment_id, expected_status=None,
                       held_by=None, current=None):
    """Soft-delete an attachment (recorded as detached) and free its
    reservation.

    :param held_by: the claim of the flow that deletes it, and
    :param current: its record as that flow got it (see
        :func:`attachment_update`).
    :raises Conflict: when ``expected_status`` does not hold.
    """
    _attachment_update(context, attachment_id, destroy_values(),
                       expected_status, held_by=held_by, current=current)


@writer
def attachment_claim(context, kind, attachment_id, owner, statuses, lease,
                     check=None, **kwargs):
    """Claim an attachment's work (:func:`cinder_ma.db.work.claim`, with
    its keyword arguments) and read it and its volume in the same
    transaction.

    :param check: called as ``check(attachment, volume)`` with the
        records read, in the transaction: what it raises is raised, and
        nothing is claimed.
    :returns: ``(Attachment, Volume)`` records, or None when not claimed.
    """
    if not work.claim(context, kind, attachment_id, owner, statuses, lease,
                      **kwargs):
        return None
    rows = _attachment_and_volume_in_txn(context, attachment_id)
    if check is not None:
        check(*rows)
    return rows


@reader
def attachment_adopt(context, kind, attachment_id, owner, statuses, lease,
                     **kwargs):
    """An attachment and its volume when the claim ``owner`` holds it in
    one of ``statuses`` (written by the request that handed the work
    over: see :func:`attachment_update`'s ``claim``), else None; arguments
    as :func:`attachment_claim`'s, for a caller that takes either."""
    attachment, volume = _attachment_and_volume_in_txn(context,
                                                       attachment_id)
    if attachment.claimed_by != owner or \
            attachment.attach_status not in statuses:
        return None
    return attachment, volume


@reader
def attachment_and_volume_get(context, attachment_id, project_id=None):
    """An attachment and its volume (without its children), in one
    query.

    :param project_id: only an attachment of a volume of this project.
    :raises VolumeAttachmentNotFound: no such attachment (visible).
    :returns: ``(Attachment, Volume)`` records
        (:mod:`cinder_ma.db.records`).
    """
    return _attachment_and_volume_in_txn(context, attachment_id, project_id)


def connected_elsewhere_conflict(instance_uuid, volume_id, host,
                                 other_id):
    return exception.Conflict(
        reason='instance %s already has volume %s connected on host %s '
               '(attachment %s)' % (instance_uuid, volume_id, host,
                                    other_id))


@reader
def check_connectable(context, attachment_id, host, current=None):
    """Refuse (409) to connect an attachment to ``host`` when it is not
    'reserved', or when another attachment of its instance and volume is
    connected (or connecting) there: what the compare-and-swap of
    :func:`attachment_update` with ``not_connected_elsewhere`` refuses,
    checked before anything is asked of a backend.

    :param current: the attachment as read in this request, if it was.
    :raises Conflict: with the reason.
    """
    attachment = current or attachment_get_in_txn(context, attachment_id)
    if attachment.attach_status != vstatus.ATTACH_RESERVED:
        raise exception.Conflict(
            reason='attachment %s is %s; only a reserved attachment can be '
                   'connected (create another attachment to connect '
                   'another host)' % (attachment_id,
                                      attachment.attach_status))
    check_not_connected(context, attachment.volume_id,
                        attachment.instance_uuid, host, attachment.id)


@reader
def check_not_connected(context, volume_id, instance_uuid, host,
                        attachment_id=''):
    """Refuse (409) when an attachment of ``instance_uuid`` and the
    volume other than ``attachment_id`` (by default: any) is connected
    (or connecting) on ``host``: before a new attachment is reserved to
    be connected there, or an attachment connected (see
    :func:`check_connectable`).

    :raises Conflict: with the reason.
    """
    other = db_api.connection_of(context).execute(
        other_connection(),
        {'other_volume_id': volume_id, 'other_instance_uuid': instance_uuid,
         'other_host': host, 'b_id': attachment_id}).first()
    if other is not None:
        raise connected_elsewhere_conflict(instance_uuid, volume_id, host,
                                           other.id)


@reader
def attachment_get_others(context, volume_id, attachment_id):
    """The volume's attachments (not deleted) other than
    ``attachment_id``, newest first."""
    return records.attachments_from_result(
        db_api.connection_of(context).execute(
            _OTHER_ATTACHMENTS, {'volume_id': volume_id,
                                 'attachment_id': attachment_id}))


@reader
def attachment_get(context, attachment_id, project_id=None):
    return attachment_get_in_txn(context, attachment_id, project_id)


_ATTACHMENT_FILTERS = {
    'volume_id': models.VolumeAttachment.volume_id,
    'instance_id': models.VolumeAttachment.instance_uuid,
    'instance_uuid': models.VolumeAttachment.instance_uuid,
    'attach_status': models.VolumeAttachment.attach_status,
    'status': models.VolumeAttachment.attach_status,
    'attached_host': models.VolumeAttachment.attached_host,
}


@reader
def attachment_get_all(context, project_id=None, filters=None, marker=None,
                       limit=None, sort_keys=None, sort_dirs=None):
    visible = _live_attachments(project_id)
    statement = visible
    for key, value in (filters or {}).items():
        column = _ATTACHMENT_FILTERS.get(key)
        if column is None:
            raise exception.InvalidInput(
                reason='invalid filter key %s' % key)
        if isinstance(value, (list, tuple)):
            statement = statement.where(column.in_(value))
        else:
            statement = statement.where(column == value)
    connection = db_api.connection_of(context)
    statement = db_api.paginate(
        connection, statement, models.VolumeAttachment, visible, marker,
        limit, sort_keys,
        sort_dirs, ('id', 'created_at', 'updated_at', 'attach_status',
                    'instance_uuid', 'volume_id', 'attach_time'),
        'created_at', 'desc')
    return records.attachments_from_result(connection.execute(statement))


def _sharing_statement(shared_target):
    va = _VA_TABLE.c
    conditions = [
        va.attached_host == sa.bindparam('host'),
        va.id != sa.bindparam('exclude_id'),
        va.connector.isnot(None),
        va.deleted == sa.false(),
        va.attach_status.in_(_constants((vstatus.ATTACH_ATTACHING,
                                         vstatus.ATTACH_ATTACHED,
                                         vstatus.ATTACH_DETACHING,
                                         vstatus.ATTACH_ERROR_DETACHING)))]
    source = _VA_TABLE
    if shared_target:
        source = _VA_TABLE.join(_VOLUME_TABLE,
                                _VOLUME_TABLE.c.id == va.volume_id)
        conditions += [_VOLUME_TABLE.c.service_uuid ==
                       sa.bindparam('service_uuid'),
                       _VOLUME_TABLE.c.deleted == sa.false()]
    else:
        conditions.append(va.volume_id == sa.bindparam('volume_id'))
    return sa.select(sa.func.count()).select_from(source).where(*conditions)


# By whether the connection is a shared target's (see below).
_SHARING = {shared: _sharing_statement(shared) for shared in (False, True)}


@reader
def attachment_count_sharing_connection(context, volume_id, host,
                                        exclude_id, service_uuid=None):
    """Live attachments, other than ``exclude_id``, that use a host's
    connection.

    Without ``service_uuid``: attachments of the volume on the host (its
    export to that host). With it (a backend with shared targets): those
    of any volume of that backend on the host, since they share the
    host's connection to the target. A connection is torn down only when
    this is 0. An attachment that recorded no connector (a manager's
    reservation, or one whose connection ``os-terminate_connection``
    ended) holds no connection.

    Count and teardown must run under the connection lock
    (:mod:`cinder_ma.manager.locks`), with every transition that makes
    an attachment hold a connection.
    """
    return db_api.connection_of(context).execute(
        _SHARING[service_uuid is not None],
        {'volume_id': volume_id, 'host': host, 'exclude_id': exclude_id,
         'service_uuid': service_uuid}).scalar()


def counted_statuses(context, volume_id):
    """The statuses the live attachments of a volume count as in
    :func:`cinder_ma.status.derive` (in the caller's transaction)."""
    va = models.VolumeAttachment
    return [vstatus.counted_status(*row)
            for row in db_api.connection_of(context).execute(
                sa.select(va.attach_status, va.detach_begun_at).where(
                    va.volume_id == volume_id, va.deleted == sa.false()))]


@writer
def volume_leave_status(context, volume_id, from_status, values=None):
    """Move a volume out of a transient status (``extending``) to the
    status its attachments give, compare-and-swap.

    :raises Conflict: the volume is not in ``from_status``.
    """
    volume = models.Volume
    statuses = counted_statuses(context, volume_id)
    values = dict(values or {})
    values['status'] = vstatus.derive(statuses)
    if not conditional_update(context, volume, volume_id, values,
                              {'status': from_status}):
        raise exception.Conflict(
            reason='volume %s is not %s' % (volume_id, from_status))
    return values['status']


#: How the ``error_reason`` an extend leaves on an attachment starts: a
#: later extend that reaches the attachment clears it.
EXTEND_REASON_PREFIX = 'extend to '


def _with_size(connection_info, size):
    """``connection_info`` (JSON text) with ``data[SIZE_KEY] = size``;
    the same text when it has no ``data`` object to hold it."""
    if not connection_info:
        return connection_info
    try:
        info = jsonutils.loads(connection_info)
    except ValueError:
        return connection_info
    if not isinstance(info, dict) or not isinstance(
            info.get('data') or {}, dict):
        return connection_info
    data = dict(info.get('data') or {})
    if data.get(cm_connection_info.SIZE_KEY) == size:
        return connection_info
    data[cm_connection_info.SIZE_KEY] = size
    info['data'] = data
    return jsonutils.dumps(info)


@writer
def volume_finish_extend(context, volume_id, new_size, not_updated=None,
                         reason=None):
    """Leave ``extending`` with the new size, in one transaction.

    The volume gets ``new_size``, ``reason`` as its error_reason (None:
    every attachment saw the new size) and the status its attachments
    give (compare-and-swap on ``extending``). Its attachments' connection
    info records the new size (``data['volume_size']``); those of
    ``not_updated`` get their reason as error_reason, and the others lose
    a reason an earlier extend left (:data:`EXTEND_REASON_PREFIX`).
    Attachments cannot change meanwhile: every attachment transition
    needs the volume in an attachable status.

    :param not_updated: {attachment id: reason} of the attachments whose
        instance does not see the new size.
    :returns: the volume's new status.
    :raises Conflict: the volume is not ``extending``.
    """
    not_updated = dict(not_updated or {})
    status = volume_leave_status(
        context, volume_id, vstatus.EXTENDING,
        {'size': new_size, 'error_reason': reason, 'target_size': None})
    rows = db_api.connection_of(context).execute(
        sa.select(_VA_TABLE.c.id, _VA_TABLE.c.connection_info,
                  _VA_TABLE.c.error_reason).where(
            _VA_TABLE.c.volume_id == volume_id,
            _VA_TABLE.c.deleted == sa.false())).all()
    for row in rows:
        values = {}
        info = _with_size(row.connection_info, new_size)
        if info != row.connection_info:
            values['connection_info'] = info
        if row.id in not_updated:
            values['error_reason'] = not_updated[row.id]
        elif (row.error_reason or '').startswith(EXTEND_REASON_PREFIX):
            values['error_reason'] = None
        if not values:
            continue
        values['updated_at'] = utcnow()
        # Compare-and-swap on the connection read: one made meanwhile
        # (nothing in cinder_ma makes one while the volume is extending)
        # reached the grown volume and is left as it is.
        column = _VA_TABLE.c.connection_info
        db_api.connection_of(context).execute(
            sa.update(_VA_TABLE).where(
                _VA_TABLE.c.id == row.id,
                _VA_TABLE.c.deleted == sa.false(),
                column.is_(None) if row.connection_info is None
                else column == row.connection_info).values(**values))
    return status
