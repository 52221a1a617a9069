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

"""Flow revoking a fenced attachment's access at the target.

Run by the manager of the volume's backend, under a claim on the
attachment, once ``cinder-ma-fencing:fence`` recorded the attachment
fenced (:func:`cinder_ma.db.fencing.attachment_fence`): under
the volume's connection lock, the backend ends the attachment's own
connection at once (its export stopped: open connections dropped, its
credentials refused from then on).

Store: ``context``, ``attachment_id``, ``volume_id``, ``volume_host``,
``revoke`` (``[{'attachment_id', 'connector'}]``, the fenced attachment),
``manager_api`` (the ManagerAPI reaching the backend's manager) and
``connection_lock`` (the ConnectionLock of the volume's connections,
released by the caller after the run).

On failure the attachment stays fenced, with the reason recorded
(``error_reason``); fencing it again repeats the revocation.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import connection as connection_tasks
from cinder_ma.manager.tasks import fencing as fencing_tasks

FLOW_NAME = 'fence_attachment'


def store_of(context, volume, attachment):
    """The store of the fence flow of ``attachment`` (fenced) of
    ``volume``, without ``manager_api`` and ``connection_lock``."""
    return {'context': context, 'attachment_id': attachment.id,
            'volume_id': volume.id, 'volume_host': volume.host,
            'revoke': [{'attachment_id': attachment.id,
                        'connector': attachment.connector}]}


def get_flow():
    """The fence flow."""
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(fencing_tasks.FailureReasonOnRevert('Fencing'),
             connection_tasks.AcquireConnectionLock(),
             fencing_tasks.RevokeConnections())
    return flow
