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

"""Flow deleting a volume's storage and record.

Store: ``context``, ``volume_id``, ``volume`` (a VolumeRef). The volume is
in status 'deleting' (its snapshots too, with ``cascade``: they are
deleted first); on success its record is soft-deleted, on failure it is
'error_deleting' with error_reason (deleting it again retries).
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import lifecycle
from cinder_ma.manager.tasks import snapshot as snapshot_tasks
from cinder_ma.manager.tasks import volume as volume_tasks

FLOW_NAME = 'delete_volume'


def get_flow(driver):
    """The delete flow for a volume of ``driver``'s backend."""
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(lifecycle.VolumeToErrorDeletingOnRevert(),
             # Those of a cascade (a plain delete is refused while the
             # volume has any).
             snapshot_tasks.DeleteSnapshotsOfVolume(driver),
             volume_tasks.DeleteVolumeOnBackend(driver),
             volume_tasks.DestroyVolumeRecord())
    return flow
