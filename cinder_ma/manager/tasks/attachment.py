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

"""Tasks on attachment records, and the sentinels of the attach and detach
flows.

Every change is a compare-and-swap transition of
:mod:`cinder_ma.db.attachments`, which recomputes the volume's status in
the same transaction: no task here writes a volume status.
"""

from oslo_log import log as logging
from oslo_utils import timeutils
from taskflow import task
from taskflow.types import failure as tf_failure

from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import messages as message_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager import connector as host_connector
from cinder_ma.manager.tasks import lifecycle
from cinder_ma import message_field
from cinder_ma import notifications
from cinder_ma import status as vstatus

LOG = logging.getLogger(__name__)

#: The attachment or its volume moved on; a revert leaves them alone.
_MOVED_ON = (exception.VolumeAttachmentNotFound, exception.Conflict,
             exception.InvalidVolume, exception.VolumeNotFound)


class AttachmentStatusOnRevert(task.Task):
    """Base of the sentinels: on revert, move the attachment from one of
    ``from_statuses`` to ``error_status`` with the failure as its
    ``error_reason`` (shown to administrators), and log it.

    The move is a compare-and-swap: an attachment that moved on meanwhile
    (deleted, say) is left alone; one already in ``error_status`` stays
    there, so the revert is idempotent.

    A flow that lost the database records nothing (it could not). With
    ``reconciled``, the attachment's work belongs to the reconcile loop
    (one made through a manager, whose intent is recorded): a flow that
    could not reach a manager or the broker, or got no answer in time,
    records no failure either (see
    :func:`~cinder_ma.manager.tasks.lifecycle.service_unavailable`), and
    the loop runs the work again once they answer; the client of the API
    waits, it does not retry. Without it (the API's flows for consumers
    that connect themselves) the consumer gets the error and the
    attachment its error status.
    """

    operation = None
    from_statuses = ()
    error_status = None

    def __init__(self, reconciled=False, **kwargs):
        super().__init__(**kwargs)
        self.reconciled = reconciled

    def execute(self, context, attachment_id):
        """Nothing to do: a checkpoint for the revert."""

    def revert(self, context, attachment_id, *args, **kwargs):
        if lifecycle.database_lost(kwargs.get('flow_failures')):
            LOG.warning('%s of attachment %s lost the database; left for '
                        'the reconcile loop', self.operation, attachment_id)
            return
        if self.reconciled and lifecycle.service_unavailable(
                kwargs.get('flow_failures')):
            LOG.warning('%s of attachment %s could not reach a manager or '
                        'the broker (%s); left for the reconcile loop',
                        self.operation, attachment_id,
                        lifecycle.failure_reason(
                            kwargs.get('flow_failures')))
            return
        reason = lifecycle.failure_reason(kwargs.get('flow_failures'))
        values = {'op': self.operation, 'id': attachment_id,
                  'reason': reason, 'status': self.error_status}
        try:
            attachment = attachment_db.attachment_update(
                context, attachment_id, {'attach_status': self.error_status,
                                         'error_reason': reason},
                expected_status=self.from_statuses + (self.error_status,))
        except _MOVED_ON as exc:
            values['exc'] = exc
            LOG.warning('%(op)s of attachment %(id)s failed (%(reason)s); '
                        'it was not set to %(status)s: %(exc)s', values)
            return
        except Exception:
            LOG.exception('%(op)s of attachment %(id)s failed (%(reason)s) '
                          'and it could not be set to %(status)s', values)
            return
        LOG.error('%(op)s of attachment %(id)s failed, status %(status)s: '
                  '%(reason)s', values)
        try:
            self.tell_user(context, attachment, kwargs.get('flow_failures'))
        except Exception:
            LOG.exception('Could not record the user message of the failed '
                          '%s of attachment %s', self.operation.lower(),
                          attachment_id)

    def tell_user(self, context, attachment, flow_failures):
        """Record the user message of the failure, if the sentinel has
        one."""


class AttachmentToErrorAttachingOnRevert(AttachmentStatusOnRevert):
    """Sentinel of the attach flow: 'reserved' -> 'error_attaching'.

    Every later task has undone its work by then ('attaching' is set back
    to 'reserved' by the task that set it; 'attaching' is accepted too in
    case that failed).
    """

    operation = 'Attach'
    from_statuses = (vstatus.ATTACH_RESERVED, vstatus.ATTACH_ATTACHING)
    error_status = vstatus.ATTACH_ERROR_ATTACHING

    def tell_user(self, context, attachment, flow_failures):
        """A user message of the volume: Cinder's "attach volume" for
        an attach run by a manager (the client had its 2xx), "update
        attachment" for a consumer's connection (PUT /attachments)."""
        volume = volume_db.volume_get(context, attachment.volume_id,
                                      children=False)
        failure = next(iter((flow_failures or {}).values()), None)
        message_db.record(
            context, volume.project_id,
            message_field.Action.ATTACH_VOLUME if self.reconciled
            else message_field.Action.UPDATE_ATTACHMENT,
            resource_uuid=volume.id,
            exception=failure.exception if failure is not None else None)


