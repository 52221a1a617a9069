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

"""Schemas of quota sets and quota classes, after Cinder's
``cinder/api/schemas/quotas.py`` and ``quota_classes.py``.

Keys and values are checked by the quota service, which knows the
resources (the volume types among them); the schema holds the envelope.
"""

update_quota_set = {
    'type': 'object',
    'properties': {
        'quota_set': {'type': 'object'},
    },
    'required': ['quota_set'],
    'additionalProperties': False,
}

update_quota_class_set = {
    'type': 'object',
    'properties': {
        'quota_class_set': {'type': 'object'},
    },
    'required': ['quota_class_set'],
    'additionalProperties': False,
}
