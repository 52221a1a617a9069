"""Database API of volume attachments.

Every attachment transition runs in one writer transaction that starts
with a compare-and-swap UPDATE of the volume row. That UPDATE carries the
reservation rules in its WHERE clause, changes the live-attachment count,
and takes the volume's row lock, so that concurrent transitions of one
volume serialize on every database; the transaction then changes the
attachment (itself compare-and-swap on its status) and writes the volume
status that status.derive() gives for the attachments now present.
"""

import uuid

from oslo_serialization import jsonutils
import sqlalchemy as sa

from cinder_ma.db import api as db_api
from cinder_ma.db.api import _now
from cinder_ma.db.api import _volume_get
from cinder_ma.db.api import conditional_update
from cinder_ma.db.api import reader
from cinder_ma.db.api import writer
from cinder_ma.db import models
from cinder_ma import exception
from cinder_ma.volume import status as vstatus


def _attachment_query(context, project_id=None):
    query = context.session.query(models.VolumeAttachment).filter(
        models.VolumeAttachment.deleted == sa.false())
    if project_id is not None:
        query = query.join(
            models.Volume,
            models.Volume.id == models.VolumeAttachment.volume_id).filter(
                models.Volume.project_id == project_id)
    return query


# The statements of the attach hot path are built once, with bound
# parameters: SQLAlchemy then skips building them and their cache keys on
# every call.
_VA = models.VolumeAttachment
_GET_ATTACHMENT = sa.select(_VA).where(
    _VA.id == sa.bindparam('attachment_id'),
    _VA.deleted == sa.false()).execution_options(populate_existing=True)
_GET_PROJECT_ATTACHMENT = _GET_ATTACHMENT.join(
    models.Volume, models.Volume.id == _VA.volume_id).where(
        models.Volume.project_id == sa.bindparam('project_id'))
_ATTACH_STATUSES = sa.select(_VA.attach_status).distinct().where(
    _VA.volume_id == sa.bindparam('volume_id'), _VA.deleted == sa.false())
_SET_DERIVED_STATUS = sa.update(models.Volume).where(
    models.Volume.id == sa.bindparam('volume_id'),
    models.Volume.status.in_(vstatus.ATTACHABLE_STATUSES)).values(
        status=sa.bindparam('new_status'))


_LOCK_VOLUME = {
    delta: sa.update(models.Volume).where(
        models.Volume.id == sa.bindparam('volume_id'),
        models.Volume.deleted == sa.false(),
        models.Volume.status.in_(vstatus.ATTACHABLE_STATUSES)).values(
            updated_at=sa.bindparam('now_'),
            **({'attach_count': models.Volume.attach_count + delta}
               if delta else {})).execution_options(
                   synchronize_session=False)
    for delta in (-1, 0, 1)}


def _attachment_get(context, attachment_id, project_id=None):
    if project_id is None:
        attachment = context.session.execute(
            _GET_ATTACHMENT, {'attachment_id': attachment_id}
        ).scalars().first()
    else:
        attachment = context.session.execute(
            _GET_PROJECT_ATTACHMENT, {'attachment_id': attachment_id,
                                      'project_id': project_id}
        ).scalars().first()
    if attachment is None:
        raise exception.VolumeAttachmentNotFound(
            filter='attachment_id = %s' % attachment_id)
    return attachment


def _recompute_volume_status(context, volume_id):
    statuses = [row[0] for row in context.session.execute(
        _ATTACH_STATUSES, {'volume_id': volume_id})]
    new_status = vstatus.derive(statuses)
    context.session.execute(_SET_DERIVED_STATUS,
                            {'volume_id': volume_id,
                             'new_status': new_status})
    return new_status


def _lock_volume(context, volume_id, live_delta=0, extra_where=(),
                 ordered_values=()):
    """The compare-and-swap UPDATE that starts an attachment transition.

    :returns: True when the volume is in an attachable status and every
        condition of ``extra_where`` held.
    """
    volume = models.Volume
    if not extra_where and not ordered_values:
        result = context.session.execute(
            _LOCK_VOLUME[live_delta],
            {'volume_id': volume_id, 'now_': _now()})
        return result.rowcount == 1
    assignments = list(ordered_values)
    if live_delta:
        assignments.append((volume.attach_count,
                            volume.attach_count + live_delta))
    assignments.append((volume.updated_at, _now()))
    query = sa.update(volume).where(
        volume.id == volume_id,
        volume.deleted == sa.false(),
        volume.status.in_(vstatus.ATTACHABLE_STATUSES),
        *extra_where).ordered_values(*assignments)
    result = context.session.execute(
        query.execution_options(synchronize_session=False))
    return result.rowcount == 1


