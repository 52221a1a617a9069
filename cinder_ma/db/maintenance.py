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

"""Database work of ``cinder-ma-manage``: purging soft-deleted rows and
finding stuck or inconsistent volumes and attachments."""

import dataclasses
import datetime

from oslo_utils import timeutils
import sqlalchemy as sa

from cinder_ma.db import api as db_api
from cinder_ma.db import models
from cinder_ma.db import records
from cinder_ma import exception
from cinder_ma import status as vstatus

#: Tables purged, children before their parents.
PURGE_ORDER = (
    (models.VolumeMetadata, ()),
    (models.VolumeAttachment, ()),
    (models.Transfer, ()),
    (models.Volume, ((models.VolumeMetadata, 'volume_id'),
                     (models.VolumeAttachment, 'volume_id'),
                     (models.Transfer, 'volume_id'))),
    (models.VolumeTypeExtraSpecs, ()),
    (models.VolumeTypeProjects, ()),
    (models.Encryption, ()),
    (models.VolumeType, ((models.VolumeTypeExtraSpecs, 'volume_type_id'),
                         (models.VolumeTypeProjects, 'volume_type_id'),
                         (models.Encryption, 'volume_type_id'),
                         (models.Volume, 'volume_type_id'))),
    (models.Service, ()),
    (models.Message, ()),
)

#: Volume statuses that a flow passes through and leaves.
TRANSITIONAL_VOLUME_STATUSES = (
    vstatus.CREATING, vstatus.DELETING, vstatus.EXTENDING, vstatus.RETYPING,
    vstatus.ATTACHING, vstatus.DETACHING)
#: Attachment statuses that a flow passes through and leaves.
TRANSITIONAL_ATTACH_STATUSES = (
    vstatus.ATTACH_RESERVED, vstatus.ATTACH_ATTACHING,
    vstatus.ATTACH_DETACHING)


@db_api.writer
def purge_deleted_rows(context, before):
    """Delete the rows soft-deleted before ``before`` (a naive UTC
    datetime). A deleted parent still referenced by a row (deleted later,
    or live) is kept.

    :returns: ``{table name: rows deleted}``.
    """
    counts = {}
    for model, children in PURGE_ORDER:
        conditions = [model.deleted == sa.true(),
                      model.deleted_at < before]
        pk = sa.inspect(model).primary_key[0]
        for child, column in children:
            conditions.append(~sa.exists().where(
                getattr(child, column) == pk))
        result = db_api.connection_of(context).execute(
            sa.delete(model.__table__).where(*conditions))
        counts[model.__tablename__] = result.rowcount
    return counts


def _older_than(model, seconds):
    since = timeutils.utcnow() - datetime.timedelta(seconds=seconds)
    return sa.func.coalesce(model.updated_at, model.created_at) < since


@dataclasses.dataclass(frozen=True, slots=True)
class Stuck:
    """A volume or an attachment stuck in a transitional status:
    ``host`` is an attachment's manager host (else its attached host),
    ``updated_at`` its last change (else its creation), ``volume_id``
    an attachment's volume (None for a volume)."""

    id: str
    status: str
    host: object
    updated_at: object
    volume_id: object = None


@dataclasses.dataclass(frozen=True, slots=True)
class Inconsistency:
    """A volume whose recorded state disagrees with its attachments."""

    id: str
    status: str
    expected: str
    attach_count: int
    live: int


@db_api.reader
def stuck(context, older_than):
    """Volumes and attachments left in a transitional status for more
    than ``older_than`` seconds.

    :returns: ``(volumes, attachments)``, lists of :class:`Stuck`.
    """
    vol, att = models.Volume, models.VolumeAttachment
    volumes = db_api.connection_of(context).execute(
        sa.select(vol.id, vol.status, vol.host,
                  sa.func.coalesce(vol.updated_at, vol.created_at)
                  .label('updated_at'))
        .where(vol.deleted == sa.false(),
               vol.status.in_(TRANSITIONAL_VOLUME_STATUSES),
               _older_than(vol, older_than))
        .order_by(vol.created_at, vol.id)).all()
    attachments = db_api.connection_of(context).execute(
        sa.select(att.id, att.volume_id, att.attach_status.label('status'),
                  sa.func.coalesce(att.manager_host, att.attached_host)
                  .label('host'),
                  sa.func.coalesce(att.updated_at, att.created_at)
                  .label('updated_at'))
        .where(att.deleted == sa.false(),
               att.attach_status.in_(TRANSITIONAL_ATTACH_STATUSES),
               _older_than(att, older_than))
        .order_by(att.created_at, att.id)).all()
    return ([Stuck(*row) for row in volumes],
            [Stuck(row.id, row.status, row.host, row.updated_at,
                   row.volume_id) for row in attachments])


