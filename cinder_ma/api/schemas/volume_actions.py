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

"""Schemas of the actions of volumes, after Cinder's
``cinder/api/schemas/volume_actions.py`` (os-attach, os-detach,
os-initialize_connection, os-terminate_connection, os-extend,
os-set_bootable, os-retype) and
``cinder/api/schemas/admin_actions.py`` (os-force_detach).

os-reserve, os-unreserve and os-force_delete have no schema in Cinder
(the value of their key is ignored), nor here; nor have
os-begin_detaching and os-roll_detaching below 3.50: from 3.50, with the
extension ``cinder-ma-multiattach``, they take an optional
``cinder-ma-multiattach:attachment_id``, needed when a shareable volume
has several attachments (other keys are ignored, as in Cinder; the bare
``attachment_id`` of cinder_ma's former 3.55 is a 400 naming the new
field).

os-extend_volume_completion (3.71) takes an optional boolean ``error``.
"""

from cinder_ma.api import extensions
from cinder_ma.api.schemas import attachments
from cinder_ma.api.schemas import parameter_types

ATTACHMENT_ID = extensions.field(extensions.MULTIATTACH, 'attachment_id')

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

def _with_connector(action):
    """os-initialize_connection and os-terminate_connection: a connector
    (an object naming its ``host``: the service checks it)."""
    return {
        'type': 'object',
        'properties': {
            action: {
                'type': 'object',
                'properties': {
                    'connector': {'type': 'object', 'minProperties': 1},
                },
                'required': ['connector'],
                'additionalProperties': False,
            },
        },
        'required': [action],
        'additionalProperties': False,
    }


initialize_connection = _with_connector('os-initialize_connection')
terminate_connection = _with_connector('os-terminate_connection')

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


_OLD_ATTACHMENT_ID = (
    'attachment_id is no longer accepted here: naming the attachment is '
    'the extension %s (GET /v3/{project_id}/extensions); send %s with '
    'microversion %s or later.' % (extensions.MULTIATTACH.alias,
                                   ATTACHMENT_ID,
                                   extensions.MULTIATTACH.min_version))


def _with_attachment_id(action):
    return {
        'type': 'object',
        'properties': {
            action: {
                'type': ['object', 'null'],
                'properties': {
                    ATTACHMENT_ID: parameter_types.optional_uuid,
                },
                'refused': {'attachment_id': _OLD_ATTACHMENT_ID},
            },
        },
        'required': [action],
        'additionalProperties': False,
    }


# Below 3.50: whatever the value of the action's key (as in Cinder).
any_value = {'type': 'object'}

begin_detaching_v350 = _with_attachment_id('os-begin_detaching')
roll_detaching_v350 = _with_attachment_id('os-roll_detaching')

extend_volume_completion = {
    'type': 'object',
    'properties': {
        'os-extend_volume_completion': {
            'type': ['object', 'null'],
            'properties': {
                'error': parameter_types.boolean,
            },
            'additionalProperties': False,
        },
    },
    'required': ['os-extend_volume_completion'],
    'additionalProperties': False,
}


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

update_readonly_flag = {
    'type': 'object',
    'properties': {
        'os-update_readonly_flag': {
            'type': 'object',
            'properties': {
                'readonly': parameter_types.boolean,
            },
            'required': ['readonly'],
            'additionalProperties': False,
        },
    },
    'required': ['os-update_readonly_flag'],
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


_RESET_VOLUME_STATUSES = [
    'creating', 'available', 'attaching', 'in-use', 'detaching',
    'deleting', 'extending', 'retyping', 'error', 'error_deleting',
    'error_detaching', 'error_extending', 'reserved', 'maintenance',
    'downloading', 'uploading', 'backing-up', 'restoring-backup',
    'error_restoring', 'awaiting-transfer', 'error_managing']

#: ``os-reset_status`` as Cinder's ``admin_actions.reset``: at least one
#: of status, attach_status and migration_status.
reset_status = {
    'type': 'object',
    'properties': {
        'os-reset_status': {
            'type': 'object',
            'properties': {
                'status': {'type': ['string', 'null'],
                           'enum': _RESET_VOLUME_STATUSES + [None]},
                'attach_status': {'type': ['string', 'null'],
                                  'enum': ['attached', 'detached', None]},
                'migration_status': {
                    'type': ['string', 'null'],
                    'enum': ['migrating', 'error', 'success', 'completing',
                             'none', 'starting', None]},
            },
            'anyOf': [{'required': ['status']},
                      {'required': ['attach_status']},
                      {'required': ['migration_status']}],
            'additionalProperties': False,
        },
    },
    'required': ['os-reset_status'],
    'additionalProperties': False,
}

#: From 3.50, the extension ``cinder-ma-multiattach``:
#: ``cinder-ma-multiattach:attachment_id`` resets that attachment's
#: ``attach_status`` (one of the attachment statuses) instead.
reset_status_v350 = {
    'type': 'object',
    'properties': {
        'os-reset_status': {
            'type': 'object',
            'properties': {
                'status': reset_status['properties']['os-reset_status'][
                    'properties']['status'],
                'attach_status': {
                    'type': ['string', 'null'],
                    'enum': ['attached', 'detached', 'reserved', 'attaching',
                             'detaching', 'error_attaching',
                             'error_detaching', None]},
                'migration_status': reset_status['properties'][
                    'os-reset_status']['properties']['migration_status'],
                ATTACHMENT_ID: parameter_types.uuid,
            },
            'anyOf': [{'required': ['status']},
                      {'required': ['attach_status']},
                      {'required': ['migration_status']}],
            'additionalProperties': False,
        },
    },
    'required': ['os-reset_status'],
    'additionalProperties': False,
}

#: 3.40 ``revert`` (Cinder's ``cinder/api/schemas/volumes.py`` revert):
#: the snapshot to revert to, which must be the volume's latest.
revert = {
    'type': 'object',
    'properties': {
        'revert': {
            'type': 'object',
            'properties': {
                'snapshot_id': {'type': ['string', 'null'],
                                'maxLength': 255},
            },
            'additionalProperties': True,
        },
    },
    'required': ['revert'],
    'additionalProperties': False,
}
