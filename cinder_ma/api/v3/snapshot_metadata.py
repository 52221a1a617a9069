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

"""Snapshot metadata: ``/v3/{project_id}/snapshots/{id}/metadata``, as
Cinder's ``cinder/api/v3/snapshot_metadata.py``:

* ``GET .../metadata``: ``{"metadata": {...}}``;
* ``POST .../metadata`` ``{"metadata": {...}}``: set the given keys,
  keep the others; answers the whole;
* ``PUT .../metadata``: replace the whole; answers it;
* ``GET .../metadata/{key}``: ``{"meta": {key: value}}``, 404 without
  it;
* ``PUT .../metadata/{key}`` ``{"meta": {key: value}}``: set one key;
* ``DELETE .../metadata/{key}``: 200, 404 without it.

The service replaces the whole metadata in one transaction; as for
volumes, a concurrent change of another key between the read and the
write of a POST or of one key is lost (last writer wins).
"""

import webob.exc

from cinder_ma.api import expose
from cinder_ma.api.schemas import snapshots as schemas
from cinder_ma.api.v3 import snapshots as snapshot_controllers
from cinder_ma.api import validation
from cinder_ma import exception
from cinder_ma.policies import snapshots as snapshot_policies
from cinder_ma.volume import snapshots as snapshot_api


def _sorted(metadata):
    return {'metadata': dict(sorted(metadata.items()))}


def _current(req, snapshot_id):
    return snapshot_api.get_metadata(
        req.context, snapshot_controllers.checked_id(snapshot_id))


def _not_found(snapshot_id, key):
    return exception.NotFound(
        message='Snapshot %s has no metadata with key %s.' % (
            snapshot_id, exception.cut(key)))


@expose.expose()
def index(req, project_id, snapshot_id):
    return _sorted(_current(req, snapshot_id))


@expose.expose()
@validation.schema(schemas.metadata)
def create(req, project_id, snapshot_id, body):
    metadata = _current(req, snapshot_id)
    metadata.update(body['metadata'])
    return _sorted(snapshot_api.set_metadata(
        req.context, snapshot_id, metadata,
        snapshot_policies.UPDATE_METADATA))


@expose.expose()
@validation.schema(schemas.metadata)
def update_all(req, project_id, snapshot_id, body):
    _current(req, snapshot_id)
    return _sorted(snapshot_api.set_metadata(
        req.context, snapshot_id, body['metadata'],
        snapshot_policies.UPDATE_METADATA))


@expose.expose()
def show(req, project_id, snapshot_id, key):
    metadata = _current(req, snapshot_id)
    if key not in metadata:
        raise _not_found(snapshot_id, key)
    return {'meta': {key: metadata[key]}}


@expose.expose()
@validation.schema(schemas.metadata_item)
def update(req, project_id, snapshot_id, key, body):
    meta = body['meta']
    if key not in meta:
        raise webob.exc.HTTPBadRequest(
            explanation='Request body and URI mismatch')
    metadata = _current(req, snapshot_id)
    metadata[key] = meta[key]
    snapshot_api.set_metadata(req.context, snapshot_id, metadata,
                              snapshot_policies.UPDATE_METADATA)
    return {'meta': {key: meta[key]}}


@expose.expose()
def delete(req, project_id, snapshot_id, key):
    """200 with no body, as in Cinder."""
    metadata = _current(req, snapshot_id)
    if key not in metadata:
        raise _not_found(snapshot_id, key)
    del metadata[key]
    snapshot_api.set_metadata(req.context, snapshot_id, metadata,
                              snapshot_policies.DELETE_METADATA)
