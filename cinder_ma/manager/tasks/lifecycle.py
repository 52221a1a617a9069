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

"""Lifecycle sentinels: the first task of every flow.

A sentinel does nothing when executed. When the flow fails, it is the last
task reverted, after every other task has undone its work: it records the
failure on the volume (a failed status and ``error_reason``) and logs it.
"""

from oslo_db import exception as db_exc
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import strutils
from sqlalchemy import exc as sa_exc
from taskflow import task

from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma import status as vstatus

LOG = logging.getLogger(__name__)

#: error_reason is shown to users; keep it readable.
MAX_REASON_LENGTH = 1024


def database_lost(flow_failures):
    """Whether the flow failed because the database could not be reached.

    Its sentinel then records no failure: the work stays in its transient
    status, its claim expires, and the reconcile loop runs it again once
    the database is back (a transient outage is not the request's
    failure).
    """
    return any(failure.check(db_exc.DBConnectionError,
                             sa_exc.OperationalError) is not None
               for failure in (flow_failures or {}).values())


#: What a failure to reach a manager or the message broker raises: a
#: manager seen down, or not served in this process (ManagerUnavailable),
#: one that did not answer in time (its subclass ManagerTimeout, or
#: oslo.messaging's own timeout), a message the broker did not take, and
#: the broker client's connection errors (by name: kombu is
#: oslo.messaging's dependency, not ours).
UNAVAILABLE = (exception.ManagerUnavailable, messaging.MessagingTimeout,
               messaging.MessageDeliveryFailure,
               'kombu.exceptions.OperationalError')


def service_unavailable(flow_failures):
    """Whether the flow failed because a manager or the message broker
    could not be reached or did not answer in time.

    The sentinels of work the reconcile loop owns (attachments made
    through a manager) then record no failure: the tasks' reverts undid
    what they could (a call that timed out is undone as if it had been
    done), the work stays in its transient status, and the loop runs it
    again once the service answers. A broker restart or the first seconds
    after a database outage (heartbeats not written yet) are not the
    request's failure.
    """
    return any(failure.check(*UNAVAILABLE) is not None
               for failure in (flow_failures or {}).values())


def failure_reason(flow_failures):
    """A one-line, secret-free reason from a flow's failures."""
    reasons = []
    for failure in (flow_failures or {}).values():
        # An exception without a message: its type's name.
        text = failure.exception_str or next(iter(failure))
        if text not in reasons:
            reasons.append(text)
    reason = '; '.join(reasons) or 'unknown error'
    reason = strutils.mask_password(reason)
    if len(reason) > MAX_REASON_LENGTH:
        reason = reason[:MAX_REASON_LENGTH - 3] + '...'
    return reason


class VolumeStatusOnRevert(task.Task):
    """Base of the sentinels: on revert, move the volume from
    ``from_status`` to ``error_status`` with the failure as reason.

    The move is a compare-and-swap: a volume that left ``from_status``
    meanwhile (deleted, or moved on by someone else) is left alone; one
    already in ``error_status`` gets the new reason (so the revert is
    idempotent).
    """

    operation = None
    from_status = None
    error_status = None

    def execute(self, context, volume_id):
        """Nothing to do: a checkpoint for the revert."""

    def revert(self, context, volume_id, *args, **kwargs):
        if database_lost(kwargs.get('flow_failures')):
            LOG.warning('%s of volume %s lost the database; left for the '
                        'reconcile loop', self.operation, volume_id)
            return
        reason = failure_reason(kwargs.get('flow_failures'))
        try:
            volume_db.volume_update(
                context, volume_id,
                {'status': self.error_status, 'error_reason': reason},
                expected={'status': (self.from_status, self.error_status)})
        except (exception.VolumeNotFound, exception.Conflict) as exc:
            LOG.warning('%(op)s of volume %(id)s failed (%(reason)s); its '
                        'status was not set to %(status)s: %(exc)s',
                        {'op': self.operation, 'id': volume_id,
                         'reason': reason, 'status': self.error_status,
                         'exc': exc})
            return
        except Exception:
            LOG.exception('%(op)s of volume %(id)s failed (%(reason)s) and '
                          'its status could not be set to %(status)s',
                          {'op': self.operation, 'id': volume_id,
                           'reason': reason, 'status': self.error_status})
            return
        LOG.error('%(op)s of volume %(id)s failed, status %(status)s: '
                  '%(reason)s', {'op': self.operation, 'id': volume_id,
                                 'status': self.error_status,
                                 'reason': reason})


class VolumeToErrorOnRevert(VolumeStatusOnRevert):
    """Sentinel of the create flow: 'creating' -> 'error'."""

    operation = 'Creation'
    from_status = vstatus.CREATING
    error_status = vstatus.ERROR


