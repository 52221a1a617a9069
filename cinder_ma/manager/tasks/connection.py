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

"""Tasks on a host's connection to a volume.

The backend side (initialize/terminate connection) is an RPC call to the
manager of the volume's backend; the host side (connect/disconnect) runs
the host's :class:`~cinder_ma.manager.connector.Connectors`. Both are
changed under a :class:`~cinder_ma.manager.locks.ConnectionLock` taken by
:class:`AcquireConnectionLock` and released by
:class:`ReleaseConnectionLock`.

A connection made for one attachment (its backend declares
``per_attachment_connections``; the recorded connection info says so,
see :func:`cinder_ma.manager.rpcapi.is_attachment_scoped`) ends with its
attachment. Any other connection is the host's: it is torn down only
when no other attachment on this host still uses it, which the service
counts
(:func:`cinder_ma.db.attachments.attachment_count_sharing_connection`),
as Nova does before it disconnects a multiattach volume:

* the volume's connection (its device on the host, its export to the
  host on the backend) is used by the live attachments of that volume on
  this host;
* when the backend has shared targets (``shared_service_uuid`` set), the
  host's session to the target is used by those of any volume of the
  backend on this host: the connector is told so when it disconnects a
  volume (``shared_target_in_use``), and keeps the session then.
"""

from oslo_log import log as logging
import oslo_messaging as messaging
from taskflow import task
from taskflow.types import failure as tf_failure

from cinder_ma.db import attachments as attachment_db
from cinder_ma import exception
from cinder_ma.manager import connector as host_connector
from cinder_ma.manager import rpcapi
from cinder_ma.volume import scheduler

LOG = logging.getLogger(__name__)


def still_used(context, volume_id, host, attachment_id):
    """How many other live attachments of the volume on ``host`` use its
    connection."""
    return attachment_db.attachment_count_sharing_connection(
        context, volume_id, host, attachment_id)


def shared_target_in_use(context, volume_id, host, attachment_id,
                         shared_service_uuid):
    """Whether other live attachments on ``host`` use the shared target of
    the volume's backend (False when it has no shared targets)."""
    if not shared_service_uuid:
        return False
    return attachment_db.attachment_count_sharing_connection(
        context, volume_id, host, attachment_id,
        service_uuid=shared_service_uuid) > 0


def _disconnect(connectors, context, volume_id, host, attachment_id,
                shared_service_uuid, connection_info, device_info):
    connectors.disconnect_volume(
        connection_info, device_info,
        shared_target_in_use=shared_target_in_use(
            context, volume_id, host, attachment_id, shared_service_uuid))


def end_backend_connection(manager_api, context, volume_id, volume_host,
                           connector, attachment_id, host,
                           connection_info):
    """End the backend's connection of an attachment: its own (scoped
    connection info) at once; the host's only when no other attachment
    on ``host`` uses it.

    :returns: True when the backend was asked to end it.
    """
    if rpcapi.is_attachment_scoped(connection_info):
        manager_api.terminate_connection(context, volume_id, volume_host,
                                         connector,
                                         attachment_id=attachment_id)
        return True
    users = still_used(context, volume_id, host, attachment_id)
    if users:
        _log_kept('backend connection', volume_id, host, users)
        return False
    manager_api.terminate_connection(context, volume_id, volume_host,
                                     connector)
    return True


def _unanswered_connection(manager_api, context, volume_host):
    """What stands for the connection info of an initialize_connection
    whose answer was lost: scoped when the backend (as it last reported)
    makes connections per attachment and the request named it (1.5)."""
    caps = scheduler.backend_capabilities(context, volume_host)
    if caps.get('per_attachment_connections') and \
            manager_api.can_send_version('1.5'):
        return {rpcapi.SCOPE_KEY: rpcapi.ATTACHMENT_SCOPE}
    return None


def _log_kept(what, volume_id, host, users):
    LOG.info('Keeping the %(what)s of volume %(vol)s on host %(host)s: '
             '%(n)d other attachment(s) use it',
             {'what': what, 'vol': volume_id, 'host': host, 'n': users})


def _outcome_unknown(result):
    """Whether a failed RPC call may still have done its work."""
    return (isinstance(result, tf_failure.Failure) and
            result.check(messaging.MessagingTimeout,
                         exception.ManagerTimeout) is not None)


