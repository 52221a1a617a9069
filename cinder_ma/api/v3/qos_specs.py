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

"""QoS specs: ``/v3/{project_id}/qos-specs`` (admins), as Cinder's
``qos_specs_manage`` extension.

Create, list, show, set keys (``PUT``), delete (``?force=true`` also
disassociates), delete keys (``PUT .../delete_keys``), associate with and
disassociate from volume types (``GET .../associate?vol_type_id=``,
``.../disassociate?vol_type_id=``, ``.../disassociate_all``) and list the
associations (``GET .../associations``).
"""

from oslo_utils import strutils
import webob.exc

from cinder_ma.api import expose
from cinder_ma.api.schemas import qos_specs as schemas
from cinder_ma.api import validation
from cinder_ma.api.views import qos_specs as views
from cinder_ma.volume import qos_specs as qos_api


def _type_id(req):
    type_id = req.GET.get('vol_type_id')
    if not type_id:
        raise webob.exc.HTTPBadRequest(
            explanation='Volume Type id must not be None.')
    return type_id


@expose.expose()
def index(req, project_id):
    return views.index(req, qos_api.list_specs(req.context))


@expose.expose()
@validation.schema(schemas.create)
def create(req, project_id, body):
    specs = dict(body['qos_specs'])
    name = specs.pop('name').strip()
    created = qos_api.create(req.context, name, specs)
    return views.show(req, created)


@expose.expose()
def show(req, project_id, qos_id):
    return views.show(req, qos_api.get(req.context, qos_id))


@expose.expose()
@validation.schema(schemas.set_keys)
def update(req, project_id, qos_id, body):
    """Set keys; the response repeats the request, as in Cinder."""
    qos_api.update(req.context, qos_id, body['qos_specs'] or {})
    return body


@expose.expose(status=202)
def delete(req, project_id, qos_id):
    force = req.GET.get('force', 'false')
    try:
        force = strutils.bool_from_string(force, strict=True)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid value %r for force: a boolean is '
                        'expected.' % force)
    qos_api.delete(req.context, qos_id, force=force)


@expose.expose(status=202)
@validation.schema(schemas.unset_keys)
def delete_keys(req, project_id, qos_id, body):
    qos_api.delete_keys(req.context, qos_id, body['keys'])


@expose.expose()
def associations(req, project_id, qos_id):
    return views.associations(req, qos_api.associations(req.context,
                                                        qos_id))


@expose.expose(status=202)
def associate(req, project_id, qos_id):
    qos_api.associate(req.context, qos_id, _type_id(req))


@expose.expose(status=202)
def disassociate(req, project_id, qos_id):
    qos_api.disassociate(req.context, qos_id, _type_id(req))


@expose.expose(status=202)
def disassociate_all(req, project_id, qos_id):
    qos_api.disassociate_all(req.context, qos_id)
