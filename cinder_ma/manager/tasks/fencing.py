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

"""Tasks of fencing and standby promotion (extension
``cinder-ma-fencing``): revoking attachments' connections at the target,
and recording a promoted writer's or a reconnected attachment's new
connection.

The decisions (fenced, promoted) are compare-and-swap transactions of
:mod:`cinder_ma.db.fencing` made before these flows run; the flows carry
them out at the target and on the host, and their sentinel records on the
attachment why a step failed, leaving the decision in place: repeating
the action finishes the work (every step is idempotent).
"""

from oslo_log import log as logging
from taskflow import task
from taskflow.types import failure as tf_failure

from cinder_ma.db import fencing as fencing_db
from cinder_ma import exception
from cinder_ma.manager import connector as host_connector
from cinder_ma.manager.tasks import lifecycle

LOG = logging.getLogger(__name__)

_MOVED_ON = (exception.VolumeAttachmentNotFound, exception.Conflict,
             exception.InvalidVolume, exception.VolumeNotFound)


class FailureReasonOnRevert(task.Task):
    """Sentinel: on revert, record the failure as the attachment's
    ``error_reason`` (its status, mode, generation and fencing stay:
    they are the decision the action made) and log it.

    :param operation: what failed, for the reason ('Fencing', ...).
    """

    def __init__(self, operation, **kwargs):
        kwargs.setdefault('name', '%s.%s' % (type(self).__name__,
                                             operation.lower()))
        super().__init__(**kwargs)
        self.operation = operation

    def execute(self, context, attachment_id):
        """Nothing to do: a checkpoint for the revert."""

    def revert(self, context, attachment_id, *args, **kwargs):
        reason = '%s failed: %s; repeat the action to finish it' % (
            self.operation,
            lifecycle.failure_reason(kwargs.get('flow_failures')))
        try:
            fencing_db.attachment_set_failure(context, attachment_id,
                                              reason)
        except Exception:
            LOG.exception('%s of attachment %s failed (%s) and the reason '
                          'could not be recorded', self.operation,
                          attachment_id, reason)
            return
        LOG.error('%s of attachment %s failed: %s', self.operation,
                  attachment_id, reason)


class RevokeConnections(task.Task):
    """End, at the target, the connections of the fenced attachments in
    ``revoke`` (``[{'attachment_id', 'connector'}]``): each is its
    attachment's own, ended at once (RPC call, 1.5).

    Revoked access is never given back: the revert only logs. Ending a
    connection again is harmless, so a failed action is repeated.
    """

    def execute(self, manager_api, context, volume_id, volume_host, revoke):
        for item in revoke:
            manager_api.terminate_connection(
                context, volume_id, volume_host, item['connector'],
                attachment_id=item['attachment_id'])
            LOG.info('Revoked the connection of attachment %s of volume %s '
                     'at the target', item['attachment_id'], volume_id)

    def revert(self, volume_id, revoke, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure) and revoke:
            LOG.warning('The connections of attachments %s of volume %s '
                        'stay revoked although the flow failed',
                        ', '.join(i['attachment_id'] for i in revoke),
                        volume_id)


class RecordPromoted(task.Task):
    """Record the promoted writer's read-write connection (with the
    host's device when a manager connected it), while it is still that
    generation's unfenced writer; revert: its previous connection info
    back (so that repeating the promotion sees it unfinished).
    """

    def execute(self, context, attachment_id, generation, connection_info,
                device_info=None):
        fencing_db.attachment_record_connection(
            context, attachment_id, generation,
            host_connector.with_device(connection_info, device_info)
            if device_info else connection_info)

    def revert(self, context, attachment_id, generation,
               previous_connection_info, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        try:
            fencing_db.attachment_record_connection(
                context, attachment_id, generation, previous_connection_info)
        except _MOVED_ON as exc:
            LOG.warning('The connection info of attachment %s was not set '
                        'back: %s', attachment_id, exc)
        except Exception:
            LOG.exception('The connection info of attachment %s was not '
                          'set back', attachment_id)


class RecordReconnected(task.Task):
    """Record a fenced attachment connected again by its consumer:
    'attaching' with the new connector and connection info, unfenced, at
    the next generation; refused (409) in the same compare-and-swap when
    it is no longer fenced at ``generation`` or its instance has the
    volume connected on ``host`` through another attachment. Revert: fenced
    at ``generation`` again, as it was (``previous``).

    Provides the attachment's record as updated.
    """

    default_provides = 'attachment'

    def execute(self, context, attachment_id, generation, connector, host,
                connection_info, mountpoint=None):
        return fencing_db.attachment_reconnect(
            context, attachment_id, generation, connector, host,
            connection_info, mountpoint=mountpoint)

    def revert(self, context, attachment_id, generation, previous, result,
               *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        try:
            if not fencing_db.attachment_unreconnect(
                    context, attachment_id, generation, previous):
                LOG.warning('Attachment %s moved on; it was not fenced '
                            'again', attachment_id)
        except _MOVED_ON as exc:
            LOG.warning('Attachment %s was not fenced again: %s',
                        attachment_id, exc)
        except Exception:
            LOG.exception('Attachment %s was not fenced again',
                          attachment_id)


class DisconnectPrevious(task.Task):
    """Disconnect this host from the promoted attachment's previous
    connection, which the backend ended when it made the new one (the
    attachment's own: nobody else uses it). Cannot be undone; its revert
    only logs."""

    def __init__(self, connectors, **kwargs):
        super().__init__(**kwargs)
        self.connectors = connectors

    def execute(self, previous_connection_info, device_info):
        previous = host_connector.device_of(previous_connection_info)
        if not previous_connection_info or previous == device_info:
            return
        self.connectors.disconnect_volume(previous_connection_info,
                                          previous)

    def revert(self, attachment_id, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure):
            LOG.warning('The previous connection of attachment %s is '
                        'disconnected from this host although the flow '
                        'failed', attachment_id)
