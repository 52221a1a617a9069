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

"""Claims on in-flight work: who runs a transient status, until when.

A volume in ``creating``, ``deleting`` or ``extending`` and an attachment
in ``reserved``, ``attaching`` or ``detaching`` are work that must be
finished: the status, recorded before the request was answered, is the
intent. The process that runs that work claims the row first, with a
compare-and-swap UPDATE that succeeds only when nobody holds a valid
claim, and renews its claims while it lives (one UPDATE per table per
heartbeat) while the flow runs. A claim is ``<worker id>:<token>``: the
worker id names the process (a fresh uuid at every start), the token one
flow, so that two flows of one process never run the same work.

Work nobody holds is *stuck* when its claim expired (its owner died or
lost the database for longer than the lease) or when it was never claimed
and has not changed for a lease (its cast was lost). A manager's
reconcile loop (:mod:`cinder_ma.manager.reconcile`) claims stuck work it
can do and finishes or rolls it back. A live owner renews its claim, so
its work is never taken from it.
"""

import datetime
import functools
import uuid

import sqlalchemy as sa

from cinder_ma.db.api import connection_of
from cinder_ma.db.api import reader
from cinder_ma.db.api import utcnow
from cinder_ma.db.api import writer
from cinder_ma.db import models
from cinder_ma.db import records
from cinder_ma import status as vstatus

#: Transient statuses: work a process must finish.
VOLUME_WORK = (vstatus.CREATING, vstatus.DELETING, vstatus.EXTENDING,
               vstatus.REVERTING)
ATTACHMENT_WORK = (vstatus.ATTACH_RESERVED, vstatus.ATTACH_ATTACHING,
                   vstatus.ATTACH_DETACHING)

#: A snapshot's: made, deleted, or a volume reverted to it.
SNAPSHOT_WORK = (vstatus.SNAPSHOT_CREATING, vstatus.SNAPSHOT_DELETING,
                 vstatus.SNAPSHOT_RESTORING)

_MODELS = {'volume': models.Volume, 'attachment': models.VolumeAttachment,
           'snapshot': models.Snapshot}
_STATUS = {'volume': models.Volume.status,
           'attachment': models.VolumeAttachment.attach_status,
           'snapshot': models.Snapshot.status}


def new_worker_id():
    """The id of a process that claims work (fresh at every start)."""
    return uuid.uuid4().hex


def owner_token(worker_id):
    """A claim of ``worker_id`` for one flow."""
    return '%s:%s' % (worker_id, uuid.uuid4().hex[:16])


def worker_of(owner):
    """The worker id of a claim (None for None)."""
    return owner.split(':', 1)[0] if owner else None


def _seconds(value):
    return datetime.timedelta(seconds=value)


def _claimable(model, now, stale_before=None):
    """Nobody holds a valid claim; with ``stale_before``, the row must
    also be stuck (never claimed and unchanged since then, or its claim
    expired)."""
    expired = sa.and_(model.claimed_by.isnot(None),
                      model.claimed_until < now)
    if stale_before is None:
        return sa.or_(model.claimed_by.is_(None), expired)
    # A row inserted in its transient status has no updated_at yet.
    changed = sa.func.coalesce(model.updated_at, model.created_at)
    return sa.or_(sa.and_(model.claimed_by.is_(None),
                          changed < stale_before), expired)


@functools.cache
def _claim_statement(kind, stale, handover=False, pending=False):
    """The compare-and-swap of :func:`claim` (parameters ``row_id``,
    ``statuses``, ``now``, ``owner``, ``until`` and, when ``stale``,
    ``stale_before``; with ``handover``, ``handover``; with ``pending``,
    ``pending``), built once per kind and shape."""
    model = _MODELS[kind]
    stale_before = sa.bindparam('stale_before') if stale else None
    claimable = _claimable(model, sa.bindparam('now'), stale_before)
    if handover:
        claimable = sa.or_(claimable,
                           model.claimed_by == sa.bindparam('handover'))
    values = {'claimed_by': sa.bindparam('owner'),
              'claimed_until': sa.bindparam('until')}
    if pending:
        values['pending_work'] = sa.bindparam('pending')
    return sa.update(model.__table__).where(
        model.id == sa.bindparam('row_id'), model.deleted == sa.false(),
        _STATUS[kind].in_(sa.bindparam('statuses', expanding=True)),
        claimable).values(**values)


@writer
def claim(context, kind, row_id, owner, statuses, lease,
          stale_before=None, handover=None, pending=None):
    """Claim a volume's or attachment's work, compare-and-swap.

    :param kind: 'volume', 'attachment' or 'snapshot'.
    :param owner: the claim (:func:`owner_token`).
    :param statuses: the row must be in one of them.
    :param lease: seconds the claim holds unless renewed.
    :param stale_before: only stuck work (see :func:`_claimable`).
    :param handover: a claim that ``owner`` takes over from its holder,
        valid or not (the API process that reserved an attachment hands
        its claim to the manager that connects it).
    :param pending: (attachments) the flow ``owner`` runs, a dict with
        ``op``, recorded with the claim for the reconcile loop (see
        :func:`stuck_attachments`); cleared by :func:`release`.
    :returns: True when ``owner`` now holds the claim.
    """
    now = utcnow()
    params = {'row_id': row_id, 'statuses': list(statuses), 'now': now,
              'owner': owner, 'until': now + _seconds(lease)}
    if stale_before is not None:
        params['stale_before'] = stale_before
    if handover is not None:
        params['handover'] = handover
    if pending is not None:
        params['pending'] = records.dumps(pending)
    result = connection_of(context).execute(
        _claim_statement(kind, stale_before is not None,
                         handover is not None, pending is not None),
        params)
    return result.rowcount == 1


