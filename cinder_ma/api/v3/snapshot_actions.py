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

"""Actions of snapshots: ``POST /v3/{project_id}/snapshots/{id}/action``,
as Cinder's ``cinder/api/contrib/snapshot_actions.py`` and the snapshot
part of ``admin_actions.py``:

* ``os-reset_status`` (admins, 202): the snapshot's status;
* ``os-force_delete`` (admins, 202): delete from any status;
* ``os-update_snapshot_status`` (a service, 202): a compute service
  reports a snapshot it takes (``creating`` to ``available`` or
  ``error``, ``deleting`` to ``error_deleting``), with its
  ``progress``.
"""

from cinder_ma.api import actions
from cinder_ma.api import expose
from cinder_ma.api.schemas import snapshots as schemas
from cinder_ma.api.v3 import snapshots as snapshot_controllers
from cinder_ma.api import validation
from cinder_ma.volume import snapshots as snapshot_api


@expose.expose(status=202)
@validation.schema(schemas.reset_status)
def reset_status(req, project_id, snapshot_id, body):
    snapshot_api.reset_status(
        req.context, snapshot_controllers.checked_id(snapshot_id),
        body['os-reset_status']['status'])


@expose.expose(status=202)
def force_delete(req, project_id, snapshot_id):
    snapshot_api.force_delete(req.context,
                              snapshot_controllers.checked_id(snapshot_id))


@expose.expose(status=202)
@validation.schema(schemas.update_snapshot_status)
def update_snapshot_status(req, project_id, snapshot_id, body):
    params = body['os-update_snapshot_status']
    snapshot_api.update_snapshot_status(
        req.context, snapshot_controllers.checked_id(snapshot_id),
        params['status'], progress=params.get('progress'))


ACTIONS = {
    'os-reset_status': reset_status,
    'os-force_delete': force_delete,
    'os-update_snapshot_status': update_snapshot_status,
}

# POST /v3/{project_id}/snapshots/{id}/action
action = expose.expose(status=202)(actions.dispatcher(ACTIONS, 'action'))