@db_api.reader
def inconsistent(context):
    """Volumes whose recorded state disagrees with their attachments:
    an attachment-derived status other than
    :func:`cinder_ma.status.derive` of them, or a live-attachment
    count (the reservation counter) other than their number.

    :returns: :class:`Inconsistency` records.
    """
    vol, att = models.Volume, models.VolumeAttachment
    rows = db_api.connection_of(context).execute(
        sa.select(vol.id, vol.status, vol.attach_count, att.attach_status,
                  att.detach_begun_at)
        .outerjoin(att, sa.and_(att.volume_id == vol.id,
                                att.deleted == sa.false()))
        .where(vol.deleted == sa.false())
        .order_by(vol.created_at, vol.id)).all()
    volumes = {}
    for row in rows:
        _row, statuses = volumes.setdefault(row.id, (row, []))
        if row.attach_status is not None:
            statuses.append(vstatus.counted_status(row.attach_status,
                                                   row.detach_begun_at))
    found = []
    for row, statuses in volumes.values():
        expected = vstatus.derive(statuses)
        live = sum(1 for s in statuses
                   if s in vstatus.LIVE_ATTACH_STATUSES)
        status_wrong = (row.status in vstatus.ATTACHABLE_STATUSES and
                        row.status != expected)
        if status_wrong or row.attach_count != live:
            found.append(Inconsistency(row.id, row.status, expected,
                                       row.attach_count, live))
    return found


@db_api.reader
def live_attachments(context):
    """Every attachment that is not deleted, with its volume's host.

    :returns: ``[(attachment record, volume host)]``.
    """
    att, vol = models.VolumeAttachment, models.Volume
    rows = db_api.connection_of(context).execute(
        sa.select(att.__table__, vol.host.label('volume__host'))
        .join(vol, vol.id == att.volume_id)
        .where(att.deleted == sa.false())
        .order_by(att.created_at, att.id)).all()
    return [(records.attachment_from_row(row), row.volume__host)
            for row in rows]


@db_api.writer
def volume_reset_status(context, volume_id, status, from_status):
    """Set a volume's status by hand, compare-and-swap on
    ``from_status``; an attachment-derived status only when the volume's
    attachments give it (checked in the same transaction).

    :raises InvalidInput: ``status`` is attachment-derived and is not
        what the attachments give.
    :raises Conflict: the volume is no longer in ``from_status``.
    """
    att = models.VolumeAttachment
    statuses = [vstatus.counted_status(*row) for row in
                db_api.connection_of(context).execute(
                    sa.select(att.attach_status, att.detach_begun_at).where(
                        att.volume_id == volume_id,
                        att.deleted == sa.false()))]
    expected = vstatus.derive(statuses)
    if status in vstatus.ATTACHABLE_STATUSES and status != expected:
        live = [s for s in statuses if s in vstatus.LIVE_ATTACH_STATUSES]
        raise exception.InvalidInput(
            reason='volume %s cannot be %s: its %d live attachment(s) '
                   '(%s) give %s, and a volume\'s attachment status is '
                   'derived from its attachments; reset or detach the '
                   'attachments instead' % (
                       volume_id, status, len(live),
                       ', '.join(sorted(live)) or 'none', expected))
    values = {'status': status}
    if status in vstatus.ATTACHABLE_STATUSES:
        values['error_reason'] = None
    if not db_api.conditional_update(context, models.Volume,
                                     volume_id, values,
                                     {'status': from_status}):
        raise exception.Conflict(
            reason='volume %s changed while its status was reset' %
                   volume_id)
