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

"""Database API of volume transfers (Cinder's ``transfers``).

A transfer offers a volume of its project (``source_project_id``) to
whoever presents its authorization key, of which the row keeps a salted
hash only. Every step is one transaction of compare-and-swap UPDATEs:

* create: the volume goes ``available`` -> ``awaiting-transfer`` only
  while it has no live attachment (``attach_count = 0``, the counter the
  reservations move in their own compare-and-swap), and the transfer row
  is added;
* delete: the transfer is soft-deleted and the volume goes back to
  ``available``;
* accept: the transfer is marked accepted (and soft-deleted, as Cinder
  does) while it is still pending, the volume changes project and goes
  back to ``available``, its snapshots change project with it (unless
  the transfer was offered with ``no_snapshots``), and the quota usage
  moves from the donor to the recipient (``quota`` hook), all or
  nothing: two accepts, or an accept and a delete, of one transfer
  cannot both win.

As in Cinder, a volume offered with its snapshots (``no_snapshots``
false, the default) must have every snapshot ``available``, when offered
and when accepted; with ``no_snapshots`` its snapshots stay in the
donor's project, whatever their status.

Readers return :class:`cinder_ma.db.records.Transfer` records; every
statement is a Core statement of the tables, run on the transaction's
connection.
"""

import uuid

import sqlalchemy as sa

from cinder_ma.db.api import conditional_update
from cinder_ma.db.api import connection_of
from cinder_ma.db.api import deleted_values
from cinder_ma.db.api import paginate
from cinder_ma.db.api import reader
from cinder_ma.db.api import utcnow
from cinder_ma.db.api import writer
from cinder_ma.db import models
from cinder_ma.db import records
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma import status as vstatus

_TRANSFER = models.Transfer
_VOLUME = models.Volume
_SNAPSHOT = models.Snapshot

#: Sort keys of transfer lists (``name`` is taken for ``display_name``).
SORT_KEYS = ('id', 'created_at', 'updated_at', 'display_name', 'volume_id')


_TABLE = _TRANSFER.__table__
_LIVE = sa.select(_TABLE).where(_TABLE.c.deleted == sa.false())


def _live(project_id=None):
    """The Core select of the pending transfers (of a project)."""
    if project_id is None:
        return _LIVE
    return _LIVE.where(_TABLE.c.source_project_id == project_id)


def _check_snapshots(snapshots):
    """:raises InvalidSnapshot: one of ``snapshots`` is not available
    (Cinder's message)."""
    for snapshot in snapshots:
        if snapshot.status != vstatus.SNAPSHOT_AVAILABLE:
            raise exception.InvalidSnapshot(
                reason='snapshot: %s status must be available'
                       % snapshot.id)


def _get_row(context, transfer_id, project_id=None):
    row = connection_of(context).execute(
        _live(project_id).where(_TABLE.c.id == transfer_id)).first()
    if row is None:
        raise exception.TransferNotFound(transfer_id=transfer_id)
    return row


@writer
def transfer_create(context, volume_id, project_id, display_name, salt,
                    crypt_hash, no_snapshots=False):
    """Offer a volume of ``project_id``: it goes ``awaiting-transfer``.

    :param no_snapshots: the volume goes without its snapshots;
        otherwise every snapshot of it must be ``available``.
    :raises VolumeNotFound: no volume of that id in that project.
    :raises InvalidVolume: the volume is not ``available`` or has a live
        attachment (one reserved meanwhile included).
    :raises InvalidSnapshot: a snapshot of the volume is not
        ``available`` (and ``no_snapshots`` is false).
    """
    if not conditional_update(
            context, _VOLUME, volume_id,
            {'status': vstatus.AWAITING_TRANSFER},
            expected={'project_id': project_id,
                      'status': vstatus.AVAILABLE, 'attach_count': 0}):
        volume = volume_db.volume_get_in_txn(context, volume_id,
                                             project_id, children=False)
        if volume.attach_count:
            raise exception.InvalidVolume(
                reason='volume %s has attachments; a volume with '
                       'attachments cannot be transferred' % volume_id)
        raise exception.InvalidVolume(
            reason="Volume's status must be available, not %s"
                   % volume.status)
    # The volume's row is locked by the update above: no snapshot of it
    # is created or starts being deleted until this transaction ends.
    if not no_snapshots:
        _check_snapshots(snapshot_db.snapshots_of_volume_in_txn(context,
                                                                volume_id))
    transfer_id = str(uuid.uuid4())
    connection_of(context).execute(sa.insert(_TABLE), {
        'id': transfer_id, 'volume_id': volume_id,
        'display_name': display_name, 'salt': salt,
        'crypt_hash': crypt_hash, 'no_snapshots': bool(no_snapshots),
        'source_project_id': project_id, 'accepted': False})
    # As stored (MySQL keeps times to the second).
    return records.from_row(records.Transfer,
                            _get_row(context, transfer_id))


