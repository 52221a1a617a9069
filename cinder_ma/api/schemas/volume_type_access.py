"""Schemas of the access actions of private volume types, after Cinder's
``cinder/api/schemas/volume_type_access.py``.

They hold for every microversion. Like Cinder, the project is any
non-empty string (keystone ids are not always UUIDs).
"""


def _project_access(action):
    return {
        'type': 'object',
        'properties': {
            action: {
                'type': 'object',
                'properties': {
                    'project': {'type': 'string', 'minLength': 1,
                                'maxLength': 255},
                },
                'required': ['project'],
                'additionalProperties': False,
            },
        },
        'required': [action],
        'additionalProperties': False,
    }


add_project_access = _project_access('addProjectAccess')
remove_project_access = _project_access('removeProjectAccess')
