"""Schemas of the attachments API, after Cinder's
``cinder/api/schemas/attachments.py``.

Ranges (see :mod:`cinder_ma.api.microversions`):

* create: 3.27-3.53 ``create``; 3.54 adds ``mode``; 3.55 (ours) adds
  ``instance_host``.
* update: 3.27 on.

Like Cinder, unknown keys are refused and ``instance_uuid`` may be left
out (python-cinderclient sends it only when given: glance's cinder store
attaches volumes to no instance); we also take it as null. A connector is
an object (or null on create) that must name its ``host``: the
controller checks that on create before anything is reserved, the
service on update.
"""

import copy

from cinder_ma.api.schemas import parameter_types

# The modes of an attachment (cinder_ma.volume.attachments.MODES).
mode = {'type': 'string', 'enum': ['rw', 'ro']}

create = {
    'type': 'object',
    'properties': {
        'attachment': {
            'type': 'object',
            'properties': {
                'instance_uuid': parameter_types.optional_uuid,
                'connector': {'type': ['object', 'null']},
                'volume_uuid': parameter_types.uuid,
            },
            'required': ['volume_uuid'],
            'additionalProperties': False,
        },
    },
    'required': ['attachment'],
    'additionalProperties': False,
}

create_v354 = copy.deepcopy(create)
create_v354['properties']['attachment']['properties']['mode'] = mode

create_v355 = copy.deepcopy(create_v354)
create_v355['properties']['attachment']['properties']['instance_host'] = {
    'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
    'format': 'name'}

update = {
    'type': 'object',
    'properties': {
        'attachment': {
            'type': 'object',
            'properties': {
                'connector': {'type': 'object', 'minProperties': 1},
            },
            'required': ['connector'],
            'additionalProperties': False,
        },
    },
    'required': ['attachment'],
    'additionalProperties': False,
}
