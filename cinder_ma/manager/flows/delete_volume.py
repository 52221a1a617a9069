"""Flow deleting a volume's storage and record.

Store: ``context``, ``volume_id``, ``volume`` (a VolumeRef). The volume is
in status 'deleting'; on success its record is soft-deleted, on failure it
is 'error_deleting' with error_reason (deleting it again retries).
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import lifecycle
from cinder_ma.manager.tasks import volume as volume_tasks

FLOW_NAME = 'delete_volume'


def get_flow(driver):
    """The delete flow for a volume of ``driver``'s backend."""
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(lifecycle.VolumeToErrorDeletingOnRevert(),
             volume_tasks.DeleteVolumeOnBackend(driver),
             volume_tasks.DestroyVolumeRecord())
    return flow
