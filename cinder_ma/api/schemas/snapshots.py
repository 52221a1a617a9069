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

"""Schemas of the snapshots API, its metadata and its actions, after
Cinder's ``cinder/api/schemas/snapshots.py``, ``snapshot_actions.py``
and ``admin_actions.py``. They hold for every microversion."""

import copy

from cinder_ma.api.schemas import parameter_types

create = {
    'type': 'object',
    'properties': {
        'snapshot': {
            'type': 'object',
            'properties': {
                'name': parameter_types.name_allow_zero_min_length,
                'display_name': parameter_types.name_allow_zero_min_length,
                'description': parameter_types.description,
                'volume_id': parameter_types.optional_uuid,
                'force': parameter_types.boolean,
                'metadata': parameter_types.metadata_allows_null,
            },
            'required': ['volume_id'],
            'additionalProperties': False,
        },
    },
    'required': ['snapshot'],
    'additionalProperties': False,
}

update = {
    'type': 'object',
    'properties': {
        'snapshot': {
            'type': 'object',
            'properties': {
                'name': parameter_types.name_allow_zero_min_length,
                'description': parameter_types.description,
                'display_name': parameter_types.name_allow_zero_min_length,
                'display_description': parameter_types.description,
            },
            'additionalProperties': False,
            'anyOf': [
                {'required': ['name']},
                {'required': ['description']},
                {'required': ['display_name']},
                {'required': ['display_description']},
            ],
        },
    },
    'required': ['snapshot'],
    'additionalProperties': False,
}

metadata = {
    'type': 'object',
    'properties': {'metadata': parameter_types.metadata},
    'required': ['metadata'],
    'additionalProperties': False,
}

_one_item = copy.deepcopy(parameter_types.metadata)
_one_item.update({'minProperties': 1, 'maxProperties': 1})

metadata_item = {
    'type': 'object',
    'properties': {'meta': _one_item},
    'required': ['meta'],
    'additionalProperties': False,
}

reset_status = {
    'type': 'object',
    'properties': {
        'os-reset_status': {
            'type': 'object',
            'properties': {
                'status': {'type': 'string', 'minLength': 1,
                           'maxLength': 255},
            },
            'required': ['status'],
            'additionalProperties': False,
        },
    },
    'required': ['os-reset_status'],
    'additionalProperties': False,
}

update_snapshot_status = {
    'type': 'object',
    'properties': {
        'os-update_snapshot_status': {
            'type': 'object',
            'properties': {
                'status': {'type': 'string', 'minLength': 1,
                           'maxLength': 255},
                'progress': {'type': ['string', 'null'],
                             'pattern': '^[0-9]{1,3}%$'},
            },
            'required': ['status'],
            'additionalProperties': False,
        },
    },
    'required': ['os-update_snapshot_status'],
    'additionalProperties': False,
}