@reader
def transfer_get(context, transfer_id, project_id=None):
    """A pending transfer (of volumes of ``project_id`` when given).

    :raises TransferNotFound:
    """
    return records.from_row(records.Transfer,
                            _get_row(context, transfer_id, project_id))


@reader
def transfer_get_secret(context, transfer_id):
    """(salt, crypt_hash) of a pending transfer.

    :raises TransferNotFound:
    """
    row = _get_row(context, transfer_id)
    return row.salt, row.crypt_hash


@reader
def transfer_get_all(context, project_id=None, marker=None, limit=None,
                     offset=None, sort_keys=None, sort_dirs=None):
    """A page of pending transfers (of ``project_id`` when given), newest
    first unless sorted otherwise.

    :raises InvalidSortKey: a sort key outside :data:`SORT_KEYS`.
    :raises MarkerNotFound: no visible transfer has the marker's id.
    """
    sort_keys = [('display_name' if key == 'name' else key)
                 for key in (sort_keys or [])] or None
    visible = _live(project_id)
    connection = connection_of(context)
    statement = paginate(connection, visible, _TRANSFER, visible, marker,
                         limit, sort_keys, sort_dirs, SORT_KEYS,
                         'created_at', 'desc')
    if offset:
        statement = statement.offset(offset)
    return records.from_result(records.Transfer,
                               connection.execute(statement))


def _back_to_available(context, volume_id, values=None):
    values = dict(values or {})
    values['status'] = vstatus.AVAILABLE
    return conditional_update(
        context, _VOLUME, volume_id, values,
        expected={'status': vstatus.AWAITING_TRANSFER})


@writer
def transfer_destroy(context, transfer_id, project_id=None):
    """Withdraw a pending transfer; its volume is ``available`` again.

    :raises TransferNotFound: none pending of that id (in that project).
    :returns: the transfer as it was.
    """
    transfer = records.from_row(records.Transfer,
                                _get_row(context, transfer_id, project_id))
    if not conditional_update(context, _TRANSFER, transfer.id,
                              deleted_values(_TRANSFER)):
        raise exception.TransferNotFound(transfer_id=transfer_id)
    _back_to_available(context, transfer.volume_id)
    return transfer


@writer
def transfer_accept(context, transfer_id, user_id, project_id, quota=None):
    """Give the volume of a pending transfer to ``project_id``, with its
    snapshots unless the transfer was offered with ``no_snapshots``.

    :param quota: called as ``quota(context, volume, snapshots)`` (their
        records)
        in the transaction, before the volume and the snapshots that go
        with it (an empty list with ``no_snapshots``) change hands (to
        move the usage); what it raises rolls everything back.
    :raises TransferNotFound: none pending of that id (accepted or
        withdrawn meanwhile).
    :raises InvalidVolume: its volume is no longer awaiting the transfer.
    :raises InvalidSnapshot: a snapshot that goes with the volume is not
        ``available``.
    :returns: the transfer, accepted.
    """
    transfer = records.from_row(records.Transfer,
                                _get_row(context, transfer_id))
    now = utcnow()
    values = deleted_values(_TRANSFER, now)
    values.update(accepted=True, destination_project_id=project_id)
    if not conditional_update(context, _TRANSFER, transfer.id,
                              values):
        raise exception.TransferNotFound(transfer_id=transfer_id)
    try:
        volume = volume_db.volume_get_in_txn(context, transfer.volume_id,
                                             children=False)
    except exception.VolumeNotFound:
        volume = None
    if volume is None or volume.status != vstatus.AWAITING_TRANSFER:
        raise exception.InvalidVolume(
            reason='volume %s is not awaiting transfer' % transfer.volume_id)
    snapshots = []
    if not transfer.no_snapshots:
        snapshots = snapshot_db.snapshots_of_volume_in_txn(context,
                                                           volume.id)
        _check_snapshots(snapshots)
    if quota is not None:
        quota(context, volume, snapshots)
    if not _back_to_available(context, volume.id,
                              {'project_id': project_id,
                               'user_id': user_id}):
        raise exception.InvalidVolume(
            reason='volume %s is not awaiting transfer' % transfer.volume_id)
    if snapshots:
        # Compare-and-swap: each snapshot still available and live (a
        # delete of one of them that began meanwhile loses, or wins and
        # this accept is refused and rolled back).
        snapshot_table = _SNAPSHOT.__table__
        moved = connection_of(context).execute(
            sa.update(snapshot_table).where(
                snapshot_table.c.id.in_([snapshot.id
                                         for snapshot in snapshots]),
                snapshot_table.c.deleted == sa.false(),
                snapshot_table.c.status == vstatus.SNAPSHOT_AVAILABLE)
            .values(project_id=project_id, user_id=user_id,
                    updated_at=now)).rowcount
        if moved != len(snapshots):
            raise exception.InvalidSnapshot(
                reason='a snapshot of volume %s changed while transfer %s '
                       'was accepted' % (volume.id, transfer.id))
    return transfer._replace(accepted=True,
                             destination_project_id=project_id)
