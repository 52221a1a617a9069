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

"""Flow connecting a fenced attachment again (``PUT
/attachments/{id}`` with a new connector), run by the manager of the
volume's backend under a claim on the attachment.

The consumer of a fenced attachment gets a new connection: under the
volume's connection lock the backend makes the attachment's connection
again (a new export and new credentials; anything left of the old one is
ended first) and the attachment is recorded 'attaching' with the new
connector and connection info, unfenced, at the next generation, in a
compare-and-swap that requires it still fenced at the generation the
request read. The consumer then completes it (``os-complete``).

Store: ``context``, ``attachment_id``, ``volume_id``, ``volume_host``,
``attach_mode``, ``connector``, ``host`` (the connector's),
``mountpoint``, ``generation`` (read, fenced) and ``previous`` (the
columns the revert puts back), ``manager_api`` and ``connection_lock``
(released by the caller after the run).

On failure the attachment is fenced as before, with the reason recorded;
no new connection is left on the backend.
"""

from taskflow.patterns import linear_flow

from cinder_ma.manager.tasks import connection as connection_tasks
from cinder_ma.manager.tasks import fencing as fencing_tasks

FLOW_NAME = 'reconnect_attachment'


#: The columns of a fenced attachment the revert of the flow puts back.
PREVIOUS = ('attach_status', 'attached_host', 'mountpoint', 'fenced_at')


def store_of(context, volume, attachment, connector):
    """The store of the reconnect flow of ``attachment`` (fenced, as
    read) of ``volume`` to ``connector``'s host, without ``manager_api``
    and ``connection_lock``."""
    previous = {key: getattr(attachment, key) for key in PREVIOUS}
    previous.update(connector=attachment.connector,
                    connection_info=attachment.connection_info)
    return {'context': context, 'attachment_id': attachment.id,
            'volume_id': volume.id, 'volume_host': volume.host,
            'attach_mode': attachment.attach_mode, 'connector': connector,
            'host': connector['host'],
            'mountpoint': connector.get('mountpoint'),
            'generation': attachment.generation, 'previous': previous}


def get_flow():
    """The reconnect flow."""
    flow = linear_flow.Flow(FLOW_NAME)
    flow.add(fencing_tasks.FailureReasonOnRevert('Reconnecting'),
             connection_tasks.AcquireConnectionLock(),
             connection_tasks.InitializeConnection(),
             fencing_tasks.RecordReconnected())
    return flow
