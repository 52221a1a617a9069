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
