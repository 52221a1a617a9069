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

"""QoS specs views: Cinder's ``cinder/api/views/qos_specs.py``.

A QoS specs shows ``id``, ``name``, ``consumer`` and ``specs`` (without
``consumer``); show and create add the ``links`` of the specs, under
Cinder's collection name ``qos_specs``.
"""

from cinder_ma.api.views import links

COLLECTION = 'qos_specs'


def _specs(qos):
    return {'id': qos.id, 'name': qos.name, 'consumer': qos.consumer,
            'specs': dict(qos.specs)}


def show(req, qos):
    return {'qos_specs': _specs(qos),
            'links': links.resource_links(req, COLLECTION, qos.id)}


def index(req, qos_list):
    return {'qos_specs': [_specs(qos) for qos in qos_list]}


def associations(req, volume_types):
    return {'qos_associations': [
        {'association_type': 'volume_type', 'name': vtype.name,
         'id': vtype.id} for vtype in volume_types]}
