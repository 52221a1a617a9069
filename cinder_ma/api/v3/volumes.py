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

"""Volumes: ``/v3/{project_id}/volumes``.

List (summary and detail, with Cinder's filters, sorting and paging),
create, show, update (name, description, metadata) and delete. Policy,
scheduling and the cast to the manager are the service's
(:mod:`cinder_ma.volume.api`).
"""

from oslo_utils import strutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import webob.exc

from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api import params
from cinder_ma.api.schemas import volumes as schemas
from cinder_ma.api import validation
from cinder_ma.api.views import volumes as views
from cinder_ma import exception
from cinder_ma.volume import api as volume_api
from cinder_ma.volume import types as volume_types

# Filters of volume lists; 'name~' from LIKE_FILTER, the time filters
# from VOLUME_TIME_COMPARISON_FILTER, 'consumes_quota' from USE_QUOTA.
_FILTERS = ('name', 'status', 'metadata', 'bootable', 'availability_zone',
            'volume_type', 'multiattach')
_LIKE_FILTERS = ('name~',)
_TIME_FILTERS = ('created_at', 'updated_at')
_TIME_OPERATORS = ('gt', 'gte', 'lt', 'lte', 'eq', 'neq')
# Parameters of list requests that are not filters.
# project_id: with all_tenants, an admin's list of one project.
_LIST_PARAMS = params.PAGING_KEYS | {'all_tenants', 'with_count',
                                     'project_id'}


class _NoSuchType(Exception):
    """The volume_type filter names no type, or consumes_quota=false
    (every volume here consumes quota): the page is empty."""


def _time_filter(key, value):
    """``gt:2026-11-21T10:00:00,lte:...`` -> {operator: naive UTC time}.

    :raises HTTPBadRequest: an unknown operator or a time that is not ISO
        8601, as in Cinder.
    """
    result = {}
    for unit in value.split(','):
        name, sep, when = unit.partition(':')
        if not sep or name not in _TIME_OPERATORS:
            raise webob.exc.HTTPBadRequest(
                explanation='Invalid %s operator in %s filter; use one of '
                            '%s' % (name, key, ', '.join(_TIME_OPERATORS)))
        try:
            parsed = timeutils.parse_isotime(when)
        except ValueError:
            raise webob.exc.HTTPBadRequest(
                explanation='Invalid %s value %s' % (key, when))
        result[name] = timeutils.normalize_time(parsed)
    return result


def _checked_id(volume_id):
    """Like Cinder, an id that is no UUID names no volume."""
    if not uuidutils.is_uuid_like(volume_id):
        raise exception.VolumeNotFound(volume_id=volume_id)
    return volume_id


def _bootable(req, value):
    if not req.api_version.matches(mv.VOLUME_LIST_BOOTABLE):
        # Before 3.2 "false"/"False" mean non-bootable, anything else
        # bootable.
        return value not in ('false', 'False')
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid input received: bootable=%s'
                        % exception.cut(value))


def _filters(req):
    """The service's filters from the query string.

    :raises HTTPBadRequest: from RESOURCE_FILTER on, an unknown filter.
    :raises _NoSuchType: the volume_type filter names no type.
    """
    query = req.GET
    allowed = set(_FILTERS)
    if req.api_version.matches(mv.LIKE_FILTER):
        allowed.update(_LIKE_FILTERS)
    if req.api_version.matches(mv.VOLUME_TIME_COMPARISON_FILTER):
        allowed.update(_TIME_FILTERS)
    if req.api_version.matches(mv.USE_QUOTA):
        allowed.add('consumes_quota')
    unknown = sorted(set(query) - allowed - _LIST_PARAMS)
    if unknown and req.api_version.matches(mv.RESOURCE_FILTER):
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid filters %s are found in query options.'
                        % exception.cut(','.join(unknown)))
    filters = {}
    for key in sorted(allowed & set(query)):
        value = query[key]
        if key == 'metadata':
            filters['metadata'] = params.json_object(query, key)
        elif key == 'bootable':
            filters['bootable'] = _bootable(req, value)
        elif key == 'multiattach':
            filters['multiattach'] = params.boolean(query, key)
        elif key in _TIME_FILTERS:
            filters[key] = _time_filter(key, value)
        elif key == 'consumes_quota':
            # Every volume here consumes quota (no temporary volumes).
            if not params.boolean(query, key):
                raise _NoSuchType()
        elif key == 'volume_type':
            try:
                vtype = volume_types.find_type(req.context, value)
            except exception.NotFound:
                raise _NoSuchType()
            filters['volume_type_id'] = vtype.id
        else:
            filters[key] = value
    return filters


