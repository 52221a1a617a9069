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

"""Snapshots: ``/v3/{project_id}/snapshots``, as Cinder's
``cinder/api/v3/snapshots.py``.

List (summary and detail, with Cinder's filters ``status``,
``volume_id``, ``name``, from 3.22 ``metadata``, from 3.65
``consumes_quota``; sorting, paging, 3.45 ``with_count``; admins'
``all_tenants``), create (202), show, update and delete (202). An in-use
volume is snapshotted with ``force`` below 3.66 and without it from
there on (where a false ``force`` is a 400 and a true one is ignored,
as in Cinder). The rules are the service's
(:mod:`cinder_ma.volume.snapshots`).
"""

from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api import params
from cinder_ma.api.schemas import snapshots as schemas
from cinder_ma.api import validation
from cinder_ma.api.views import snapshots as views
from cinder_ma import exception
from cinder_ma.volume import snapshots as snapshot_api

_FILTERS = ('status', 'volume_id', 'name')
_LIST_PARAMS = params.PAGING_KEYS | {'all_tenants', 'with_count',
                                     'project_id', 'offset'}

#: Cinder's refusal of a false force from 3.66 (its spelling kept).
SNAPSHOT_IN_USE_FLAG_MSG = (
    "Since microversion %s the 'force' flag is invalid for this request.  "
    "For backward compatability, however, when the 'force' flag is passed "
    "with a value evaluating to True, it is silently ignored."
    % mv.SNAPSHOT_IN_USE)


class _Nothing(Exception):
    """consumes_quota=false: no snapshot matches (every one consumes
    quota here)."""


def checked_id(snapshot_id):
    """Like Cinder, an id that is no UUID names no snapshot."""
    if not uuidutils.is_uuid_like(snapshot_id):
        raise exception.SnapshotNotFound(snapshot_id=snapshot_id)
    return snapshot_id


def _filters(req):
    query = req.GET
    allowed = set(_FILTERS)
    if req.api_version.matches(mv.SNAPSHOT_LIST_METADATA_FILTER):
        allowed.add('metadata')
    if req.api_version.matches(mv.USE_QUOTA):
        allowed.add('consumes_quota')
    unknown = sorted(set(query) - allowed - _LIST_PARAMS)
    if unknown and req.api_version.matches(mv.RESOURCE_FILTER):
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid filters %s are found in query options.'
                        % exception.cut(','.join(unknown)))
    filters = {}
    for key in sorted(allowed & set(query)):
        if key == 'metadata':
            filters['metadata'] = params.json_object(query, key)
        elif key == 'consumes_quota':
            if not params.boolean(query, key):
                raise _Nothing()
        else:
            filters[key] = query[key]
    return filters


def _list(req, detail):
    query = req.GET
    limit = params.limit(query)
    marker = params.marker(query)
    offset = params.offset(query)
    sort_keys, sort_dirs = params.sort(query, default_key='created_at')
    all_tenants = params.boolean(query, 'all_tenants')
    with_count = (req.api_version.matches(mv.SUPPORT_COUNT_INFO) and
                  params.boolean(query, 'with_count'))
    context = req.context
    try:
        filters = _filters(req)
    except _Nothing:
        snapshots, count = [], 0
    else:
        project_filter = query.get('project_id') or None
        snapshots = snapshot_api.list_snapshots(
            context, filters=filters, marker=marker, limit=limit,
            offset=offset, sort_keys=sort_keys, sort_dirs=sort_dirs,
            all_tenants=all_tenants, project_filter=project_filter)
        count = None
        if with_count:
            count = snapshot_api.count_snapshots(
                context, filters=filters, all_tenants=all_tenants,
                project_filter=project_filter)
    if not with_count:
        count = None
    if detail:
        return views.detail_list(
            req, snapshots, limit, count,
            extended=snapshot_api.sees_extended_attributes(context))
    return views.summary_list(req, snapshots, limit, count)


@expose.expose()
def index(req, project_id):
    """GET /v3/{project_id}/snapshots."""
    return _list(req, detail=False)


@expose.expose()
def detail(req, project_id):
    """GET /v3/{project_id}/snapshots/detail."""
    return _list(req, detail=True)


@expose.expose()
def show(req, project_id, snapshot_id):
    context = req.context
    snapshot = snapshot_api.get_snapshot(context, checked_id(snapshot_id))
    return views.show(req, snapshot,
                      snapshot_api.sees_extended_attributes(context))


def _stripped(value):
    return value.strip() if isinstance(value, str) else value


@expose.expose(status=202)
@validation.schema(schemas.create)
def create(req, project_id, body):
    """POST /v3/{project_id}/snapshots: 202 and the snapshot
    (creating)."""
    snapshot = body['snapshot']
    force = False
    allow_in_use = False
    if snapshot.get('force') is not None:
        force = strutils.bool_from_string(snapshot['force'], strict=True)
        if req.api_version.matches(mv.SNAPSHOT_IN_USE) and not force:
            raise webob.exc.HTTPBadRequest(
                explanation=SNAPSHOT_IN_USE_FLAG_MSG)
    if req.api_version.matches(mv.SNAPSHOT_IN_USE):
        allow_in_use = True
    volume_id = snapshot.get('volume_id')
    if volume_id is None:
        raise exception.VolumeNotFound(volume_id=volume_id)
    name = snapshot.get('name', snapshot.get('display_name'))
    new = snapshot_api.create_snapshot(
        req.context, volume_id, name=_stripped(name),
        description=_stripped(snapshot.get('description')),
        metadata=snapshot.get('metadata') or {}, force=force,
        allow_in_use=allow_in_use)
    return views.show(req, new)


@expose.expose()
@validation.schema(schemas.update)
def update(req, project_id, snapshot_id, body):
    """PUT /v3/{project_id}/snapshots/{id}: name and description."""
    snapshot = body['snapshot']
    kwargs = {}
    for field, legacy in (('name', 'display_name'),
                          ('description', 'display_description')):
        if field in snapshot:
            kwargs[field] = _stripped(snapshot[field])
        elif legacy in snapshot:
            kwargs[field] = _stripped(snapshot[legacy])
    updated = snapshot_api.update_snapshot(req.context,
                                           checked_id(snapshot_id), **kwargs)
    return views.show(req, updated)


@expose.expose(status=202)
def delete(req, project_id, snapshot_id):
    """DELETE /v3/{project_id}/snapshots/{id}: 202."""
    snapshot_api.delete_snapshot(req.context, checked_id(snapshot_id))
