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
itself (attachments API, legacy actions), run in the API process.

The mirror of :mod:`~cinder_ma.manager.flows.connect_attachment`, and the
backend half of the manager's detach flow, with its tasks: under the
connection lock, the backend's connection to the host is terminated only
when no other attachment on that host uses it, and the attachment stops
counting as a user before the lock is released, so that of concurrent
detaches of the last users exactly one terminates the connection.

Store: ``context``, ``attachment_id``, ``volume_id``, ``volume_host``,
``instance_uuid``, ``attach_mode``, ``host`` (the host of the recorded
connector, or None), ``connector`` and ``connection_info`` (recorded, or
None).

:func:`get_flow` (delete, os-detach, os-force_detach): the attachment
arrives 'detaching' and is deleted; on failure it is 'error_detaching'
and deleting it again retries. :func:`get_terminate_flow`
(``os-terminate_connection``): the attachment stays, without its
connection, until ``os-detach`` deletes it.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager import flows
from cinder_ma.manager.tasks import attachment as attachment_tasks
from cinder_ma.manager.tasks import connection as connection_tasks

FLOW_NAME = 'disconnect_attachment'
TERMINATE_FLOW_NAME = 'terminate_attachment_connection'


def get_flow(manager_api, lock):
    """The flow deleting a consumer's attachment in 'detaching'."""
    # Run on every attach cycle: its tasks are copies (flows.new_task).
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(flows.new_task(
                 attachment_tasks.AttachmentToErrorDetachingOnRevert),
             flows.new_task(connection_tasks.AcquireConnectionLock,
                            lock=lock),
             flows.new_task(connection_tasks.TerminateConnection,
                            manager_api=manager_api),
             flows.new_task(attachment_tasks.DestroyAttachment),
             flows.new_task(connection_tasks.ReleaseConnectionLock,
                            lock=lock),
             flows.new_task(attachment_tasks.NotifyAttachment,
                            'detach.end'))
    return flow


def get_terminate_flow(manager_api, lock):
    """The flow of ``os-terminate_connection``: the connection ends, the
    attachment stays."""
    flow = linear_flow.Flow(TERMINATE_FLOW_NAME)
    flow.add(flows.new_task(
                 attachment_tasks.AttachmentToErrorDetachingOnRevert),
             flows.new_task(connection_tasks.AcquireConnectionLock,
                            lock=lock),
             flows.new_task(connection_tasks.TerminateConnection,
                            manager_api=manager_api),
             flows.new_task(attachment_tasks.ForgetConnection),
             flows.new_task(connection_tasks.ReleaseConnectionLock,
                            lock=lock))
    return flow
