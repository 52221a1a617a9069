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