def claim_values(owner, lease, pending):
    """The values of an attachment INSERT that claims it for ``owner``
    with the flow ``pending`` (see :func:`claim`), as the API's one-step
    create does before it hands the claim to a manager."""
    return {'claimed_by': owner,
            'claimed_until': utcnow() + _seconds(lease),
            'pending_work': records.dumps(pending)}


@functools.cache
def _release_statement(kind):
    model = _MODELS[kind]
    values = {'claimed_by': None, 'claimed_until': None}
    if kind == 'attachment':
        values['pending_work'] = None
    return sa.update(model.__table__).where(
        model.id == sa.bindparam('row_id'),
        model.claimed_by == sa.bindparam('owner')).values(**values)


@writer
def release(context, kind, row_id, owner):
    """Give a claim up (deleted rows included), and an attachment's
    pending flow with it; a no-op when ``owner`` does not hold it."""
    connection_of(context).execute(_release_statement(kind),
                            {'row_id': row_id, 'owner': owner})


def release_values(kind, owner):
    """The values of an UPDATE of a volume or attachment row that also
    give up ``owner``'s claim on it (as :func:`release`, in the same
    statement; a claim of another owner is left as it is)."""
    # On the table's columns: cheaper to build than on the model's
    # attributes, for the same SQL.
    table = _MODELS[kind].__table__
    held = table.c.claimed_by == owner
    return {'claimed_by': sa.case((held, sa.null()),
                                  else_=table.c.claimed_by),
            'claimed_until': sa.case((held, sa.null()),
                                     else_=table.c.claimed_until)}


@writer
def renew(context, owners, lease):
    """Extend the claims ``owners`` (the flows a process is running) by
    ``lease`` seconds from now. A claim whose flow ended without giving it
    up (its release could not be written) is not renewed: it expires.

    :returns: how many claims were renewed.
    """
    owners = list(owners)
    if not owners:
        return 0
    until = utcnow() + _seconds(lease)
    count = 0
    for model in _MODELS.values():
        count += connection_of(context).execute(
            sa.update(model).where(
                model.claimed_by.in_(owners),
                model.deleted == sa.false())
            .values(claimed_until=until)
            .execution_options(synchronize_session=False)).rowcount
    return count


def _stale(model, lease):
    now = utcnow()
    return _claimable(model, now, now - _seconds(lease))


@reader
def stuck_volumes(context, lease):
    """Volumes in a transient status nobody works on (see the module)."""
    model = models.Volume
    return connection_of(context).execute(
        sa.select(model.id, model.status, model.host, model.claimed_by,
                  model.target_size, model.updated_at).where(
            model.deleted == sa.false(),
            model.status.in_(VOLUME_WORK),
            _stale(model, lease)).order_by(model.updated_at)).all()


@reader
def stuck_attachments(context, lease):
    """Attachments in a transient status nobody works on, and those whose
    pending flow (``pending_work``) lost its claim, with the host of their
    volume (``volume_host``).

    Among the first, those without a ``manager_host`` that are
    ``reserved`` are resting states of external consumers, not work: left
    out, unless a flow is pending on them.
    """
    va = models.VolumeAttachment
    volume = models.Volume
    now = utcnow()
    transient = sa.and_(
        va.attach_status.in_(ATTACHMENT_WORK),
        sa.or_(va.manager_host.isnot(None),
               va.attach_status == vstatus.ATTACH_DETACHING),
        _stale(va, lease))
    pending = sa.and_(va.pending_work.isnot(None),
                      _claimable(va, now, now - _seconds(lease)))
    return connection_of(context).execute(
        sa.select(va.id, va.attach_status, va.volume_id, va.manager_host,
                  va.claimed_by, va.updated_at, va.pending_work,
                  volume.host.label('volume_host')).join(
            volume, volume.id == va.volume_id).where(
            va.deleted == sa.false(),
            sa.or_(transient, pending)).order_by(va.updated_at)).all()


@reader
def stuck_snapshots(context, lease):
    """Snapshots in a transient status nobody works on, with the host of
    their volume (``volume_host``) and its status (``volume_status``).

    A snapshot ``deleting`` with its volume (a cascade) is the volume's
    delete flow's work, and a snapshot ``restoring`` the revert flow's of
    its volume: the reconcile loop finishes them through their volume.
    """
    snapshot = models.Snapshot
    volume = models.Volume
    return connection_of(context).execute(
        sa.select(snapshot.id, snapshot.status, snapshot.volume_id,
                  snapshot.claimed_by, snapshot.updated_at,
                  volume.host.label('volume_host'),
                  volume.status.label('volume_status')).join(
            volume, volume.id == snapshot.volume_id).where(
            snapshot.deleted == sa.false(),
            snapshot.status.in_(SNAPSHOT_WORK),
            _stale(snapshot, lease)).order_by(snapshot.updated_at)).all()


@reader
def claim_of(context, kind, row_id):
    """``(claimed_by, claimed_until)`` of a row (deleted included), or
    None."""
    model = _MODELS[kind]
    row = connection_of(context).execute(
        sa.select(model.claimed_by, model.claimed_until).where(
            model.id == row_id)).first()
    return tuple(row) if row is not None else None
