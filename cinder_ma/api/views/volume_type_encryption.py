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

"""The encryption of a volume type, in the shape of Cinder's
``cinder/api/contrib/volume_type_encryption.py``: the fields of the
encryption record, or ``{}`` for a type that is not encrypted."""

from cinder_ma.api import views


def index(encryption):
    if encryption is None:
        return {}
    return {
        'volume_type_id': encryption.volume_type_id,
        'encryption_id': encryption.encryption_id,
        'provider': encryption.provider,
        'cipher': encryption.cipher,
        'key_size': encryption.key_size,
        'control_location': encryption.control_location,
        'created_at': views.isotime(encryption.created_at),
        'updated_at': views.isotime(encryption.updated_at),
        'deleted': bool(encryption.deleted),
        'deleted_at': views.isotime(encryption.deleted_at),
    }


def created(encryption, values):
    """Create answers with the fields it was given and the ids of the
    record (``volume_type_id``, ``encryption_id``), as Cinder's does."""
    shown = dict(values)
    shown['volume_type_id'] = encryption.volume_type_id
    shown['encryption_id'] = encryption.encryption_id
    return {'encryption': shown}


def request(values):
    """Update answers with the fields it was given, as Cinder's does."""
    return {'encryption': values}
