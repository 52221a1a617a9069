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
