"""Flow growing a volume.

Store: ``context``, ``volume_id``, ``volume`` (a VolumeRef), ``new_size``.
The volume is in status 'extending'. The backend grows the storage, then
the manager of every host holding an attachment of the volume made
through it resizes that disk (each call bounded; a host that could not is
reported, not a failure), then the volume leaves 'extending' with the new
size, its attachments' connection info records it, and the attachments
whose instance does not see it carry the reason (``not_resized``, which
the flow provides). On failure (the backend could not grow it) the volume
keeps its size and goes back to its status, with error_reason.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import lifecycle
from cinder_ma.manager.tasks import volume as volume_tasks

FLOW_NAME = 'extend_volume'


def get_flow(driver, manager_api):
    """The extend flow for a volume of ``driver``'s backend; the hosts of
    its attachments are called through ``manager_api``."""
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(lifecycle.VolumeFromExtendingOnRevert(),
             volume_tasks.ReleaseExtendQuotaOnRevert(),
             volume_tasks.ExtendVolumeOnBackend(driver),
             volume_tasks.ResizeAttachedDisks(manager_api),
             volume_tasks.FinishExtend())
    return flow
