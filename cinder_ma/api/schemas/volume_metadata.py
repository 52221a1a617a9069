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

"""Schemas of volume metadata, after Cinder's
``cinder/api/schemas/volume_metadata.py``.

They hold for every microversion: keys of 1-255 characters of Cinder's
set, string values of up to 255.
"""

import copy

from cinder_ma.api.schemas import parameter_types

# POST and PUT /volumes/{id}/metadata: {"metadata": {key: value, ...}}.
create = {
    'type': 'object',
    'properties': {
        'metadata': parameter_types.metadata,
    },
    'required': ['metadata'],
    'additionalProperties': False,
}

update_all = create

# PUT /volumes/{id}/metadata/{key}: {"meta": {key: value}}, one key.
_one_item = copy.deepcopy(parameter_types.metadata)
_one_item.update({'minProperties': 1, 'maxProperties': 1})

update = {
    'type': 'object',
    'properties': {
        'meta': _one_item,
    },
    'required': ['meta'],
    'additionalProperties': False,
}
