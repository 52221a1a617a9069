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

"""The reconcile loop: managers converge to what the database records.

A request's intent is in the database before it is answered: a volume
``creating``, ``deleting`` or ``extending`` (to ``target_size``), an
attachment ``reserved`` or ``detaching`` for the manager of its instance's
host. The process running that work holds a claim on the row that it
renews while it lives (:mod:`cinder_ma.db.work`). Every
``[manager] reconcile_interval`` seconds each manager looks for work
nobody holds -- its claim expired (its process died) or it was never
claimed within ``[manager] work_lease_time`` (its cast was lost) -- that it
can do, claims it (compare-and-swap, so one manager wins) and:

* a volume ``creating``: deletes what an interrupted run may have left of
  its storage and runs the create flow again;
* ``deleting``: runs the delete flow again (every step is idempotent);
* ``extending``: runs the extend flow to ``target_size`` again (or gives
  the volume its status back when no size was recorded);
* ``reverting``: runs the revert flow to its snapshot left ``restoring``
  again (a copy of the snapshot over the volume: idempotent), or sets
  the volume ``error`` when no such snapshot is left;
* a snapshot ``creating``: deletes what an interrupted run may have left
  of it and takes it again (its volume's data as it is now: the
  snapshot's point in time is when it becomes ``available``);
* a snapshot ``deleting`` (but one deleted with its volume, which the
  volume's delete flow does): runs the delete flow again;
* an attachment ``reserved`` through a manager: runs the attach flow;
* ``attaching`` through a manager: rolls the interrupted attach back
  (disk, host connection, backend connection, unless another attachment
  on the host uses them) to ``reserved``, then runs the attach flow;
* ``detaching`` through a manager: runs the detach flow again;
* ``attached`` through a manager, its promotion interrupted (recorded in
  ``pending_work``, as an external consumer's below): runs the host's
  promotion flow again (promoting again finishes a promotion);
* an external consumer's attachment, by the manager of the volume's
  backend, which runs its flows under a claim and records which one in
  ``pending_work``: ``detaching`` (the process that deleted it died) is
  deleted, its connection terminated unless still used; an interrupted
  connect is reverted (the connection it may have made ended unless
  used; the reservation of a one-step create released, any other kept);
  an interrupted terminate, fence or promotion is run again; an
  interrupted reconnection is reverted (the attachment stays fenced).

A volume's work is done by the manager of its backend, an attachment's by
the manager of its instance's host: a restarted manager, a sibling process
of the same host (the workers of cinder-ma-all), never a manager that
cannot reach what the work touches. An attachment made through a manager
waits while the manager of its volume's backend is down (no heartbeat):
its flows would only fail to reach it. That includes the first seconds
after a database outage, until the managers' heartbeats are written
again. Failures are recorded by the flows as always (error statuses with
their reason), except those to reach the database, the broker or a
manager, which leave the work for a later pass; an exception of one item
never stops the loop.
"""

import datetime

from oslo_config import cfg
from oslo_log import log as logging

from cinder_ma.db.api import utcnow
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import records
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import work as work_db
from cinder_ma import exception
from cinder_ma.manager import rpcapi
from cinder_ma import status as vstatus

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


def _stale_before():
    return utcnow() - datetime.timedelta(seconds=CONF.manager.work_lease_time)


def _takes_volume(manager, row):
    return manager._can_serve_volume(row.host)


def _takes_attachment(manager, row):
    if row.manager_host and _pending_op(row) != 'fence':
        return row.manager_host == manager.host
    return manager._can_serve_volume(row.volume_host)


def _pending_op(row):
    """The flow pending on an attachment row (see
    :func:`cinder_ma.db.work.stuck_attachments`), or None."""
    return (records.loads(row.pending_work) or {}).get('op')


def _backend_up(context, row, known):
    """Whether the manager of the attachment's volume's backend is up (or
    not registered: then its flows find out), asked once per pass and
    backend (``known``)."""
    if not row.volume_host:
        return True
    host = rpcapi.backend_row(row.volume_host)
    if host not in known:
        try:
            rpcapi.check_up(context, host, rpcapi.VOLUME_BINARY)
        except exception.ManagerUnavailable as exc:
            LOG.debug('Not recovering the attachments of %s yet: %s',
                      host, exc)
            known[host] = False
        else:
            known[host] = True
    return known[host]


