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

"""Flows carrying out a standby's promotion to the writer of its volume.

``cinder-ma-fencing:promote`` first decides, in one transaction
(:func:`cinder_ma.db.fencing.attachment_promote`): the writer is read-only
and fenced, the standby is the writer at the next generation. These flows
then make it so at the target, in this order, under the volume's
connection lock: the fenced writers' connections are ended (``revoke``),
and only then does the backend make the standby's read-write connection
(ending its read-only one first), so that two writers never have access
at once; the new connection info is recorded while the standby is still
that generation's unfenced writer.

* :func:`get_flow`, run by the manager of the volume's backend under a
  claim on the attachment, for an attachment whose consumer connects its
  host itself: the consumer reads the new connection info in
  the answer (or the attachment) and reconnects its client.
* :func:`get_host_flow`, run by the manager of the attachment's host for
  one it attached (cinder-ma-manager-attach), under a claim on the
  attachment too (its reconcile loop runs the flow again if that process
  dies; every step is safe to repeat): the host connects the new
  connection and the hypervisor driver switches the instance's disk to it
  in place (:meth:`~cinder_ma.hypervisor.drivers.base.HypervisorDriver.
  reconnect_volume`), then the previous connection is disconnected.

Store: ``context``, ``attachment_id``, ``volume_id``, ``volume_host``,
``attach_mode`` ('rw'), ``generation`` (the promoted one), ``revoke``
(``[{'attachment_id', 'connector'}]``), ``previous_connection_info``,
and ``connector`` and ``host`` (the consumer's) for :func:`get_flow`, or
``host`` (this host), ``instance_uuid``, ``shareable`` and
``shared_service_uuid`` for :func:`get_host_flow`; ``manager_api`` and
``connection_lock`` (released by the caller after the run).

On failure the decision stands (the standby is the writer, the old
writer fenced), the reason is recorded on the standby, and its recorded
connection info is the previous one: promoting it again finishes the
promotion.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import connection as connection_tasks
from cinder_ma.manager.tasks import fencing as fencing_tasks
from cinder_ma.manager.tasks import hypervisor as hypervisor_tasks

FLOW_NAME = 'promote_attachment'
HOST_FLOW_NAME = 'promote_attachment_on_host'


def store_of(context, volume, attachment, revoke):
    """The store of :func:`get_flow` for ``attachment`` (the recorded
    writer, its connector the consumer's) of ``volume``, without
    ``manager_api`` and ``connection_lock``."""
    connector = attachment.connector
    return {'context': context, 'attachment_id': attachment.id,
            'volume_id': volume.id, 'volume_host': volume.host,
            'attach_mode': 'rw', 'generation': attachment.generation,
            'revoke': revoke, 'connector': connector,
            'host': connector['host'],
            'previous_connection_info': attachment.connection_info}


def get_flow():
    """The promotion flow of a consumer's attachment (backend's
    manager)."""
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(fencing_tasks.FailureReasonOnRevert('Promotion'),
             connection_tasks.AcquireConnectionLock(),
             fencing_tasks.RevokeConnections(),
             connection_tasks.InitializeConnection(),
             fencing_tasks.RecordPromoted())
    return flow


def get_host_flow(connectors, hypervisor):
    """The promotion flow of an attachment a manager made, run by the
    manager of its host (arguments as for the attach flow)."""
    flow = linear_flow.Flow(HOST_FLOW_NAME)
    flow.add(fencing_tasks.FailureReasonOnRevert('Promotion'),
             hypervisor_tasks.CheckHypervisor(hypervisor),
             connection_tasks.GetConnectorProperties(),
             connection_tasks.AcquireConnectionLock(),
             fencing_tasks.RevokeConnections(),
             connection_tasks.InitializeConnection(),
             connection_tasks.ConnectVolume(connectors),
             fencing_tasks.RecordPromoted(),
             connection_tasks.ReleaseConnectionLock(),
             hypervisor_tasks.ReconnectOnHypervisor(hypervisor),
             fencing_tasks.DisconnectPrevious(connectors))
    return flow
