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

"""QoS specs: the rules, run in the API process, and what a volume's
type's QoS specs give its connections and its driver.

Specs are consumed by the ``front-end`` (the hypervisor: every
attachment's ``connection_info['data']['qos_specs']``), the ``back-end``
(the storage driver: :attr:`cinder_ma.volume.drivers.base.VolumeRef.
qos_specs`) or ``both``; a volume type has at most one QoS specs.
"""

from oslo_log import log as logging

from cinder_ma.db import qos_specs as qos_db
from cinder_ma import exception
from cinder_ma.policies import qos_specs as qos_policies
from cinder_ma import policy

LOG = logging.getLogger(__name__)

FRONT_END = ('front-end', 'both')
BACK_END = ('back-end', 'both')

# Per-GiB keys and the fixed keys they give for a volume's size (Cinder's
# names): ``<key>_per_gb`` times the size, at least ``<key>_per_gb_min``.
_PER_GB_KEYS = ('read_iops_sec', 'write_iops_sec', 'total_iops_sec')


def _check_consumer(consumer):
    if consumer not in qos_db.CONSUMERS:
        raise exception.InvalidQoSSpecs(
            reason='Valid consumer of QoS specs are: %s' %
                   list(qos_db.CONSUMERS))


def create(context, name, specs):
    """Create QoS specs named ``name``; ``specs`` may hold ``consumer``
    (default ``back-end``)."""
    policy.authorize(context, qos_policies.CREATE)
    specs = dict(specs)
    consumer = specs.pop('consumer', qos_db.DEFAULT_CONSUMER)
    _check_consumer(consumer)
    created = qos_db.qos_specs_create(context, name, consumer, specs)
    LOG.info('Created QoS specs %s (%s)', created.id, name)
    return created


def list_specs(context):
    policy.authorize(context, qos_policies.GET_ALL)
    return qos_db.qos_specs_get_all(context)


def get(context, specs_id):
    policy.authorize(context, qos_policies.GET)
    return qos_db.qos_specs_get(context, specs_id)


def update(context, specs_id, specs):
    """Set keys (``consumer`` among them) of QoS specs."""
    policy.authorize(context, qos_policies.UPDATE)
    if 'consumer' in specs:
        _check_consumer(specs['consumer'])
    return qos_db.qos_specs_update(context, specs_id, specs)


def delete(context, specs_id, force=False):
    policy.authorize(context, qos_policies.DELETE)
    qos_db.qos_specs_delete(context, specs_id, force=force)
    LOG.info('Deleted QoS specs %s', specs_id)


def delete_keys(context, specs_id, keys):
    policy.authorize(context, qos_policies.DELETE)
    qos_db.qos_specs_delete_keys(context, specs_id, keys)


def associations(context, specs_id):
    """The volume types associated with QoS specs."""
    policy.authorize(context, qos_policies.GET_ALL)
    return qos_db.qos_specs_associations_get(context, specs_id)


def associate(context, specs_id, type_id):
    policy.authorize(context, qos_policies.UPDATE)
    qos_db.qos_specs_associate(context, specs_id, type_id)
    LOG.info('Associated QoS specs %s with volume type %s', specs_id,
             type_id)


def disassociate(context, specs_id, type_id):
    policy.authorize(context, qos_policies.UPDATE)
    qos_db.qos_specs_disassociate(context, specs_id, type_id)


def disassociate_all(context, specs_id):
    policy.authorize(context, qos_policies.UPDATE)
    qos_db.qos_specs_disassociate_all(context, specs_id)


def _fixed(specs, size):
    """``specs`` with Cinder's per-GiB IOPS keys turned into fixed ones
    for a volume of ``size`` GiB."""
    specs = dict(specs)
    for key in _PER_GB_KEYS:
        per_gb = specs.pop(key + '_per_gb', None)
        minimum = specs.pop(key + '_per_gb_min', None)
        if per_gb is None:
            continue
        try:
            value = int(float(per_gb) * size)
            if minimum is not None:
                value = max(value, int(float(minimum)))
        except ValueError:
            LOG.warning('QoS spec %s_per_gb=%r is not a number; ignored',
                        key, per_gb)
            continue
        specs[key] = str(value)
    return specs


def for_volume(context, volume_type_id, size):
    """(front-end specs, back-end specs) of a volume's type, each a dict
    or None, per-GiB keys computed for ``size``."""
    qos = qos_db.qos_specs_get_by_type(context, volume_type_id)
    if qos is None:
        return None, None
    specs = _fixed(qos.specs, size)
    return (specs if qos.consumer in FRONT_END else None,
            specs if qos.consumer in BACK_END else None)
