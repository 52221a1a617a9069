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

"""Flow reverting a volume to its latest snapshot (3.40 ``os-revert``).

Store: ``context``, ``volume_id``, ``volume`` (a VolumeRef),
``snapshot_id``, ``snapshot`` (a SnapshotRef) and, optionally, ``claim``
(the manager's claim on the volume). The volume is 'reverting' and the
snapshot 'restoring'; on success both are 'available'; on failure the
volume is 'error' with error_reason and the snapshot 'available', as in
Cinder.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import lifecycle
from cinder_ma.manager.tasks import snapshot as snapshot_tasks

FLOW_NAME = 'revert_volume'


def get_flow(driver):
    """The revert flow for a volume of ``driver``'s backend."""
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(lifecycle.RevertToErrorOnRevert(),
             snapshot_tasks.RevertVolumeOnBackend(driver),
             snapshot_tasks.FinishRevert())
    return flow
