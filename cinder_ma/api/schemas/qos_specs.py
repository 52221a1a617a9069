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

"""Schemas of QoS specs, after Cinder's ``cinder/api/schemas/qos_specs.py``.

They hold for every microversion. As in Cinder, a create takes the name
and any other keys (``consumer`` among them) at the same level.
"""

from cinder_ma.api.schemas import parameter_types

create = {
    'type': 'object',
    'properties': {
        'qos_specs': {
            'type': 'object',
            'properties': {
                'name': parameter_types.name,
            },
            'additionalProperties': {
                'type': ['string', 'number', 'boolean', 'null'],
                'maxLength': 255},
            'required': ['name'],
        },
    },
    'required': ['qos_specs'],
    'additionalProperties': False,
}

set_keys = {
    'type': 'object',
    'properties': {
        'qos_specs': parameter_types.extra_specs_with_null,
    },
    'required': ['qos_specs'],
    'additionalProperties': False,
}

unset_keys = {
    'type': 'object',
    'properties': {
        'keys': {
            'type': 'array',
            'items': {'type': 'string', 'minLength': 1, 'maxLength': 255},
            'uniqueItems': True,
        },
    },
    'required': ['keys'],
    'additionalProperties': False,
}
