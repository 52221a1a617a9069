"""Schemas of the actions of volumes, after Cinder's
``cinder/api/schemas/volume_actions.py`` (os-attach, os-detach,
os-extend, os-set_bootable, os-retype) and
``cinder/api/schemas/admin_actions.py`` (os-force_detach).

os-reserve, os-unreserve and os-force_delete have no schema in Cinder
(the value of their key is ignored), nor here; nor have
os-begin_detaching and os-roll_detaching, here below 3.55: from 3.55
(ours) they take an optional ``attachment_id``, needed when a shareable
volume has several attachments.
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


extend = {
    'type': 'object',
    'properties': {
        'os-extend': {
            'type': 'object',
            'properties': {
                'new_size': parameter_types.volume_size,
            },
            'required': ['new_size'],
            'additionalProperties': False,
        },
    },
    'required': ['os-extend'],
    'additionalProperties': False,
}

set_bootable = {
    'type': 'object',
    'properties': {
        'os-set_bootable': {
            'type': 'object',
            'properties': {
                'bootable': parameter_types.boolean,
            },
            'required': ['bootable'],
            'additionalProperties': False,
        },
    },
    'required': ['os-set_bootable'],
    'additionalProperties': False,
}

MIGRATION_POLICIES = ('never', 'on-demand')

retype = {
    'type': 'object',
    'properties': {
        'os-retype': {
            'type': 'object',
            'properties': {
                # A type name or id: looked up by the service.
                'new_type': {'type': 'string'},
                # As in Cinder, null is of the type but not of the enum.
                'migration_policy': {
                    'type': ['string', 'null'],
                    'enum': list(MIGRATION_POLICIES)},
            },
            'required': ['new_type'],
            'additionalProperties': False,
        },
    },
    'required': ['os-retype'],
    'additionalProperties': False,
}
