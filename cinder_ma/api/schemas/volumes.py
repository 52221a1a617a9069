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

"""Schemas of the volumes API, after Cinder's
``cinder/api/schemas/volumes.py``.

Ranges (see :mod:`cinder_ma.api.microversions`):

* create: 3.0-3.12 ``create``; 3.13-3.46 adds ``group_id``; 3.47-3.49
  adds ``backup_id``; 3.50-3.52 refuses the legacy ``multiattach`` flag;
  3.53+ also refuses unknown keys (below, Cinder ignores them, and so do
  we).
* update: 3.0-3.52 ``update``; 3.53+ needs at least one field.

Cinder's create also takes the sources of a new volume (snapshot, volume,
image, backup, group). cinder_ma makes volumes from snapshots
(``snapshot_id``) and copies of volumes (``source_volid``), whose
``size`` may then be left out (the source's); the others are accepted as
null, as clients send them, and refused with a clear message when set,
rather than ignored (which would hand back an empty volume).
"""

import copy

from cinder_ma.api.schemas import parameter_types

NOT_SUPPORTED = ('cinder_ma makes empty volumes, volumes from snapshots and '
                 'copies of volumes: creating a volume from %s is not '
                 'supported.')

MULTIATTACH_REMOVED = (
    'The multiattach flag of volume create is not accepted from '
    'microversion 3.50 on: shareable volumes come from a volume type whose '
    'extra spec multiattach is "<is> True"; ask an administrator for one.')

_optional_string = {'type': ['string', 'null'], 'minLength': 0,
                    'maxLength': 255}

create = {
    'type': 'object',
    'properties': {
        'volume': {
            'type': 'object',
            'properties': {
                'name': parameter_types.name_allow_zero_min_length,
                'description': parameter_types.description,
                'display_name': parameter_types.name_allow_zero_min_length,
                'display_description': parameter_types.description,
                # A name or an id: looked up by the service.
                'volume_type': parameter_types.name_allow_zero_min_length,
                'metadata': parameter_types.metadata_allows_null,
                'snapshot_id': parameter_types.optional_uuid,
                'source_volid': parameter_types.optional_uuid,
                'consistencygroup_id': parameter_types.optional_uuid,
                'size': parameter_types.volume_size_allows_null,
                'availability_zone': parameter_types.availability_zone,
                'multiattach': parameter_types.optional_boolean,
                'image_id': _optional_string,
                'imageRef': _optional_string,
            },
            'additionalProperties': True,
            'refused': {
                'consistencygroup_id': 'Consistency groups are not '
                                       'supported.',
                'image_id': NOT_SUPPORTED % 'an image',
                'imageRef': NOT_SUPPORTED % 'an image',
            },
        },
        'OS-SCH-HNT:scheduler_hints': {'type': ['object', 'null']},
    },
    'required': ['volume'],
    'additionalProperties': False,
}

create_v313 = copy.deepcopy(create)
_volume = create_v313['properties']['volume']
_volume['properties']['group_id'] = _optional_string
_volume['refused']['group_id'] = 'Volume groups are not supported.'

create_v347 = copy.deepcopy(create_v313)
_volume = create_v347['properties']['volume']
_volume['properties']['backup_id'] = parameter_types.optional_uuid
_volume['refused']['backup_id'] = NOT_SUPPORTED % 'a backup'

create_v350 = copy.deepcopy(create_v347)
create_v350['properties']['volume']['refused'][
    'multiattach'] = MULTIATTACH_REMOVED

create_v353 = copy.deepcopy(create_v350)
create_v353['properties']['volume']['additionalProperties'] = False

update = {
    'type': 'object',
    'properties': {
        'volume': {
            'type': 'object',
            'properties': {
                'name': parameter_types.name_allow_zero_min_length,
                'description': parameter_types.description,
                'display_name': parameter_types.name_allow_zero_min_length,
                'display_description': parameter_types.description,
                'metadata': parameter_types.metadata,
            },
            'additionalProperties': False,
        },
    },
    'required': ['volume'],
    'additionalProperties': False,
}

update_v353 = copy.deepcopy(update)
update_v353['properties']['volume']['anyOf'] = [
    {'required': ['name']},
    {'required': ['description']},
    {'required': ['display_name']},
    {'required': ['display_description']},
    {'required': ['metadata']},
]
