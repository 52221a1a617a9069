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

"""Flow rolling back an attach flow that was interrupted (its manager
died) with the attachment 'attaching'.

Run by the reconcile loop of the manager of the instance's host (see
:mod:`cinder_ma.manager.reconcile`), before the attach flow runs again.
Store as for the detach flow (the caller releases the connection lock
after the run). The interrupted flow may have attached the
disk to the instance, and connected the host and the backend (both
recorded on the attachment when it became 'attaching'): the disk is
removed, then, under the connection lock, the host's and the backend's
connections are torn down unless another attachment on this host uses
them, and the attachment goes back to 'reserved' without them. On
failure it is 'error_attaching' (a failed step's reason recorded), except
when the database, the broker or the backend's manager could not be
reached or did not answer in time: it stays 'attaching' for a later pass
of the reconcile loop.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.flows import detach_volume as detach_flow
from cinder_ma.manager.tasks import attachment as attachment_tasks

FLOW_NAME = 'rollback_attach'


def get_flow(connectors, hypervisor):
    """The rollback flow (arguments as for the attach flow)."""
    # The reconcile loop owns this work (see the sentinel).
    sentinel = attachment_tasks.AttachmentToErrorAttachingOnRevert(
        reconciled=True)
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(sentinel,
             *detach_flow.teardown(connectors, hypervisor),
             attachment_tasks.RecordReserved())
    return flow