class AttachmentToErrorDetachingOnRevert(AttachmentStatusOnRevert):
    """Sentinel of the detach flow: 'detaching' -> 'error_detaching'.

    Detaching again (the API moves it back to 'detaching') retries the
    flow, whose steps are idempotent.
    """

    operation = 'Detach'
    from_statuses = (vstatus.ATTACH_DETACHING,)
    error_status = vstatus.ATTACH_ERROR_DETACHING


class AttachmentToReservedOnRevert(AttachmentStatusOnRevert):
    """Sentinel of the legacy connect flow (``os-initialize_connection``):
    'attaching' -> 'reserved', as Cinder leaves a volume whose
    initialize_connection failed: the consumer retries it or unreserves.
    """

    operation = 'Initializing the connection'
    from_statuses = (vstatus.ATTACH_ATTACHING,)
    error_status = vstatus.ATTACH_RESERVED


class ReleaseReservationOnRevert(task.Task):
    """Sentinel of the connect flow of an attachment created with a
    connector: on revert, delete the reservation made in the same request
    (nothing half-made is left: the consumer gets the error and no
    attachment).
    """

    def execute(self, context, attachment_id):
        """Nothing to do: a checkpoint for the revert."""

    def revert(self, context, attachment_id, *args, **kwargs):
        reason = lifecycle.failure_reason(kwargs.get('flow_failures'))
        try:
            attachment_db.attachment_destroy(
                context, attachment_id,
                expected_status=(vstatus.ATTACH_RESERVED,
                                 vstatus.ATTACH_ATTACHING))
        except _MOVED_ON as exc:
            LOG.warning('Connecting attachment %s failed (%s); its '
                        'reservation was not released: %s', attachment_id,
                        reason, exc)
            return
        except Exception:
            LOG.exception('Connecting attachment %s failed (%s) and its '
                          'reservation could not be released',
                          attachment_id, reason)
            return
        LOG.warning('Connecting attachment %s failed (%s); its reservation '
                    'is released', attachment_id, reason)


class ReleaseReservation(task.Task):
    """Release a reservation that nobody will connect: that of a one-step
    create whose client never learned of it (its process died before it
    answered). Cannot be undone; a reservation that moved on meanwhile is
    left alone."""

    def execute(self, context, attachment_id):
        try:
            attachment_db.attachment_destroy(
                context, attachment_id,
                expected_status=vstatus.ATTACH_RESERVED)
        except _MOVED_ON as exc:
            LOG.info('Reservation %s was not released: %s', attachment_id,
                     exc)
            return
        LOG.warning('Released reservation %s: the request that made it '
                    'died before it answered', attachment_id)


def _warn_not_reverted(attachment_id, status, exc):
    LOG.warning('Attachment %s was not set back to %s: %s', attachment_id,
                status, exc)


def _back_to_reserved(context, attachment_id):
    """'attaching' -> 'reserved', without connector and connection."""
    attachment_db.attachment_update(
        context, attachment_id,
        {'attach_status': vstatus.ATTACH_RESERVED,
         'connector': None, 'connection_info': None},
        expected_status=vstatus.ATTACH_ATTACHING)


def _revert_to_reserved(context, attachment_id):
    """:func:`_back_to_reserved` as a revert does it: never raising."""
    try:
        _back_to_reserved(context, attachment_id)
    except _MOVED_ON as exc:
        _warn_not_reverted(attachment_id, vstatus.ATTACH_RESERVED, exc)
    except Exception:
        LOG.exception('Attachment %s was not set back to reserved',
                      attachment_id)


class RecordAttaching(task.Task):
    """'reserved' -> 'attaching' with the host's connector and connection
    (from then on the connection counts as used by this attachment);
    revert: back to 'reserved' without them.
    """

    def execute(self, context, attachment_id, host, connector,
                connection_info, device_info):
        attachment_db.attachment_update(
            context, attachment_id,
            {'attach_status': vstatus.ATTACH_ATTACHING,
             'connector': connector, 'attached_host': host,
             'connection_info': host_connector.with_device(connection_info,
                                                           device_info)},
            expected_status=vstatus.ATTACH_RESERVED)

    def revert(self, context, attachment_id, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure):
            _revert_to_reserved(context, attachment_id)


