"""Flow creating a volume's storage on its backend.

Store: ``context``, ``volume_id``, ``volume`` (a VolumeRef). The volume is
in status 'creating' (the API recorded it with its host); on success it is
'available', on failure 'error' with error_reason and no storage left.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import lifecycle
from cinder_ma.manager.tasks import volume as volume_tasks

FLOW_NAME = 'create_volume'


def get_flow(driver):
    """The create flow for a volume of ``driver``'s backend."""
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(lifecycle.VolumeToErrorOnRevert(),
             volume_tasks.CreateVolumeOnBackend(driver),
             volume_tasks.MarkVolumeAvailable())
    return flow
