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

"""Flows ending the connection of an attachment that a consumer connected
itself (attachments API, legacy actions), run by the manager of the
volume's backend under a claim on the attachment, and by its reconcile
loop for a delete whose process died half-way (the attachment left
'detaching').

The mirror of :mod:`~cinder_ma.manager.flows.connect_attachment`, and the
backend half of the manager's detach flow, with its tasks: under the
connection lock, the backend's connection to the host is terminated only
when no other attachment on that host uses it, and the attachment stops
counting as a user before the lock is released, so that of concurrent
detaches of the last users exactly one terminates the connection.

Store: ``context``, ``attachment_id``, ``volume_id``, ``volume_host``,
``instance_uuid``, ``attach_mode``, ``host`` (the host of the recorded
connector, or None), ``connector`` and ``connection_info`` (recorded, or
None), ``record`` (the attachment as the flow got it) and ``claim`` (the
claim the flow runs under, or None), ``volume_record`` (the volume as
read), ``manager_api`` and
``connection_lock`` (released by the caller after the run).

A delete whose attachment shares the host's connection with others is
deleted in the transaction that counts them (nothing is terminated); the
last user's counts none, terminates the connection, then is deleted.

:func:`get_flow` (delete, os-detach, os-force_detach): the attachment
arrives 'detaching' and is deleted; on failure it is 'error_detaching'
and deleting it again retries. :func:`get_terminate_flow`
(``os-terminate_connection``): the attachment stays, without its
connection, until ``os-detach`` deletes it.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import attachment as attachment_tasks
from cinder_ma.manager.tasks import connection as connection_tasks

FLOW_NAME = 'disconnect_attachment'
TERMINATE_FLOW_NAME = 'terminate_attachment_connection'


def store_of(context, volume, attachment, claim=None):
    """The store of these flows for ``attachment`` of ``volume`` (records
    as read, with the ``claim`` the flow runs under when it is to write
    with it), without the ``manager_api`` and ``connection_lock`` of the
    process that runs them."""
    connector = attachment.connector
    return {
        'record': attachment, 'claim': claim, 'volume_record': volume,
        'context': context, 'attachment_id': attachment.id,
        'volume_id': volume.id, 'volume_host': volume.host,
        'instance_uuid': attachment.instance_uuid,
        'attach_mode': attachment.attach_mode,
        'host': (connector or {}).get('host') or attachment.attached_host,
        'connector': connector if volume.host else None,
        'connection_info': attachment.connection_info,
    }


def get_flow(reconciled=False):
    """The flow deleting a consumer's attachment in 'detaching'.

    :param reconciled: run by the reconcile loop of the backend's manager,
        which finishes a delete whose API worker died (see the sentinel).
    """
    # Run on every detach: two tasks, the first carrying the sentinel
    # (see LockAndTerminateConnection). Whoever runs it releases the lock
    # after the run and emits volume.detach.end with the records it read.
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(connection_tasks.LockAndTerminateOrDestroy(
                 sentinel=attachment_tasks.AttachmentToErrorDetachingOnRevert(
                     reconciled=reconciled)),
             attachment_tasks.DestroyAttachment())
    return flow


def get_terminate_flow():
    """The flow of ``os-terminate_connection``: the connection ends, the
    attachment stays."""
    flow = linear_flow.Flow(TERMINATE_FLOW_NAME)
    flow.add(connection_tasks.LockAndTerminateConnection(
                 sentinel=attachment_tasks.AttachmentToErrorDetachingOnRevert()),
             attachment_tasks.ForgetConnection())
    return flow
