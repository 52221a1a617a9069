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

"""Schemas of volume transfers, after Cinder's
``cinder/api/schemas/volume_transfer.py``: a create names the volume and
optionally a name (and, from 3.55, ``no_snapshots``); an accept gives the
authorization key."""

import copy

from cinder_ma.api.schemas import parameter_types

create = {
    'type': 'object',
    'properties': {
        'transfer': {
            'type': 'object',
            'properties': {
                'volume_id': parameter_types.uuid,
                'name': parameter_types.name_allow_zero_min_length,
            },
            'required': ['volume_id'],
            'additionalProperties': False,
        },
    },
    'required': ['transfer'],
    'additionalProperties': False,
}

create_v355 = copy.deepcopy(create)
create_v355['properties']['transfer']['properties']['no_snapshots'] = (
    parameter_types.boolean)

accept = {
    'type': 'object',
    'properties': {
        'accept': {
            'type': 'object',
            'properties': {
                'auth_key': {'type': ['string', 'integer'],
                             'minLength': 1, 'maxLength': 255},
            },
            'required': ['auth_key'],
            'additionalProperties': False,
        },
    },
    'required': ['accept'],
    'additionalProperties': False,
}
