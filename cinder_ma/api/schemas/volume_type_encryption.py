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

"""Schemas of the encryption of volume types, after Cinder's
``cinder/api/schemas/volume_type_encryption.py``.

They hold for every microversion. ``key_size`` is an integer or a string
of digits (the controller makes it an integer), or null for the
provider's default; ``cipher`` may be null too (python-cinderclient sends
both as null when not given).
"""

import copy

from cinder_ma.api.schemas import parameter_types

CONTROL_LOCATIONS = ('front-end', 'back-end')

# Stored in a 32-bit column.
key_size = {
    'type': ['integer', 'string', 'null'],
    'pattern': '^[0-9]+$',
    'minimum': 0,
    'maximum': parameter_types.MAX_INT,
}

create = {
    'type': 'object',
    'properties': {
        'encryption': {
            'type': 'object',
            'properties': {
                'key_size': key_size,
                'provider': {'type': 'string', 'minLength': 0,
                             'maxLength': 255},
                'control_location': {'enum': list(CONTROL_LOCATIONS)},
                'cipher': {'type': ['string', 'null'], 'minLength': 0,
                           'maxLength': 255},
            },
            'required': ['provider', 'control_location'],
            'additionalProperties': False,
        },
    },
    'required': ['encryption'],
    'additionalProperties': False,
}

update = copy.deepcopy(create)
update['properties']['encryption']['required'] = []
