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

"""Flow detaching an attachment from an instance of this host.

Run by the manager of the instance's host (the attachment's
``manager_host``). Store: ``context``, ``attachment_id``, ``volume_id``,
``volume_host``, ``instance_uuid``, ``attach_mode``, ``host`` (this
host), ``shared_service_uuid`` (as in the attach flow), and the
attachment's recorded ``connector`` and ``connection_info`` (either may be
None), ``manager_api`` and ``connection_lock`` (as in the attach flow).

The attachment arrives 'detaching' (the API set it). The disk is removed
from the instance; then, under the connection lock, the host's connection
and the backend's are torn down only when no other attachment on this
host still uses them, and the attachment is deleted before the lock is
released, so that the next detach counts without it. On failure the
attachment is 'error_detaching'; detaching again retries every step. When
the database, the broker or the backend's manager could not be reached
or did not answer in time, it stays 'detaching' and the reconcile loop
detaches it once they answer.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import attachment as attachment_tasks
from cinder_ma.manager.tasks import connection as connection_tasks
from cinder_ma.manager.tasks import hypervisor as hypervisor_tasks

FLOW_NAME = 'detach_volume'


def teardown(connectors, hypervisor):
    """The tasks removing an attachment's disk from its instance and then,
    under the connection lock (taken here, released by the caller's
    flow after it recorded the outcome), tearing down the host's and the
    backend's connections unless another attachment uses them. The
    detach flow and the rollback of an interrupted attach share them."""
    return (hypervisor_tasks.CheckHypervisor(hypervisor),
            hypervisor_tasks.DetachFromHypervisor(hypervisor),
            connection_tasks.AcquireConnectionLock(),
            connection_tasks.DisconnectVolume(connectors),
            connection_tasks.TerminateConnection())


def get_flow(connectors, hypervisor):
    """The detach flow (arguments as for the attach flow)."""
    # The reconcile loop owns this work (see the sentinel).
    sentinel = attachment_tasks.AttachmentToErrorDetachingOnRevert(
        reconciled=True)
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(sentinel,
             *teardown(connectors, hypervisor),
             attachment_tasks.DestroyAttachment(),
             connection_tasks.ReleaseConnectionLock(),
             attachment_tasks.NotifyAttachment('detach.end'))
    return flow
