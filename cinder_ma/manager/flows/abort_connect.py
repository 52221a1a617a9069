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

"""The flow reverting a connect (or reconnect) of a consumer's attachment
whose process died before the attachment recorded its connection.

Run by the reconcile loop of the manager of the volume's backend, from
the ``pending_work`` the dead flow recorded with its claim (the kind of
connect and the consumer's connector): under the volume's connection
lock, the connection that flow may have made for that connector is ended,
unless another attachment on the host uses it (the backend's own, for
one made per attachment); the reservation of a one-step create (``POST
/attachments`` with a connector, whose client never learned of the
attachment) is released; any other reservation stays, for its consumer
to connect again. A reconnected attachment stays fenced.

Store: ``context``, ``attachment_id``, ``volume_id``, ``volume_host``,
``connector`` (the pending one), ``host`` (its host), ``manager_api``
and ``connection_lock`` (released by the caller after the run).

On failure (the backend's manager cannot be reached, say) the attachment
is ``error_attaching`` with the reason (a fenced one keeps its status
and records the reason): deleting it ends whatever connection is left.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import attachment as attachment_tasks
from cinder_ma.manager.tasks import connection as connection_tasks
from cinder_ma.manager.tasks import fencing as fencing_tasks

FLOW_NAME = 'abort_connect'

#: The kinds of connect flow it reverts (those of
#: :mod:`~cinder_ma.manager.flows.connect_attachment`, and reconnect).
KINDS = ('create', 'update', 'legacy', 'reconnect')


def store_of(context, volume, attachment, connector):
    """The store of the flow for ``attachment`` of ``volume`` and the
    pending ``connector``, without ``manager_api`` and
    ``connection_lock``."""
    return {'context': context, 'attachment_id': attachment.id,
            'volume_id': volume.id, 'volume_host': volume.host,
            'connector': connector, 'host': connector['host']}


def get_flow(kind):
    """The flow reverting an interrupted connect of ``kind`` (one of
    :data:`KINDS`)."""
    if kind not in KINDS:
        raise ValueError('no connect flow of kind %r' % kind)
    flow = linear_flow.Flow(FLOW_NAME)
    if kind == 'reconnect':
        flow.add(fencing_tasks.FailureReasonOnRevert('Reverting a '
                                                     'reconnection'))
    else:
        flow.add(attachment_tasks.AttachmentToErrorAttachingOnRevert(
            reconciled=True))
    flow.add(connection_tasks.AcquireConnectionLock(),
             connection_tasks.EndUnrecordedConnection())
    if kind == 'create':
        flow.add(attachment_tasks.ReleaseReservation())
    return flow
