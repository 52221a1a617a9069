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
