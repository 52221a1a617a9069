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

"""Volume metadata: ``/v3/{project_id}/volumes/{volume_id}/metadata``, as
Cinder's ``cinder/api/v2/volume_metadata.py`` and
``cinder/api/v3/volume_metadata.py``.

* ``GET .../metadata``: ``{"metadata": {...}}``; from 3.15 with an
  ``Etag``.
* ``POST .../metadata`` ``{"metadata": {...}}``: set the given keys, keep
  the others; answers the whole metadata.
* ``PUT .../metadata`` ``{"metadata": {...}}``: replace the whole
  metadata; answers it.
* ``GET .../metadata/{key}``: ``{"meta": {key: value}}``, 404 without it.
* ``PUT .../metadata/{key}`` ``{"meta": {key: value}}``: set one key.
* ``DELETE .../metadata/{key}``: 200, 404 without it.

From 3.15 (ETAGS) the two PUTs honour ``If-Match``: an ETag that no
longer matches the metadata is a 412, so a client that read, changed and
writes back the whole (python-cinderclient's ``metadata unset``) does not
silently undo a concurrent change.

The service (:func:`cinder_ma.volume.api.update_volume`) replaces the
whole metadata; POST, ``PUT .../{key}`` and DELETE read the current
metadata and write back the result. Between that read and that write a
concurrent change of another key is lost (last writer wins), as the
If-Match check narrows but does not close: a merge in the service, in
one transaction, would.
"""

import hashlib

from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import webob.exc

from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api.schemas import volume_metadata as schemas
from cinder_ma.api import validation
from cinder_ma.api.views import volume_metadata as views
from cinder_ma import exception
from cinder_ma.volume import api as volume_api


def _checked_id(volume_id):
    """Like Cinder, an id that is no UUID names no volume."""
    if not uuidutils.is_uuid_like(volume_id):
        raise exception.VolumeNotFound(volume_id=volume_id)
    return volume_id


def _current(req, volume_id):
    """The metadata of a volume the caller may see."""
    return views.as_dict(volume_api.get_volume(req.context, volume_id))


def _not_found(volume_id, key):
    return exception.NotFound(
        message='Volume %s has no metadata with key %s.' % (volume_id, key))


def _etag(metadata):
    """Cinder's ETag: the MD5 of the JSON of ``{"metadata": ...}``."""
    data = jsonutils.dumps(views.index(metadata)).encode('utf-8')
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


def _check_if_match(req, volume_id):
    """From 3.15, refuse a write whose If-Match no longer holds (412)."""
    if not req.api_version.matches(mv.ETAGS) or not req.if_match:
        return
    if _etag(_current(req, volume_id)) not in req.if_match:
        raise webob.exc.HTTPPreconditionFailed(
            explanation='The metadata of volume %s changed since it was '
                        'read (If-Match does not match its ETag).'
                        % volume_id)


def _replace(req, volume_id, metadata):
    volume = volume_api.update_volume(req.context, volume_id,
                                      metadata=metadata)
    return views.as_dict(volume)


@expose.expose()
def index(req, project_id, volume_id):
    """GET /v3/{project_id}/volumes/{volume_id}/metadata."""
    metadata = _current(req, _checked_id(volume_id))
    body = views.index(metadata)
    if req.api_version.matches(mv.ETAGS):
        return expose.json_response(body,
                                    headers={'Etag': _etag(metadata)})
    return body


@expose.expose()
@validation.schema(schemas.create)
def create(req, project_id, volume_id, body):
    """POST .../metadata: merge the given keys into the metadata."""
    volume_id = _checked_id(volume_id)
    metadata = _current(req, volume_id)
    metadata.update(body['metadata'])
    return views.index(_replace(req, volume_id, metadata))


@expose.expose()
@validation.schema(schemas.update_all)
def update_all(req, project_id, volume_id, body):
    """PUT .../metadata: replace the whole metadata."""
    volume_id = _checked_id(volume_id)
    _check_if_match(req, volume_id)
    return views.index(_replace(req, volume_id, body['metadata']))


@expose.expose()
def show(req, project_id, volume_id, key):
    """GET .../metadata/{key}."""
    volume_id = _checked_id(volume_id)
    metadata = _current(req, volume_id)
    if key not in metadata:
        raise _not_found(volume_id, key)
    return views.item(key, metadata[key])


@expose.expose()
@validation.schema(schemas.update)
def update(req, project_id, volume_id, key, body):
    """PUT .../metadata/{key} ``{"meta": {key: value}}``."""
    volume_id = _checked_id(volume_id)
    meta = body['meta']
    if key not in meta:
        raise webob.exc.HTTPBadRequest(
            explanation='Request body and URI mismatch')
    _check_if_match(req, volume_id)
    metadata = _current(req, volume_id)
    metadata[key] = meta[key]
    _replace(req, volume_id, metadata)
    return views.item(key, meta[key])


@expose.expose()
def delete(req, project_id, volume_id, key):
    """DELETE .../metadata/{key}: 200 with no body, as in Cinder."""
    volume_id = _checked_id(volume_id)
    metadata = _current(req, volume_id)
    if key not in metadata:
        raise _not_found(volume_id, key)
    del metadata[key]
    _replace(req, volume_id, metadata)