class RecordConnected(task.Task):
    """'reserved' -> 'attaching' with the consumer's connector, host and
    the backend's connection info (the attachments API and
    ``os-initialize_connection``: the consumer connects its host itself);
    refused (409) in the same compare-and-swap when the instance has the
    volume connected on that host already. Revert: back to 'reserved'
    without them. Given the ``claim`` the flow runs under (the backend's
    manager's), it gives the claim up in the same compare-and-swap.

    With the claim, the attachment's ``record`` as the flow got it with
    that claim is taken for the row instead of reading it (see
    :func:`cinder_ma.db.attachments.attachment_update`'s ``current``).

    Provides the attachment's record as updated.
    """

    default_provides = 'attachment'

    def execute(self, context, attachment_id, host, connector,
                connection_info, mountpoint=None, claim=None, record=None):
        return attachment_db.attachment_update(
            context, attachment_id,
            {'attach_status': vstatus.ATTACH_ATTACHING,
             'connector': connector, 'attached_host': host,
             'mountpoint': mountpoint, 'connection_info': connection_info},
            expected_status=vstatus.ATTACH_RESERVED,
            not_connected_elsewhere=host, held_by=claim,
            current=record if claim is not None else None)

    def revert(self, context, attachment_id, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure):
            _revert_to_reserved(context, attachment_id)


class ForgetConnection(task.Task):
    """Clear the attachment's connector and connection info once its
    connection is terminated (``os-terminate_connection``: the record
    stays until ``os-detach``); from then on it holds no connection.

    Nothing to undo: the connection is gone. Its revert only logs.
    """

    def execute(self, context, attachment_id):
        attachment_db.attachment_update(
            context, attachment_id,
            {'connector': None, 'connection_info': None})

    def revert(self, attachment_id, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure):
            LOG.warning('The connection of attachment %s is terminated but '
                        'its flow failed', attachment_id)


class RecordReserved(task.Task):
    """'attaching' -> 'reserved' without connector and connection (the
    end of a rollback: they are torn down); cannot be undone, its revert
    only logs."""

    def execute(self, context, attachment_id):
        _back_to_reserved(context, attachment_id)

    def revert(self, attachment_id, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure):
            LOG.warning('Attachment %s was set back to reserved before its '
                        'rollback failed', attachment_id)


class CompleteAttachment(task.Task):
    """'attaching' -> 'attached' with attach_time and the device the
    instance got; revert: back to 'attaching'.
    """

    def execute(self, context, attachment_id, device):
        attachment_db.attachment_update(
            context, attachment_id,
            {'attach_status': vstatus.ATTACH_ATTACHED,
             'attach_time': timeutils.utcnow(), 'mountpoint': device,
             'error_reason': None},
            expected_status=vstatus.ATTACH_ATTACHING)

    def revert(self, context, attachment_id, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        try:
            attachment_db.attachment_update(
                context, attachment_id,
                {'attach_status': vstatus.ATTACH_ATTACHING,
                 'attach_time': None},
                expected_status=vstatus.ATTACH_ATTACHED)
        except _MOVED_ON as exc:
            _warn_not_reverted(attachment_id, vstatus.ATTACH_ATTACHING, exc)
        except Exception:
            LOG.exception('Attachment %s was not set back to attaching',
                          attachment_id)


class DestroyAttachment(task.Task):
    """Delete the attachment (soft-deleted as 'detached'), freeing its
    reservation; from then on its connection counts as unused. Nothing
    to do when the task before ``destroyed`` it (with the count of the
    users of its connection). Given the ``claim`` the flow runs under
    and the attachment's ``record`` as it got it with the claim, the
    delete is a compare-and-swap on that claim that does not read the
    row first.

    Nothing can be reattached by undoing this: its revert only logs.
    """

    def execute(self, context, attachment_id, destroyed=False, claim=None,
                record=None):
        if destroyed:
            return
        attachment_db.attachment_destroy(
            context, attachment_id, expected_status=vstatus.ATTACH_DETACHING,
            held_by=claim, current=record if claim is not None else None)

    def revert(self, context, attachment_id, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure):
            LOG.warning('Attachment %s was deleted before its detach flow '
                        'failed; it is not restored', attachment_id)


class NotifyAttachment(task.Task):
    """Emit ``volume.<event_type>`` for the attachment; never fails.

    :param event_type: 'attach.end' or 'detach.end'.
    """

    def __init__(self, event_type, **kwargs):
        kwargs.setdefault('name', '%s.%s' % (type(self).__name__,
                                             event_type))
        super().__init__(**kwargs)
        self.event_type = event_type

    def execute(self, context, volume_id, attachment_id, instance_uuid,
                attach_mode, host):
        if not notifications.enabled():
            return
        try:
            # The row alone: the payload needs none of its children.
            volume = volume_db.volume_get(context, volume_id, children=False)
        except Exception:
            LOG.exception('No %s notification for attachment %s: its '
                          'volume %s cannot be read', self.event_type,
                          attachment_id, volume_id)
            return
        # The attachment as the flow saw it: after a detach its row is
        # deleted.
        notifications.notify_attach_of(context, self.event_type, volume,
                                       attachment_id, instance_uuid, host,
                                       attach_mode)
