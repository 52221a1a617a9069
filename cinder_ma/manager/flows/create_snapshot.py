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

"""Flow taking a snapshot on its volume's backend.

Store: ``context``, ``snapshot_id``, ``snapshot`` (a SnapshotRef) and,
optionally, ``claim``: the manager's claim on the snapshot's work, given
up with its last status change. The snapshot is 'creating'; on success
it is 'available' and the flow provides ``paused`` (how long the driver
held the volume's writes, or None); on failure 'error' with
error_reason and no storage left.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import lifecycle
from cinder_ma.manager.tasks import snapshot as snapshot_tasks

FLOW_NAME = 'create_snapshot'


def get_flow(driver):
    """The create flow for a snapshot on ``driver``'s backend."""
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(lifecycle.SnapshotToErrorOnRevert(),
             snapshot_tasks.CreateSnapshotOnBackend(driver),
             snapshot_tasks.MarkSnapshotAvailable())
    return flow
