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

"""Schemas of the attachments API, after Cinder's
``cinder/api/schemas/attachments.py``.

Ranges (see :mod:`cinder_ma.api.microversions`):

* create: 3.27-3.53 ``create``; 3.54 adds ``mode`` and the extension
  field ``cinder-ma-manager-attach:instance_host``
  (:data:`cinder_ma.api.extensions.MANAGER_ATTACH`). The bare
  ``instance_host`` of cinder_ma's former 3.55 is refused with a message
  naming the extension field.
* update: 3.27 on.
* the actions ``cinder-ma-fencing:fence`` and ``cinder-ma-fencing:promote``
  (extension :data:`cinder_ma.api.extensions.FENCING`, from 3.44) take an
  empty object (or null): nothing else is accepted.

Like Cinder, unknown keys are refused and ``instance_uuid`` may be left
out (python-cinderclient sends it only when given: glance's cinder store
attaches volumes to no instance); we also take it as null. A connector is
an object (or null on create) that must name its ``host``: the
controller checks that on create before anything is reserved, the
service on update.

A connector is what os-brick's ``get_connector_properties`` returns (as
Nova and glance's cinder store send it): the keys os-brick knows must
have the types os-brick gives them (``host`` a string, ``multipath`` a
boolean, ``wwpns`` a list of strings...), with bounded lengths; keys of
other connectors (a vendor's) are taken as they are. Cinder does not
check connectors at all; here a connector of the wrong shape is a 400
before any backend is asked for a connection.
"""

import copy

from cinder_ma.api import extensions
from cinder_ma.api.schemas import parameter_types

# The modes of an attachment (cinder_ma.volume.attachments.MODES).
mode = {'type': 'string', 'enum': ['rw', 'ro']}

_text = {'type': 'string', 'maxLength': 255}
_optional_text = {'type': ['string', 'null'], 'maxLength': 255}
_texts = {'type': 'array', 'items': _text, 'maxItems': 128}

# os-brick's connector properties (os_brick/initiator/connector.py and
# its connectors' get_connector_properties).
connector = {
    'type': 'object',
    'properties': {
        'host': {'type': 'string', 'minLength': 1, 'maxLength': 255,
                 'format': 'name'},
        'ip': _optional_text,
        'host_ips': _texts,
        'initiator': _optional_text,
        'wwpns': _texts,
        'wwnns': _texts,
        'multipath': parameter_types.boolean,
        'enforce_multipath': parameter_types.boolean,
        'do_local_attach': parameter_types.boolean,
        'platform': _optional_text,
        'os_type': _optional_text,
        'uuid': _optional_text,
        'system uuid': _optional_text,
        'nqn': _optional_text,
        'nvme_hostid': _optional_text,
        'nvme_native_multipath': parameter_types.boolean,
        'found_dsc': _optional_text,
        'mountpoint': _optional_text,
        'mode': _optional_text,
    },
    'additionalProperties': True,
}

optional_connector = copy.deepcopy(connector)
optional_connector['type'] = ['object', 'null']

INSTANCE_HOST = extensions.field(extensions.MANAGER_ATTACH, 'instance_host')

_OLD_INSTANCE_HOST = (
    'instance_host is no longer accepted: attach through a manager is the '
    'extension %s (GET /v3/{project_id}/extensions); send %s with '
    'microversion %s or later.' % (extensions.MANAGER_ATTACH.alias,
                                   INSTANCE_HOST,
                                   extensions.MANAGER_ATTACH.min_version))

create = {
    'type': 'object',
    'properties': {
        'attachment': {
            'type': 'object',
            'properties': {
                'instance_uuid': parameter_types.optional_uuid,
                'connector': optional_connector,
                'volume_uuid': parameter_types.uuid,
                # cinder_ma's former 3.55 form: a 400 naming the new one.
                'instance_host': {},
            },
            'required': ['volume_uuid'],
            'refused': {'instance_host': _OLD_INSTANCE_HOST},
            'additionalProperties': False,
        },
    },
    'required': ['attachment'],
    'additionalProperties': False,
}

create_v354 = copy.deepcopy(create)
create_v354['properties']['attachment']['properties'].update({
    'mode': mode,
    INSTANCE_HOST: {'type': ['string', 'null'], 'minLength': 1,
                    'maxLength': 255, 'format': 'name'},
})

update = {
    'type': 'object',
    'properties': {
        'attachment': {
            'type': 'object',
            'properties': {
                'connector': dict(connector, minProperties=1),
            },
            'required': ['connector'],
            'additionalProperties': False,
        },
    },
    'required': ['attachment'],
    'additionalProperties': False,
}

FENCE = extensions.field(extensions.FENCING, 'fence')
PROMOTE = extensions.field(extensions.FENCING, 'promote')


def _no_arguments(action):
    return {
        'type': 'object',
        'properties': {
            action: {'type': ['object', 'null'], 'properties': {},
                     'additionalProperties': False},
        },
        'required': [action],
        'additionalProperties': False,
    }


fence = _no_arguments(FENCE)
promote = _no_arguments(PROMOTE)