def _list(req, view):
    query = req.GET
    limit = params.limit(query)
    marker = params.marker(query)
    sort_keys, sort_dirs = params.sort(query, default_key='created_at')
    all_tenants = params.boolean(query, 'all_tenants')
    with_count = (req.api_version.matches(mv.SUPPORT_COUNT_INFO) and
                  params.boolean(query, 'with_count'))
    try:
        filters = _filters(req)
    except _NoSuchType:
        return view(req, [], limit, 0 if with_count else None,
                    is_admin=volume_api.is_admin(req.context))
    project_filter = query.get('project_id') or None
    volumes = volume_api.list_volumes(
        req.context, filters=filters, marker=marker, limit=limit,
        sort_keys=sort_keys, sort_dirs=sort_dirs, all_tenants=all_tenants,
        project_filter=project_filter)
    count = None
    if with_count:
        count = volume_api.count_volumes(req.context, filters=filters,
                                         all_tenants=all_tenants,
                                         project_filter=project_filter)
    return view(req, volumes, limit, count,
                is_admin=volume_api.is_admin(req.context))


def _size(volume):
    """The size asked for: None to take the source's (a snapshot or a
    volume); without a source, a 400 as Cinder's."""
    size = volume.get('size')
    if size is None:
        if validation.is_set(volume.get('snapshot_id')) or \
                validation.is_set(volume.get('source_volid')):
            return None
        raise webob.exc.HTTPBadRequest(
            explanation="Invalid input for field/attribute size. Value: "
                        "None. None is not of type 'integer', 'string'")
    return int(size)


@expose.expose()
def index(req, project_id):
    """GET /v3/{project_id}/volumes: id, name and links of each."""
    return _list(req, views.summary_list)


@expose.expose()
def detail(req, project_id):
    """GET /v3/{project_id}/volumes/detail."""
    return _list(req, views.detail_list)


@expose.expose()
def show(req, project_id, volume_id):
    volume = volume_api.get_volume(req.context, _checked_id(volume_id))
    return views.show(req, volume, volume_api.is_admin(req.context))


def _stripped(value):
    return value.strip() if isinstance(value, str) else value


def _name_and_description(volume):
    """Given fields of name/description ('name' wins over the v1
    'display_name')."""
    fields = {}
    for field, legacy in (('name', 'display_name'),
                          ('description', 'display_description')):
        if field in volume:
            fields[field] = _stripped(volume[field])
        elif legacy in volume:
            fields[field] = _stripped(volume[legacy])
    return fields


@expose.expose(status=202)
@validation.schema(schemas.create, max_version=mv.prior(mv.GROUP_VOLUME))
@validation.schema(schemas.create_v313, min_version=mv.GROUP_VOLUME,
                   max_version=mv.prior(mv.VOLUME_CREATE_FROM_BACKUP))
@validation.schema(schemas.create_v347,
                   min_version=mv.VOLUME_CREATE_FROM_BACKUP,
                   max_version=mv.prior(mv.MULTIATTACH_VOLUMES))
@validation.schema(schemas.create_v350, min_version=mv.MULTIATTACH_VOLUMES,
                   max_version=mv.prior(mv.SUPPORT_VOLUME_SCHEMA_CHANGES))
@validation.schema(schemas.create_v353,
                   min_version=mv.SUPPORT_VOLUME_SCHEMA_CHANGES)
def create(req, project_id, body):
    """POST /v3/{project_id}/volumes: 202 and the new volume (creating)."""
    volume = body['volume']
    fields = _name_and_description(volume)
    # From 3.50 the schema refuses a true multiattach flag.
    multiattach = validation.is_set(volume.get('multiattach'))
    new = volume_api.create_volume(
        req.context,
        size=_size(volume),
        name=fields.get('name'),
        description=fields.get('description'),
        volume_type=volume.get('volume_type') or None,
        metadata=volume.get('metadata') or {},
        availability_zone=volume.get('availability_zone'),
        multiattach=multiattach,
        snapshot_id=volume.get('snapshot_id') or None,
        source_volid=volume.get('source_volid') or None)
    return views.plain(req, new, volume_api.is_admin(req.context))


@expose.expose()
@validation.schema(schemas.update,
                   max_version=mv.prior(mv.SUPPORT_VOLUME_SCHEMA_CHANGES))
@validation.schema(schemas.update_v353,
                   min_version=mv.SUPPORT_VOLUME_SCHEMA_CHANGES)
def update(req, project_id, volume_id, body):
    """PUT /v3/{project_id}/volumes/{id}: name, description, metadata
    (which replaces the volume's metadata)."""
    volume = body['volume']
    kwargs = _name_and_description(volume)
    if 'metadata' in volume:
        kwargs['metadata'] = volume['metadata']
    updated = volume_api.update_volume(req.context, _checked_id(volume_id),
                                       **kwargs)
    return views.plain(req, updated, volume_api.is_admin(req.context))


@expose.expose(status=202)
def delete(req, project_id, volume_id):
    """DELETE /v3/{project_id}/volumes/{id}[?cascade=&force=]: 202."""
    cascade = params.boolean(req.GET, 'cascade')
    force = False
    if req.api_version.matches(mv.VOLUME_DELETE_FORCE):
        force = params.boolean(req.GET, 'force')
    volume_api.delete_volume(req.context, _checked_id(volume_id),
                             cascade=cascade, force=force)