class AcquireConnectionLock(task.Task):
    """Take the run's connection lock (``connection_lock``, a
    :class:`~cinder_ma.manager.locks.ConnectionLock`); revert: release it.

    Whoever runs the flow releases it after the run as well (release is
    idempotent), so that a flow needs no last task to release it.
    """

    def execute(self, connection_lock):
        connection_lock.acquire()

    def revert(self, connection_lock, *args, **kwargs):
        connection_lock.release()


class ReleaseConnectionLock(task.Task):
    """Release the connection lock; revert: take it again, so that the
    reverts of the tasks it guarded run under it.
    """

    def execute(self, connection_lock):
        connection_lock.release()

    def revert(self, connection_lock, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        try:
            connection_lock.acquire()
        except Exception:
            # The reverts before it undo what the lock guarded: running
            # them without it could tear down a connection that another
            # attachment uses; raising stops the reverting here
            # (TaskFlow's engine), the work is left for the reconcile
            # loop or the client's retry.
            LOG.exception('Could not take the connection lock %s again '
                          'to revert', connection_lock.name)
            raise


class GetConnectorProperties(task.Task):
    """Describe this host to the backend (no side effect)."""

    default_provides = 'connector'

    def execute(self, host):
        return host_connector.get_connector_properties(host=host)


class InitializeConnection(task.Task):
    """Have the volume's backend connect it to this host (RPC call);
    revert: terminate that connection unless another attachment on this
    host uses it.

    A call that failed did nothing (the backend manager reports a failed
    driver call), except one that timed out: its outcome is unknown and
    terminate_connection is idempotent, so the revert terminates then too.
    """

    default_provides = 'connection_info'

    def execute(self, manager_api, context, volume_id, volume_host, connector,
                attach_mode, attachment_id):
        return self._initialize(manager_api, context, volume_id,
                                volume_host, connector, attach_mode,
                                attachment_id)

    @staticmethod
    def _initialize(manager_api, context, volume_id, volume_host, connector,
                    attach_mode, attachment_id, **options):
        info = manager_api.initialize_connection(
            context, volume_id, volume_host, connector, attach_mode,
            attachment_id=attachment_id, **options)
        info = dict(info)
        info['data'] = dict(info.get('data') or {}, access_mode=attach_mode)
        info['attachment_id'] = attachment_id
        return info

    def revert(self, manager_api, context, volume_id, volume_host,
               connector, attachment_id, host, result, *args, **kwargs):
        if (isinstance(result, tf_failure.Failure) and
                not _outcome_unknown(result)):
            return
        try:
            if isinstance(result, tf_failure.Failure):
                # Timed out: the connection, if made, is the attachment's
                # own when the backend makes them so and was told whose.
                result = _unanswered_connection(
                    manager_api, context, volume_host)
            if not end_backend_connection(
                    manager_api, context, volume_id, volume_host,
                    connector, attachment_id, host, result):
                return
        except Exception:
            LOG.exception('Could not terminate the connection of volume %s '
                          'to host %s while reverting attachment %s; it may '
                          'be left on the backend', volume_id, host,
                          attachment_id)
            return
        LOG.info('Terminated the connection of volume %s to host %s '
                 '(attachment %s reverted)', volume_id, host, attachment_id)


class _CarriesSentinel:
    """A flow's first real task that carries the flow's lifecycle
    sentinel (an
    :class:`~cinder_ma.manager.tasks.attachment.AttachmentStatusOnRevert`
    or :class:`~cinder_ma.manager.tasks.attachment.
    ReleaseReservationOnRevert`, not added to the flow) instead of
    running it as a task of its own: its revert undoes its own work,
    then runs the sentinel's revert with the flow's failures, which is
    when and how TaskFlow would have reverted the sentinel placed before
    it (a revert that raises stops the reverting there: the sentinel's
    is not run then either). One task fewer: TaskFlow's engine costs
    about half a millisecond of CPU per task.

    :param sentinel: the sentinel, or None.
    """

    def __init__(self, sentinel=None, **kwargs):
        super().__init__(**kwargs)
        self.sentinel = sentinel

    def revert_sentinel(self, context, attachment_id, kwargs):
        if self.sentinel is not None:
            self.sentinel.revert(context, attachment_id,
                                 flow_failures=kwargs.get('flow_failures'))


class LockAndInitializeConnection(_CarriesSentinel, InitializeConnection):
    """Take the connection lock (``connection_lock``), then
    :class:`InitializeConnection` under it, for this manager's backend
    with the volume and QoS specs its flow read with its claim (``read``,
    see :func:`cinder_ma.manager.manager.connection_read`); revert: its
    revert, then release the lock, then the revert of its ``sentinel``
    (see :class:`_CarriesSentinel`). One task for all, as in
    :class:`LockAndTerminateConnection`."""

    def execute(self, connection_lock, manager_api, context, volume_id,
                volume_host, connector, attach_mode, attachment_id, read):
        connection_lock.acquire()
        return self._initialize(manager_api, context, volume_id,
                                volume_host, connector, attach_mode,
                                attachment_id, read=read)

    def revert(self, connection_lock, manager_api, context, volume_id,
               volume_host, connector, attachment_id, host, result, *args,
               **kwargs):
        try:
            super().revert(manager_api, context, volume_id, volume_host,
                           connector, attachment_id, host, result)
        finally:
            connection_lock.release()
        self.revert_sentinel(context, attachment_id, kwargs)


class EndUnrecordedConnection(task.Task):
    """End the connection that an interrupted connect flow may have made
    for ``connector`` and did not record (its process died): the
    attachment's own at once when the backend makes them per attachment,
    the host's unless another attachment on the host uses it
    (terminating is idempotent: a connection never made is no harm).

    Cannot be undone: its revert only logs.
    """

    def execute(self, manager_api, context, volume_id, volume_host,
                connector, attachment_id, host):
        info = _unanswered_connection(manager_api, context, volume_host)
        if end_backend_connection(manager_api, context, volume_id,
                                  volume_host, connector, attachment_id,
                                  host, info):
            LOG.info('Ended the unrecorded connection of attachment %s of '
                     'volume %s to host %s', attachment_id, volume_id, host)

    def revert(self, attachment_id, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure):
            LOG.warning('The unrecorded connection of attachment %s is '
                        'ended although the flow failed', attachment_id)


class ConnectVolume(task.Task):
    """Connect this host to the volume; revert: disconnect unless another
    attachment on this host uses the connection.
    """

    default_provides = 'device_info'

    def __init__(self, connectors, **kwargs):
        super().__init__(**kwargs)
        self.connectors = connectors

    def execute(self, connection_info):
        return self.connectors.connect_volume(connection_info)

    def revert(self, context, volume_id, attachment_id, host,
               shared_service_uuid, connection_info, result, *args,
               **kwargs):
        if isinstance(result, tf_failure.Failure):
            # A failed connect leaves nothing connected (connector
            # contract).
            return
        try:
            users = still_used(context, volume_id, host, attachment_id)
            if users:
                _log_kept('host connection', volume_id, host, users)
                return
            _disconnect(self.connectors, context, volume_id, host,
                        attachment_id, shared_service_uuid, connection_info,
                        result)
        except Exception:
            LOG.exception('Could not disconnect volume %s from host %s '
                          'while reverting attachment %s; it may be left '
                          'connected', volume_id, host, attachment_id)
            return
        LOG.info('Disconnected volume %s from host %s (attachment %s '
                 'reverted)', volume_id, host, attachment_id)


class DisconnectVolume(task.Task):
    """Disconnect this host from the volume unless another attachment on
    this host uses the connection.

    Cannot be undone (the instance no longer has the disk): its revert
    only logs; detaching again retries, and disconnecting is idempotent.
    """

    def __init__(self, connectors, **kwargs):
        super().__init__(**kwargs)
        self.connectors = connectors

    def execute(self, context, volume_id, attachment_id, host,
                shared_service_uuid, connection_info):
        if not connection_info:
            LOG.info('Attachment %s recorded no connection on host %s: '
                     'nothing to disconnect', attachment_id, host)
            return
        users = still_used(context, volume_id, host, attachment_id)
        if users:
            _log_kept('host connection', volume_id, host, users)
            return
        _disconnect(self.connectors, context, volume_id, host,
                    attachment_id, shared_service_uuid, connection_info,
                    host_connector.device_of(connection_info))
        LOG.info('Disconnected volume %s from host %s', volume_id, host)

    def revert(self, volume_id, host, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure):
            LOG.warning('Volume %s may be disconnected from host %s while '
                        'its detach failed; detaching again finishes it',
                        volume_id, host)


class TerminateConnection(task.Task):
    """Have the volume's backend terminate the attachment's connection
    (RPC call): its own (``connection_info`` scoped to it) always, the
    host's unless another attachment on this host uses it.

    Cannot be undone: its revert only logs; detaching again retries, and
    terminating is idempotent.
    """

    def execute(self, manager_api, context, volume_id, volume_host,
                attachment_id, host, connector, connection_info=None):
        if not connector:
            LOG.info('Attachment %s recorded no connector: no connection '
                     'to terminate', attachment_id)
            return
        if end_backend_connection(manager_api, context, volume_id,
                                  volume_host, connector, attachment_id,
                                  host, connection_info):
            LOG.info('Terminated the connection of volume %s to host %s',
                     volume_id, host)

    def revert(self, volume_id, host, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure):
            LOG.warning('The connection of volume %s to host %s may be '
                        'terminated while its detach failed; detaching '
                        'again finishes it', volume_id, host)


class LockAndTerminateConnection(_CarriesSentinel, TerminateConnection):
    """Take the connection lock (``connection_lock``), then
    :class:`TerminateConnection` under it; revert: its revert, then
    release the lock, then the revert of its ``sentinel`` (see
    :class:`_CarriesSentinel`). One task for all, as TaskFlow's engine
    costs about as much per task as either does (see
    :class:`AcquireConnectionLock` for who releases the lock after the
    run)."""

    def execute(self, connection_lock, manager_api, context, volume_id,
                volume_host, attachment_id, host, connector,
                connection_info=None):
        connection_lock.acquire()
        super().execute(manager_api, context, volume_id, volume_host,
                        attachment_id, host, connector, connection_info)

    def revert(self, connection_lock, context, volume_id, attachment_id,
               host, result, *args, **kwargs):
        try:
            super().revert(volume_id, host, result)
        finally:
            connection_lock.release()
        self.revert_sentinel(context, attachment_id, kwargs)


class LockAndTerminateOrDestroy(LockAndTerminateConnection):
    """:class:`LockAndTerminateConnection` for a delete (the attachment
    is ``detaching``): when other attachments on its host use the
    host's connection, the attachment is deleted in the transaction that
    counts them (:func:`cinder_ma.db.attachments.
    attachment_destroy_if_shared`), nothing is terminated, and it
    provides ``destroyed`` True for the task that deletes it otherwise;
    when none does, the connection is terminated on that count (under
    the lock, as :class:`TerminateConnection` would count again).

    ``record`` is the attachment as the flow got it (without it, as
    :class:`LockAndTerminateConnection`); ``claim`` the claim the flow
    runs under (None for the reconcile loop's run, whose delete compares
    the status only, as :class:`~cinder_ma.manager.tasks.attachment.
    DestroyAttachment` does); ``volume_record`` the volume's row as the
    flow got it, which this manager's backend call takes instead of
    reading it (or None).
    """

    default_provides = 'destroyed'

    def execute(self, connection_lock, manager_api, context, volume_id,
                volume_host, attachment_id, host, connector,
                connection_info=None, record=None, claim=None,
                volume_record=None):
        connection_lock.acquire()
        if not connector or record is None or \
                rpcapi.is_attachment_scoped(connection_info):
            TerminateConnection.execute(
                self, manager_api, context, volume_id, volume_host,
                attachment_id, host, connector, connection_info)
            return False
        if attachment_db.attachment_destroy_if_shared(
                context, record, host, held_by=claim):
            LOG.info('Keeping the backend connection of volume %s on host '
                     '%s: other attachments use it', volume_id, host)
            return True
        options = {} if volume_record is None else {'volume': volume_record}
        manager_api.terminate_connection(context, volume_id, volume_host,
                                         connector, **options)
        LOG.info('Terminated the connection of volume %s to host %s',
                 volume_id, host)
        return False