def _reservation_refusal(context, volume_id, instance_uuid,
                         max_attachments):
    volume = _volume_get(context, volume_id)
    if volume.status not in vstatus.ATTACHABLE_STATUSES:
        return exception.InvalidVolume(
            reason='volume %s is %s; attachments can only be made to a '
                   'volume that is one of %s' % (
                       volume_id, volume.status,
                       ', '.join(vstatus.ATTACHABLE_STATUSES)))
    if (max_attachments is not None and
            volume.attach_count >= max_attachments):
        return exception.InvalidVolume(
            reason='volume %s already has %d attachments, the most its '
                   'volume type allows (multiattach:max_attachments)' % (
                       volume_id, volume.attach_count))
    if not volume.multiattach:
        return exception.InvalidVolume(
            reason='volume %s is not multiattach and is already attached '
                   'to instance %s; it cannot be attached to instance %s' % (
                       volume_id, volume.reserved_instance_uuid,
                       instance_uuid))
    return exception.Conflict(reason='volume %s changed concurrently' %
                              volume_id)


@writer
def attachment_reserve(context, volume_id, instance_uuid, attach_mode='rw',
                       connector=None, manager_host=None,
                       max_attachments=None):
    """Reserve an attachment of a volume for an instance.

    A volume that is not multiattach takes attachments for one instance at
    a time (a second one for the same instance is allowed: live migration
    reserves one for the destination host). ``max_attachments`` caps the
    live attachments of a shareable volume. All of it is decided by the
    WHERE clause of one UPDATE, so that concurrent reservations give
    exactly the winners the rules allow, on every database.

    :raises InvalidVolume: with the reason the rules refuse.
    """
    volume = models.Volume
    where = [sa.or_(volume.multiattach == sa.true(),
                    volume.attach_count == 0,
                    volume.reserved_instance_uuid == instance_uuid)]
    if max_attachments is not None:
        where.append(volume.attach_count < max_attachments)
    holder = sa.case((volume.attach_count == 0, instance_uuid),
                     else_=volume.reserved_instance_uuid)
    # reserved_instance_uuid is assigned first: MySQL evaluates SET
    # clauses left to right, seeing values assigned before.
    if not _lock_volume(context, volume_id, live_delta=1,
                        extra_where=where,
                        ordered_values=[(volume.reserved_instance_uuid,
                                         holder)]):
        raise _reservation_refusal(context, volume_id, instance_uuid,
                                   max_attachments)
    attachment = models.VolumeAttachment(
        id=str(uuid.uuid4()), volume_id=volume_id,
        instance_uuid=instance_uuid, attach_mode=attach_mode,
        attach_status=vstatus.ATTACH_RESERVED,
        attached_host=manager_host, manager_host=manager_host,
        connector=jsonutils.dumps(connector) if connector else None)
    context.session.add(attachment)
    context.session.flush()
    _recompute_volume_status(context, volume_id)
    return attachment


def _is_live(status):
    return status in vstatus.LIVE_ATTACH_STATUSES


def _attachment_update(context, attachment_id, values,
                       expected_status=None, not_connected_elsewhere=None):
    current = _attachment_get(context, attachment_id)
    if isinstance(expected_status, str):
        expected_status = (expected_status,)
    if expected_status and current.attach_status not in expected_status:
        raise exception.Conflict(
            reason='attachment %s is %s, expected %s' % (
                attachment_id, current.attach_status,
                ' or '.join(expected_status)))
    values = dict(values)
    for key in ('connector', 'connection_info'):
        if isinstance(values.get(key), dict):
            values[key] = jsonutils.dumps(values[key])
    values.setdefault('updated_at', _now())
    new_status = values.get('attach_status', current.attach_status)
    delta = int(_is_live(new_status)) - int(_is_live(current.attach_status))
    if not _lock_volume(context, current.volume_id, live_delta=delta):
        volume = _volume_get(context, current.volume_id)
        raise exception.InvalidVolume(
            reason='volume %s is %s' % (volume.id, volume.status))
    # The status read above is part of the swap: the count applied to the
    # volume is right only while the attachment is still in that status.
    expected = {'attach_status': current.attach_status}
    if not_connected_elsewhere is not None:
        expected['single_connection'] = _no_other_connection(
            current, not_connected_elsewhere)
    if not conditional_update(context.session, models.VolumeAttachment,
                              attachment_id, values, expected):
        if not_connected_elsewhere is not None:
            other = context.session.query(models.VolumeAttachment.id).filter(
                ~_no_other_connection(current, not_connected_elsewhere)
            ).first()
            if other is not None:
                raise exception.Conflict(
                    reason='instance %s already has volume %s connected on '
                           'host %s (attachment %s)' % (
                               current.instance_uuid, current.volume_id,
                               not_connected_elsewhere, other.id))
        raise exception.Conflict(
            reason='attachment %s changed concurrently' % attachment_id)
    if values.get('instance_uuid'):
        # os-attach names the instance of an os-reserve reservation.
        context.session.execute(
            sa.update(models.Volume)
            .where(models.Volume.id == current.volume_id,
                   models.Volume.reserved_instance_uuid.is_(None))
            .values(reserved_instance_uuid=values['instance_uuid']))
    if delta < 0:
        context.session.execute(
            sa.update(models.Volume)
            .where(models.Volume.id == current.volume_id,
                   models.Volume.attach_count == 0)
            .values(reserved_instance_uuid=None))
    _recompute_volume_status(context, current.volume_id)
    # The row now holds the values: hand them back without reading it
    # again (the object leaves the session so that nothing is flushed).
    context.session.expunge(current)
    for key, value in values.items():
        setattr(current, key, value)
    return current


