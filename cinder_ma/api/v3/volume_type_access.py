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

"""Access to private volume types (os-volume-type-access), as Cinder's
``cinder/api/contrib/volume_type_access.py``.

* ``GET /v3/{project_id}/types/{type_id}/os-volume-type-access``: the
  projects that may use a private type. A public type has no list: a
  404, as in Cinder.
* ``POST /v3/{project_id}/types/{type_id}/action`` with
  ``{"addProjectAccess": {"project": ...}}`` or
  ``{"removeProjectAccess": {"project": ...}}``: 202 with no body. Giving
  access twice is a 409, taking away access a project does not have a
  404, and a public type takes no access (400).

Administrators only by default: the service
(:mod:`cinder_ma.volume.types`) enforces the policies. Type views show
``os-volume-type-access:is_public`` (see :mod:`cinder_ma.api.views.types`)
and type lists take ``is_public`` (see :mod:`cinder_ma.api.v3.types`).
"""

from cinder_ma.api import actions
from cinder_ma.api import expose
from cinder_ma.api.schemas import volume_type_access as schemas
from cinder_ma.api.v3 import types
from cinder_ma.api import validation
from cinder_ma.api.views import volume_type_access as views
from cinder_ma.volume import types as volume_types


@expose.expose()
def index(req, project_id, type_id):
    """GET /v3/{project_id}/types/{type_id}/os-volume-type-access."""
    type_id = types.checked_id(type_id)
    # A public type has no list: a 404, as in Cinder.
    project_ids = volume_types.list_type_access(req.context, type_id)
    return views.index(type_id, project_ids)


@expose.expose(status=202)
@validation.schema(schemas.add_project_access)
def add_project_access(req, project_id, type_id, body):
    """``addProjectAccess``: let a project use a private type."""
    volume_types.add_type_access(req.context, types.checked_id(type_id),
                                 body['addProjectAccess']['project'])


@expose.expose(status=202)
@validation.schema(schemas.remove_project_access)
def remove_project_access(req, project_id, type_id, body):
    """``removeProjectAccess``: take a private type away from a
    project."""
    volume_types.remove_type_access(req.context, types.checked_id(type_id),
                                    body['removeProjectAccess']['project'])


ACTIONS = {
    'addProjectAccess': add_project_access,
    'removeProjectAccess': remove_project_access,
}

# POST /v3/{project_id}/types/{type_id}/action
action = expose.expose(status=202)(actions.dispatcher(ACTIONS, 'action'))
