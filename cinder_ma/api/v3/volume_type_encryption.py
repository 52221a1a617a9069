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

"""Encryption of volume types: ``/v3/{project_id}/types/{type_id}/
encryption``, as Cinder's ``cinder/api/contrib/volume_type_encryption.py``.

* ``GET .../encryption``: the encryption's fields, or ``{}`` when the type
  is not encrypted.
* ``POST .../encryption`` ``{"encryption": {"provider", "control_location",
  "cipher", "key_size"}}``: 200 and the fields given.
* ``GET .../encryption/{field}``: ``{field: value}`` (404 without it).
* ``PUT .../encryption/{encryption_id}``: change some fields; 200 and the
  fields given. As in Cinder, the id in the URL is not looked at (a type
  has one encryption; python-cinderclient sends ``provider`` there).
* ``DELETE .../encryption/{encryption_id}``: 202; refused (400) while
  volumes of the type exist.

Administrators only by default. A multiattach type cannot be encrypted,
nor an encrypted type made multiattach (see
:mod:`cinder_ma.api.v3.types`): the service refuses both with a 400.
"""

from cinder_ma.api import expose
from cinder_ma.api.schemas import volume_type_encryption as schemas
from cinder_ma.api.v3 import types
from cinder_ma.api import validation
from cinder_ma.api.views import volume_type_encryption as views
from cinder_ma import exception
from cinder_ma.volume import types as volume_types


def _values(body):
    """The encryption fields of a body, ``key_size`` as an integer."""
    values = dict(body['encryption'])
    if values.get('key_size') is not None:
        values['key_size'] = int(values['key_size'])
    return values


@expose.expose()
def index(req, project_id, type_id):
    """GET /v3/{project_id}/types/{type_id}/encryption."""
    return views.index(volume_types.get_encryption(
        req.context, types.checked_id(type_id)))


@expose.expose()
@validation.schema(schemas.create)
def create(req, project_id, type_id, body):
    """POST /v3/{project_id}/types/{type_id}/encryption."""
    values = _values(body)
    encryption = volume_types.create_encryption(
        req.context, types.checked_id(type_id), values)
    return views.created(encryption, values)


@expose.expose()
def show(req, project_id, type_id, encryption_id):
    """GET /v3/{project_id}/types/{type_id}/encryption/{field}: the URL
    shared with update and delete names a field here (Cinder's api-ref
    calls it ``{key}``)."""
    type_id = types.checked_id(type_id)
    fields = views.index(volume_types.get_encryption(req.context, type_id))
    if encryption_id not in fields:
        raise exception.VolumeTypeEncryptionNotFound(type_id=type_id)
    return {encryption_id: fields[encryption_id]}


@expose.expose()
@validation.schema(schemas.update)
def update(req, project_id, type_id, encryption_id, body):
    """PUT /v3/{project_id}/types/{type_id}/encryption/{encryption_id}."""
    values = _values(body)
    volume_types.update_encryption(req.context, types.checked_id(type_id),
                                   values)
    return views.request(values)


@expose.expose(status=202)
def delete(req, project_id, type_id, encryption_id):
    """DELETE /v3/{project_id}/types/{type_id}/encryption/{encryption_id}.
    """
    volume_types.delete_encryption(req.context, types.checked_id(type_id))