def _recover_volume(manager, context, row):
    with manager._claimed(context, 'volume', row.id, (row.status,),
                          stale_before=_stale_before()) as owner:
        LOG.warning('Volume %s was left %s (claim %s); %s', row.id,
                    row.status, row.claimed_by or 'none',
                    'finishing it' if row.status != vstatus.EXTENDING or
                    row.target_size else 'rolling it back')
        if row.status == vstatus.CREATING:
            manager._create_volume(context, row.id, owner, clean_first=True)
        elif row.status == vstatus.DELETING:
            manager._delete_volume(context, row.id)
        elif row.status == vstatus.REVERTING:
            _recover_revert(manager, context, row.id, owner)
        elif row.target_size:
            manager._extend_volume(context, row.id, row.target_size)
        else:
            attachment_db.volume_leave_status(
                context, row.id, vstatus.EXTENDING,
                {'error_reason': 'extend interrupted: its size was not '
                                 'recorded'})


def _recover_revert(manager, context, volume_id, owner):
    restoring = [s for s in snapshot_db.snapshots_of_volume(context,
                                                            volume_id)
                 if s.status == vstatus.SNAPSHOT_RESTORING]
    if restoring:
        manager._revert_to_snapshot(context, volume_id, restoring[-1].id,
                                    owner)
        return
    snapshot_db.revert_end(context, volume_id, None, vstatus.ERROR,
                           'revert interrupted: its snapshot is gone')


def _takes_snapshot(manager, row):
    if row.status == vstatus.SNAPSHOT_RESTORING:
        return False  # its volume's revert flow finishes it
    if row.status == vstatus.SNAPSHOT_DELETING and \
            row.volume_status == vstatus.DELETING:
        return False  # its volume's delete flow deletes it
    return manager._can_serve_volume(row.volume_host)


def _recover_snapshot(manager, context, row):
    with manager._claimed(context, 'snapshot', row.id, (row.status,),
                          stale_before=_stale_before()) as owner:
        LOG.warning('Snapshot %s was left %s (claim %s); finishing it',
                    row.id, row.status, row.claimed_by or 'none')
        if row.status == vstatus.SNAPSHOT_CREATING:
            manager._create_snapshot(context, row.id, owner,
                                     clean_first=True)
        else:
            manager._delete_snapshot(context, row.id)


def _recover_attachment(manager, context, row):
    with manager._claimed(context, 'attachment', row.id,
                          (row.attach_status,),
                          stale_before=_stale_before()):
        LOG.warning('Attachment %s was left %s (claim %s); finishing it',
                    row.id, row.attach_status, row.claimed_by or 'none')
        if not row.manager_host or _pending_op(row) == 'fence':
            # Consumers' attachments, and fences of any: the flows of
            # the backend's manager.
            manager._recover_consumer(context, row.id)
        elif _pending_op(row) == 'promote' and \
                row.attach_status == vstatus.ATTACH_ATTACHED:
            manager._recover_host_promote(context, row.id)
        elif row.attach_status == vstatus.ATTACH_RESERVED:
            manager._attach_volume(context, row.id)
        elif row.attach_status == vstatus.ATTACH_ATTACHING:
            manager._rollback_attach(context, row.id)
            manager._attach_volume(context, row.id)
        else:
            manager._detach_volume(context, row.id)


def reconcile(manager, context):
    """One pass: finish or roll back the stuck work ``manager`` can do.

    :returns: how many items it took over.
    """
    lease = CONF.manager.work_lease_time
    done = 0
    for row in work_db.stuck_volumes(context, lease):
        if _takes_volume(manager, row):
            done += _one(_recover_volume, manager, context, row, 'volume')
    for row in work_db.stuck_snapshots(context, lease):
        if _takes_snapshot(manager, row):
            done += _one(_recover_snapshot, manager, context, row,
                         'snapshot')
    backends = {}
    for row in work_db.stuck_attachments(context, lease):
        if not _takes_attachment(manager, row):
            continue
        # Consumers' attachments (no manager_host) are finished by the
        # backend's manager itself: they need no call.
        if row.manager_host and _pending_op(row) != 'fence' and \
                not _backend_up(context, row, backends):
            continue
        done += _one(_recover_attachment, manager, context, row,
                     'attachment')
    return done


def _one(func, manager, context, row, kind):
    try:
        func(manager, context, row)
    except exception.Conflict as exc:
        # Another manager took it, or it moved on.
        LOG.debug('Not recovering %s %s: %s', kind, row.id, exc)
        return 0
    except Exception:
        # The flow recorded its failure on the row when it could.
        LOG.exception('Recovering %s %s failed', kind, row.id)
    return 1
