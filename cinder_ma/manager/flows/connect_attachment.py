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

"""Flows connecting a reserved attachment to a consumer's host.

Run by the manager of the volume's backend, under a claim on the
attachment (:meth:`cinder_ma.manager.consumers.ConsumerEndpoints.
connect_attachment`), for consumers that connect their host themselves
(a compute service of their own): the attachments API (update with a
connector, or create with one) and the legacy
``os-initialize_connection``. The backend's part is
the same task as in the manager's attach flow, under the same connection
lock (:mod:`cinder_ma.manager.locks`, which holds across processes and
hosts), with the same reverts: a call that timed out may have connected,
so its revert terminates it, unless another attachment on that host uses
the connection. A run cut short by the death of its process is reverted
by the reconcile loop (:mod:`cinder_ma.manager.flows.abort_connect`).

Store: ``context``, ``attachment_id``, ``volume_id``, ``volume_host``,
``attach_mode``, ``connector`` (the consumer's), ``host`` (the
connector's host), ``mountpoint`` (or None), ``manager_api`` and
``connection_lock`` (taken by the task that calls the backend, released
by the caller after the run), and ``read``: the volume and the QoS specs
of its type as read in the claim's transaction
(:func:`cinder_ma.manager.manager.connection_read`), which the backend
call takes instead of reading them again.

The attachment arrives 'reserved' and leaves 'attaching' with the
connector and the connection info (provided as ``attachment``), or, on
failure, as its sentinel says, with no connection left on the backend
that no attachment accounts for.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import attachment as attachment_tasks
from cinder_ma.manager.tasks import connection as connection_tasks

FLOW_NAME = 'connect_attachment'

#: The sentinel of each flow: what a failure leaves of the attachment.
SENTINELS = {
    # PUT /attachments/{id}: 'error_attaching', as Cinder's manager.
    'update': attachment_tasks.AttachmentToErrorAttachingOnRevert,
    # POST /attachments with a connector: no attachment at all.
    'create': attachment_tasks.ReleaseReservationOnRevert,
    # os-initialize_connection: still 'reserved', as in Cinder.
    'legacy': attachment_tasks.AttachmentToReservedOnRevert,
}


def store_of(context, volume, attachment, connector):
    """The store of the connect flow of ``attachment`` (a reserved
    record) of ``volume`` to ``connector``'s host, without the
    ``manager_api`` and ``connection_lock`` of the process that runs
    it."""
    return {'context': context, 'attachment_id': attachment.id,
            'volume_id': volume.id, 'volume_host': volume.host,
            'attach_mode': attachment.attach_mode, 'connector': connector,
            'host': connector['host'],
            'mountpoint': connector.get('mountpoint')}


def get_flow(kind='update'):
    """The connect flow.

    :param kind: a key of :data:`SENTINELS`.
    """
    # Two tasks: the first carries the sentinel, whose revert it runs
    # after its own (as TaskFlow would revert a sentinel placed before
    # it), one task fewer on every attach.
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(connection_tasks.LockAndInitializeConnection(
                 sentinel=SENTINELS[kind]()),
             attachment_tasks.RecordConnected())
    return flow