class VolumeToErrorDeletingOnRevert(VolumeStatusOnRevert):
    """Sentinel of the delete flow: 'deleting' -> 'error_deleting'."""

    operation = 'Deletion'
    from_status = vstatus.DELETING
    error_status = vstatus.ERROR_DELETING


class VolumeFromExtendingOnRevert(task.Task):
    """Sentinel of the extend flow: on revert, 'extending' -> the status
    the volume's attachments give, with the failure as error_reason.

    A failed extend leaves the volume as it was, at its old size, so it is
    not put in an error status that would block its attachments.
    """

    def execute(self, context, volume_id):
        """Nothing to do: a checkpoint for the revert."""

    def revert(self, context, volume_id, *args, **kwargs):
        if database_lost(kwargs.get('flow_failures')):
            LOG.warning('Extend of volume %s lost the database; left for '
                        'the reconcile loop', volume_id)
            return
        reason = 'extend failed: ' + failure_reason(
            kwargs.get('flow_failures'))
        try:
            status = attachment_db.volume_leave_status(
                context, volume_id, vstatus.EXTENDING,
                {'error_reason': reason, 'target_size': None})
        except Exception:
            LOG.exception('Extend of volume %s failed (%s) and it could not '
                          'leave status extending', volume_id, reason)
            return
        LOG.error('Extend of volume %(id)s failed, status back to '
                  '%(status)s: %(reason)s',
                  {'id': volume_id, 'status': status, 'reason': reason})


class SnapshotStatusOnRevert(task.Task):
    """Base of the sentinels of snapshot flows: on revert, move the
    snapshot from ``from_status`` to ``error_status`` with the failure as
    its reason (compare-and-swap, idempotent, as
    :class:`VolumeStatusOnRevert`)."""

    operation = None
    from_status = None
    error_status = None

    def execute(self, context, snapshot_id):
        """Nothing to do: a checkpoint for the revert."""

    def revert(self, context, snapshot_id, *args, **kwargs):
        if database_lost(kwargs.get('flow_failures')):
            LOG.warning('%s of snapshot %s lost the database; left for the '
                        'reconcile loop', self.operation, snapshot_id)
            return
        reason = failure_reason(kwargs.get('flow_failures'))
        try:
            snapshot_db.snapshot_change(
                context, snapshot_id,
                {'status': self.error_status, 'error_reason': reason},
                expected={'status': (self.from_status, self.error_status)})
        except Exception as exc:
            LOG.warning('%(op)s of snapshot %(id)s failed (%(reason)s); its '
                        'status was not set to %(status)s: %(exc)s',
                        {'op': self.operation, 'id': snapshot_id,
                         'reason': reason, 'status': self.error_status,
                         'exc': exc})
            return
        LOG.error('%(op)s of snapshot %(id)s failed, status %(status)s: '
                  '%(reason)s', {'op': self.operation, 'id': snapshot_id,
                                 'status': self.error_status,
                                 'reason': reason})


class SnapshotToErrorOnRevert(SnapshotStatusOnRevert):
    """Sentinel of the snapshot create flow: 'creating' -> 'error'."""

    operation = 'Creation'
    from_status = vstatus.SNAPSHOT_CREATING
    error_status = vstatus.SNAPSHOT_ERROR


class SnapshotToErrorDeletingOnRevert(SnapshotStatusOnRevert):
    """Sentinel of the snapshot delete flow: 'deleting' ->
    'error_deleting'."""

    operation = 'Deletion'
    from_status = vstatus.SNAPSHOT_DELETING
    error_status = vstatus.SNAPSHOT_ERROR_DELETING


class RevertToErrorOnRevert(task.Task):
    """Sentinel of the revert flow: on revert, the volume leaves
    'reverting' for 'error' with the failure as its reason (its data may
    be half reverted), and the snapshot leaves 'restoring' for
    'available' (it is intact), as in Cinder."""

    def execute(self, context, volume_id, snapshot_id):
        """Nothing to do: a checkpoint for the revert."""

    def revert(self, context, volume_id, snapshot_id, *args, **kwargs):
        if database_lost(kwargs.get('flow_failures')):
            LOG.warning('Revert of volume %s lost the database; left for '
                        'the reconcile loop', volume_id)
            return
        reason = 'revert to snapshot %s failed: %s' % (
            snapshot_id, failure_reason(kwargs.get('flow_failures')))
        try:
            snapshot_db.revert_end(context, volume_id, snapshot_id,
                                   vstatus.ERROR, reason)
        except Exception:
            LOG.exception('Revert of volume %s failed (%s) and it could not '
                          'leave status reverting', volume_id, reason)
            return
        LOG.error('Revert of volume %s failed, status error: %s', volume_id,
                  reason)
