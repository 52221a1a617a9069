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

"""Flow attaching a reserved attachment to an instance of this host.

Run by the manager of the instance's host (the attachment's
``manager_host``). Store: ``context``, ``attachment_id``, ``volume_id``,
``volume_host`` (``node@backend#pool``), ``instance_uuid``,
``attach_mode``, ``shareable`` (the volume is multiattach),
``mountpoint`` (requested, or None), ``host`` (this host) and
``shared_service_uuid`` (the backend's service uuid when it has shared
targets, else None), ``manager_api`` (the ManagerAPI reaching the
backend's manager) and ``connection_lock`` (the ConnectionLock of the
volume's connection, which the caller releases after the run).

The attachment arrives 'reserved'. On success it is 'attached' with its
connector, connection info and device; on failure it is
'error_attaching', with no connection left initialized on the backend or
connected on the host (unless another attachment on this host uses it),
except when the database, the broker or the backend's manager could not
be reached or did not answer in time: then it stays 'reserved' for the
reconcile loop, which attaches it once they answer.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import attachment as attachment_tasks
from cinder_ma.manager.tasks import connection as connection_tasks
from cinder_ma.manager.tasks import hypervisor as hypervisor_tasks

FLOW_NAME = 'attach_volume'


def get_flow(connectors, hypervisor):
    """The attach flow.

    :param connectors: this host's Connectors.
    :param hypervisor: this host's hypervisor driver, or None.
    """
    # The reconcile loop owns this work (see the sentinel).
    sentinel = attachment_tasks.AttachmentToErrorAttachingOnRevert(
        reconciled=True)
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(sentinel,
             hypervisor_tasks.CheckHypervisor(hypervisor),
             connection_tasks.GetConnectorProperties(),
             connection_tasks.AcquireConnectionLock(),
             connection_tasks.InitializeConnection(),
             connection_tasks.ConnectVolume(connectors),
             attachment_tasks.RecordAttaching(),
             connection_tasks.ReleaseConnectionLock(),
             hypervisor_tasks.AttachOnHypervisor(hypervisor),
             attachment_tasks.CompleteAttachment(),
             attachment_tasks.NotifyAttachment('attach.end'))
    return flow