def _no_other_connection(attachment, host):
    """SQL condition: no other attachment of the same instance and volume
    is connected (or connecting) on ``host``."""
    other = models.VolumeAttachment.__table__.alias('other')
    return ~sa.exists().where(
        other.c.volume_id == attachment.volume_id,
        other.c.instance_uuid == attachment.instance_uuid,
        other.c.attached_host == host,
        other.c.id != attachment.id,
        other.c.deleted == sa.false(),
        other.c.attach_status.in_((vstatus.ATTACH_ATTACHING,
                                   vstatus.ATTACH_ATTACHED)))


@writer
def attachment_update(context, attachment_id, values, expected_status=None,
                      not_connected_elsewhere=None):
    """Move an attachment to a new state, compare-and-swap.

    :param values: columns of the attachment; ``connector`` and
        ``connection_info`` may be dicts.
    :param expected_status: a status or a tuple of the statuses the
        attachment must be in.
    :raises VolumeAttachmentNotFound: no such attachment.
    :raises Conflict: the attachment is not in an expected status.
    :raises InvalidVolume: the volume is not in an attachable status.
    :param not_connected_elsewhere: a host: refuse (409) when another
        attachment of the same instance and volume is connected there,
        in the same compare-and-swap (the double-attach race of Cinder
        bug 1833736).
    :returns: the updated attachment.
    """
    return _attachment_update(context, attachment_id, values,
                              expected_status, not_connected_elsewhere)


@writer
def attachment_destroy(context, attachment_id, expected_status=None):
    """Soft-delete an attachment (recorded as detached) and free its
    reservation.

    :raises Conflict: when ``expected_status`` does not hold.
    """
    now = _now()
    _attachment_update(
        context, attachment_id,
        {'attach_status': vstatus.ATTACH_DETACHED, 'deleted': True,
         'deleted_at': now, 'detach_time': now},
        expected_status=expected_status)


@reader
def attachment_get(context, attachment_id, project_id=None):
    return _attachment_get(context, attachment_id, project_id)


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
    query = _attachment_query(context, project_id)
    for key, value in (filters or {}).items():
        column = _ATTACHMENT_FILTERS.get(key)
        if column is None:
            raise exception.InvalidInput(
                reason='invalid filter key %s' % key)
        if isinstance(value, (list, tuple)):
            query = query.filter(column.in_(value))
        else:
            query = query.filter(column == value)
    query = db_api.paginate(
        query, models.VolumeAttachment,
        _attachment_query(context, project_id), marker, limit, sort_keys,
        sort_dirs, ('id', 'created_at', 'updated_at', 'attach_status',
                    'instance_uuid', 'volume_id', 'attach_time'),
        'created_at', 'desc')
    return query.all()


@reader
def attachment_count_sharing_connection(context, volume_id, host,
                                        exclude_id, service_uuid=None):
    """Live attachments, other than ``exclude_id``, that use a host's
    connection.

    Without ``service_uuid``: attachments of the volume on the host (its
    export to that host). With it (a backend with shared targets): those
    of any volume of that backend on the host, since they share the
    host's connection to the target. A connection is torn down only when
    this is 0.
    """
    query = context.session.query(models.VolumeAttachment.id).filter(
        models.VolumeAttachment.attached_host == host,
        models.VolumeAttachment.id != exclude_id,
        models.VolumeAttachment.deleted == sa.false(),
        models.VolumeAttachment.attach_status.in_(
            (vstatus.ATTACH_ATTACHING, vstatus.ATTACH_ATTACHED,
             vstatus.ATTACH_DETACHING, vstatus.ATTACH_ERROR_DETACHING)))
    if service_uuid is None:
        query = query.filter(models.VolumeAttachment.volume_id == volume_id)
    else:
        query = query.join(
            models.Volume,
            models.Volume.id == models.VolumeAttachment.volume_id).filter(
                models.Volume.service_uuid == service_uuid,
                models.Volume.deleted == sa.false())
    return query.count()


@writer
def volume_leave_status(context, volume_id, from_status, values=None):
    """Move a volume out of a transient status (``extending``) to the
    status its attachments give, compare-and-swap.

    :raises Conflict: the volume is not in ``from_status``.
    """
    volume = models.Volume
    statuses = [row[0] for row in context.session.execute(
        sa.select(models.VolumeAttachment.attach_status).where(
            models.VolumeAttachment.volume_id == volume_id,
            models.VolumeAttachment.deleted == sa.false()))]
    values = dict(values or {})
    values['status'] = vstatus.derive(statuses)
    if not conditional_update(context.session, volume, volume_id, values,
                              {'status': from_status}):
        raise exception.Conflict(
            reason='volume %s is not %s' % (volume_id, from_status))
    return values['status']
