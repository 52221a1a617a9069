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

"""Volume types and their extra specs: ``/v3/{project_id}/types``.

Listing and showing types is open to every caller (private types only to
admins); creating, updating, deleting them and writing extra specs is for
admins: the service (:mod:`cinder_ma.volume.types`) enforces the policy.
"""

from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api import params
from cinder_ma.api.schemas import types as schemas
from cinder_ma.api import validation
from cinder_ma.api.views import types as views
from cinder_ma import exception
from cinder_ma.volume import types as volume_types

DEFAULT = 'default'


def _bad_request(message):
    return webob.exc.HTTPBadRequest(explanation=message)


def checked_id(type_id, allow_default=False):
    """Like Cinder, an id that is no UUID names no type."""
    if allow_default and type_id == DEFAULT:
        return type_id
    if not uuidutils.is_uuid_like(type_id):
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)
    return type_id


def _is_public_filter(value):
    """Cinder's is_public filter: absent -> public only, "none" -> both
    (honoured for admins only, by the service)."""
    if value is None:
        return True
    if value.strip().lower() == 'none':
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise _bad_request('Invalid is_public filter [%s]'
                           % exception.cut(value))


def _boolean(value, name):
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise _bad_request('Invalid value %s for %s: a boolean is '
                           'expected.' % (exception.cut(value), name))


@expose.expose()
def index(req, project_id):
    """GET /v3/{project_id}/types[?is_public=&extra_specs=]."""
    query = req.GET
    limit = params.limit(query)
    sort_keys, sort_dirs = params.sort(query)
    filters = {}
    if (req.api_version.matches(mv.SUPPORT_VOLUME_TYPE_FILTER) and
            'extra_specs' in query):
        filters['extra_specs'] = params.json_object(query, 'extra_specs')
    vtypes = volume_types.list_types(
        req.context, is_public=_is_public_filter(query.get('is_public')),
        filters=filters, marker=params.marker(query), limit=limit,
        sort_keys=sort_keys, sort_dirs=sort_dirs)
    return views.index(req, vtypes, limit,
                       volume_types.audience(req.context))


@expose.expose()
def show(req, project_id, type_id):
    """GET /v3/{project_id}/types/{id}; ``default`` is the default type."""
    vtype = volume_types.get_type(
        req.context, checked_id(type_id, allow_default=True))
    return views.show(vtype, volume_types.audience(req.context))


@expose.expose()
@validation.schema(schemas.create)
def create(req, project_id, body):
    """POST /v3/{project_id}/types (admin)."""
    vtype = body['volume_type']
    is_public = _boolean(vtype.get('os-volume-type-access:is_public', True),
                         'os-volume-type-access:is_public')
    new = volume_types.create_type(
        req.context, vtype['name'], description=vtype.get('description'),
        is_public=is_public, extra_specs=vtype.get('extra_specs') or {})
    return views.created(new, volume_types.audience(req.context))


@expose.expose()
@validation.schema(schemas.update)
def update(req, project_id, type_id, body):
    """PUT /v3/{project_id}/types/{id} (admin): name, description,
    is_public."""
    vtype = body['volume_type']
    name = vtype.get('name')
    description = vtype.get('description')
    is_public = vtype.get('is_public')
    if name is None and description is None and is_public is None:
        raise _bad_request('Specify volume type name, description, '
                           'is_public or a combination thereof.')
    if name is not None and not name.strip():
        raise _bad_request('Volume type name can not be empty.')
    if is_public is not None:
        is_public = _boolean(is_public, 'is_public')
    updated = volume_types.update_type(
        req.context, checked_id(type_id), name=name,
        description=description, is_public=is_public)
    return views.updated(updated, volume_types.audience(req.context))


@expose.expose(status=202)
def delete(req, project_id, type_id):
    """DELETE /v3/{project_id}/types/{id} (admin): 202."""
    volume_types.delete_type(req.context, checked_id(type_id))


@expose.expose()
def extra_specs_index(req, project_id, type_id):
    """GET /v3/{project_id}/types/{id}/extra_specs."""
    specs = volume_types.get_extra_specs(req.context, checked_id(type_id))
    return {'extra_specs': specs}


@expose.expose()
@validation.schema(schemas.extra_specs_create)
def extra_specs_create(req, project_id, type_id, body):
    """POST /v3/{project_id}/types/{id}/extra_specs (admin): set the
    given specs, keep the others; the response repeats the request."""
    specs = body['extra_specs']
    volume_types.update_extra_specs(req.context, checked_id(type_id), specs)
    return {'extra_specs': specs}


@expose.expose()
def extra_spec_show(req, project_id, type_id, key):
    """GET /v3/{project_id}/types/{id}/extra_specs/{key}: {key: value}."""
    return volume_types.get_extra_spec(req.context, checked_id(type_id),
                                       key)


@expose.expose()
@validation.schema(schemas.extra_spec_update)
def extra_spec_update(req, project_id, type_id, key, body):
    """PUT /v3/{project_id}/types/{id}/extra_specs/{key} (admin), body
    {key: value}."""
    if key not in body:
        raise _bad_request('Request body and URI mismatch')
    volume_types.update_extra_specs(req.context, checked_id(type_id), body)
    return body


@expose.expose(status=202)
def extra_spec_delete(req, project_id, type_id, key):
    """DELETE /v3/{project_id}/types/{id}/extra_specs/{key} (admin)."""
    volume_types.delete_extra_spec(req.context, checked_id(type_id), key)
