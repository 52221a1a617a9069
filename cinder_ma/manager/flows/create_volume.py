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

"""Flow creating a volume's storage on its backend.

Store: ``context``, ``volume_id``, ``volume`` (a VolumeRef) and, optionally,
``claim``: the manager's claim on the volume's work, given up with the
volume's last status change. The volume is in status 'creating' (the API
recorded it with its host); on success it is 'available', on failure
'error' with error_reason and no storage left.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import lifecycle
from cinder_ma.manager.tasks import snapshot as snapshot_tasks
from cinder_ma.manager.tasks import volume as volume_tasks

FLOW_NAME = 'create_volume'
FROM_SNAPSHOT_FLOW_NAME = 'create_volume_from_snapshot'
CLONE_FLOW_NAME = 'create_cloned_volume'


def get_flow(driver):
    """The create flow for a volume of ``driver``'s backend."""
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(lifecycle.VolumeToErrorOnRevert(),
             volume_tasks.CreateVolumeOnBackend(driver),
             volume_tasks.MarkVolumeAvailable())
    return flow


def get_flow_from_snapshot(driver):
    """The create flow of a volume made from a snapshot (store: also
    ``snapshot``, a SnapshotRef)."""
    flow = linear_flow.Flow(FROM_SNAPSHOT_FLOW_NAME)
    flow.add(lifecycle.VolumeToErrorOnRevert(),
             snapshot_tasks.CreateVolumeFromSnapshot(driver),
             volume_tasks.MarkVolumeAvailable())
    return flow


def get_clone_flow(driver):
    """The create flow of a copy of another volume (store: also
    ``source``, its VolumeRef)."""
    flow = linear_flow.Flow(CLONE_FLOW_NAME)
    flow.add(lifecycle.VolumeToErrorOnRevert(),
             snapshot_tasks.CloneVolume(driver),
             volume_tasks.MarkVolumeAvailable())
    return flow
