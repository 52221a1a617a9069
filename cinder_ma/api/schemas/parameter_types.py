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

"""Building blocks of the request schemas, after Cinder's
``cinder/api/validation/parameter_types.py``."""

import copy

# Cinder's DB_MAX_INT: sizes are stored in a 32-bit signed column.
MAX_INT = 0x7FFFFFFF

# Every spelling of a boolean Cinder accepts in a body.
boolean = {
    'type': ['boolean', 'string'],
    'enum': [True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on',
             'YES', 'Yes', 'yes', 'y', 't',
             False, 'False', 'FALSE', 'false', '0', 'OFF', 'Off', 'off',
             'NO', 'No', 'no', 'n', 'f'],
}

optional_boolean = {'oneOf': [{'type': 'null'}, boolean]}

uuid = {'type': 'string', 'format': 'uuid'}

optional_uuid = {'oneOf': [{'type': 'null'}, uuid]}

# A name that must be given: not blank.
name = {'type': 'string', 'minLength': 1, 'maxLength': 255,
        'format': 'name'}

# A name or description that may be null or empty.
name_allow_zero_min_length = {
    'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255}

description = {
    'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255,
    'format': 'printable'}

# A size in GiB: an integer or a string of digits.
volume_size = {
    'type': ['integer', 'string'],
    'pattern': '^[0-9]+$',
    'minimum': 1,
    'maximum': MAX_INT,
}

# The same, or null (a volume made from a source takes its size).
volume_size_allows_null = dict(volume_size, type=['integer', 'string',
                                                  'null'])

availability_zone = {
    'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255}

# Keys of metadata and extra specs: Cinder's character set.
_KEY = '^[a-zA-Z0-9-_:. /]{1,255}$'
_KEY_NO_SPACES = '^[a-zA-Z0-9-_:.]{1,255}$'

metadata = {
    'type': 'object',
    'patternProperties': {_KEY: {'type': 'string', 'maxLength': 255}},
    'additionalProperties': False,
}

metadata_allows_null = copy.deepcopy(metadata)
metadata_allows_null['type'] = ['object', 'null']

extra_specs_with_null = {
    'type': ['object', 'null'],
    'patternProperties': {
        _KEY: {'type': ['string', 'null'], 'maxLength': 255}},
    'additionalProperties': False,
}

extra_specs_with_no_spaces_key = {
    'type': 'object',
    'patternProperties': {
        _KEY_NO_SPACES: {'type': ['string', 'null'], 'maxLength': 255}},
    'additionalProperties': False,
}
