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

"""Flow growing a volume.

Store: ``context``, ``volume_id``, ``volume`` (a VolumeRef), ``new_size``.
The volume is in status 'extending'. The backend grows the storage, then
the manager of every host holding an attachment of the volume made
through it resizes that disk (each call bounded; a host that could not is
reported, not a failure), then the volume leaves 'extending' with the new
size, its attachments' connection info records it, and the attachments
whose instance does not see it carry the reason (``not_resized``, which
the flow provides). Then, where ``[nova]`` is configured, Nova is sent
``volume-extended`` for the instances of the attachments made by an
external consumer (Nova's own), which read the new size from the API;
those Nova was not told of carry the reason (``nova_not_told``). On
failure (the backend could not grow it) the volume keeps its size and
goes back to its status, with error_reason.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import lifecycle
from cinder_ma.manager.tasks import nova as nova_tasks
from cinder_ma.manager.tasks import volume as volume_tasks

FLOW_NAME = 'extend_volume'


def get_flow(driver, manager_api, nova_api):
    """The extend flow for a volume of ``driver``'s backend; the hosts of
    its attachments are called through ``manager_api``, Nova through
    ``nova_api`` (a :class:`cinder_ma.manager.nova.NovaAPI`)."""
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(lifecycle.VolumeFromExtendingOnRevert(),
             volume_tasks.ReleaseExtendQuotaOnRevert(),
             volume_tasks.ExtendVolumeOnBackend(driver),
             volume_tasks.ResizeAttachedDisks(manager_api),
             volume_tasks.FinishExtend(),
             nova_tasks.TellNovaVolumeExtended(nova_api))
    return flow
