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

"""A volume's encryption metadata (Cinder's extension
``os-volume-encryption-metadata``): ``GET
/v3/{project_id}/volumes/{volume_id}/encryption`` and one of its items,
``.../encryption/{key}``. Compute services read it to open an encrypted
volume, Horizon to show a volume's encryption."""

from oslo_utils import uuidutils

from cinder_ma.api import expose
from cinder_ma.api.views import volume_encryption_metadata as views
from cinder_ma import exception
from cinder_ma.volume import api as volume_api


class EncryptionMetadataKeyNotFound(exception.NotFound):
    message = ('Volume %(volume_id)s has no encryption metadata with key '
               '%(key)s.')


def _metadata(req, volume_id):
    # Like Cinder, an id that is no UUID names no volume.
    if not uuidutils.is_uuid_like(volume_id):
        raise exception.VolumeNotFound(volume_id=volume_id)
    _volume, encryption = volume_api.get_encryption_metadata(
        req.context, volume_id)
    return views.index(encryption)


@expose.expose()
def index(req, project_id, volume_id):
    return _metadata(req, volume_id)


@expose.expose()
def show(req, project_id, volume_id, key):
    """One item's value, as Cinder answers it (a bare JSON value)."""
    metadata = _metadata(req, volume_id)
    if key not in metadata:
        # Cinder answers a 500 (a KeyError).
        raise EncryptionMetadataKeyNotFound(volume_id=volume_id, key=key)
    return metadata[key]
