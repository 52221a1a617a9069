"""Flow growing a volume.

Store: ``context``, ``volume_id``, ``volume`` (a VolumeRef), ``new_size``.
The volume is in status 'extending'; on success it has the new size and
the status its attachments give; on failure it keeps its size and status,
with error_reason.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import lifecycle
from cinder_ma.manager.tasks import volume as volume_tasks

FLOW_NAME = 'extend_volume'


def get_flow(driver):
    """The extend flow for a volume of ``driver``'s backend."""
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(lifecycle.VolumeFromExtendingOnRevert(),
             volume_tasks.ReleaseExtendQuotaOnRevert(),
             volume_tasks.ExtendVolumeOnBackend(driver),
             volume_tasks.FinishExtend())
    return flow
