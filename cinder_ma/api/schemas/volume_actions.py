"""Schemas of the attach/detach actions of volumes, after Cinder's
``cinder/api/schemas/volume_actions.py`` (os-attach, os-detach) and
``cinder/api/schemas/admin_actions.py`` (os-force_detach).

os-reserve, os-unreserve, os-begin_detaching and os-roll_detaching have
no schema in Cinder (the value of their key is ignored), nor here below
3.55; from 3.55 (ours) os-begin_detaching and os-roll_detaching take an
optional ``attachment_id``, needed when a shareable volume has several
attachments.
"""

from cinder_ma.api.schemas import attachments
from cinder_ma.api.schemas import parameter_types

attach = {
    'type': 'object',
    'properties': {
        'os-attach': {
            'type': 'object',
            'properties': {
                'instance_uuid': parameter_types.uuid,
                'mountpoint': {'type': 'string', 'minLength': 1,
                               'maxLength': 255},
                'host_name': {'type': 'string', 'maxLength': 255},
                'mode': attachments.mode,
            },
            'required': ['mountpoint'],
            'anyOf': [{'required': ['instance_uuid']},
                      {'required': ['host_name']}],
            'additionalProperties': False,
        },
    },
    'required': ['os-attach'],
    'additionalProperties': False,
}

detach = {
    'type': 'object',
    'properties': {
        'os-detach': {
            # Cinder takes null too, for old clients.
            'type': ['object', 'null'],
            'properties': {
                'attachment_id': parameter_types.optional_uuid,
            },
            'additionalProperties': False,
        },
    },
    'required': ['os-detach'],
    'additionalProperties': False,
}

force_detach = {
    'type': 'object',
    'properties': {
        'os-force_detach': {
            'type': 'object',
            'properties': {
                'connector': {'type': ['string', 'object', 'null']},
                'attachment_id': {'type': ['string', 'null']},
            },
            'additionalProperties': False,
        },
    },
    'required': ['os-force_detach'],
    'additionalProperties': False,
}


def _with_attachment_id(action):
    return {
        'type': 'object',
        'properties': {
            action: {
                'type': ['object', 'null'],
                'properties': {
                    'attachment_id': parameter_types.optional_uuid,
                },
                'additionalProperties': False,
            },
        },
        'required': [action],
        'additionalProperties': False,
    }


# Below 3.55: whatever the value of the action's key (as in Cinder).
any_value = {'type': 'object'}

begin_detaching_v355 = _with_attachment_id('os-begin_detaching')
roll_detaching_v355 = _with_attachment_id('os-roll_detaching')
