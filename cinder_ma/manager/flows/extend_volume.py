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

Store: ``context``, ``volume_id``, ``volume`` (a VolumeRef), ``new_size``,
``manager_api``, ``nova_api`` (a :class:`cinder_ma.manager.nova.NovaAPI`).
The volume is in status 'extending'. The backend grows the storage, then
the manager of every host holding an attachment of the volume made
through it resizes that disk (an unordered flow of one task per
attachment, which the parallel engine runs at once; each call bounded; a
host that could not is reported, not a failure), then the volume leaves
'extending' with the new size, its attachments' connection info records
it, and the attachments whose instance does not see it carry the reason
(``not_resized``, which the flow provides). Then, where ``[nova]`` is
configured, Nova is sent ``volume-extended`` for the instances of the
attachments made by an external consumer (Nova's own), which read the
new size from the API; those Nova was not told of carry the reason
(``nova_not_told``). On failure (the backend could not grow it) the
volume keeps its size and goes back to its status, with error_reason.
"""

from taskflow.patterns import linear_flow
from taskflow.patterns import unordered_flow

from cinder_ma.manager.tasks import lifecycle
from cinder_ma.manager.tasks import nova as nova_tasks
from cinder_ma.manager.tasks import volume as volume_tasks

FLOW_NAME = 'extend_volume'


RESIZE_FLOW_NAME = 'resize_attached_disks'


def get_flow(driver, targets=()):
    """The extend flow for a volume of ``driver``'s backend.

    :param targets: the attachments whose disk a host's manager resizes
        (:func:`cinder_ma.manager.tasks.volume.resize_targets`).
    """
    resize = unordered_flow.Flow(RESIZE_FLOW_NAME)
    resize.add(*(volume_tasks.ResizeAttachedDisk(attachment)
                 for attachment in targets))
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(lifecycle.VolumeFromExtendingOnRevert(),
             volume_tasks.ReleaseExtendQuotaOnRevert(),
             volume_tasks.ExtendVolumeOnBackend(driver),
             resize,
             volume_tasks.FinishExtend(targets),
             nova_tasks.TellNovaVolumeExtended())
    return flow
