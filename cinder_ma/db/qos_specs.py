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

"""Database API of QoS specs and their association with volume types.

The rows are Cinder's (see :class:`cinder_ma.db.models.
QualityOfServiceSpecs`): a root row per specs and a row per key. Readers
return :class:`cinder_ma.db.records.QoSSpecs` records, never rows. Every
statement is a Core statement of the tables, run on the transaction's
connection.
"""

import uuid

import sqlalchemy as sa

from cinder_ma.db.api import conditional_update
from cinder_ma.db.api import connection_of
from cinder_ma.db.api import reader
from cinder_ma.db.api import soft_delete
from cinder_ma.db.api import utcnow
from cinder_ma.db.api import writer
from cinder_ma.db import models
from cinder_ma.db import records
from cinder_ma import exception

_QOS = models.QualityOfServiceSpecs
_TYPE = models.VolumeType
_QOS_TABLE = _QOS.__table__
_TYPE_TABLE = _TYPE.__table__

#: Where specs apply: the hypervisor, the storage backend, or both.
CONSUMERS = ('front-end', 'back-end', 'both')
DEFAULT_CONSUMER = 'back-end'

#: The record of QoS specs.
QoSSpecs = records.QoSSpecs

_ROOTS = sa.select(_QOS_TABLE.c.id, _QOS_TABLE.c.value,
                   _QOS_TABLE.c.created_at).where(
    _QOS_TABLE.c.specs_id.is_(None), _QOS_TABLE.c.deleted == sa.false())
_ROOT = _ROOTS.where(_QOS_TABLE.c.id == sa.bindparam('specs_id'))
_ITEMS = sa.select(_QOS_TABLE.c.specs_id, _QOS_TABLE.c.key,
                   _QOS_TABLE.c.value).where(
    _QOS_TABLE.c.specs_id.in_(sa.bindparam('ids', expanding=True)),
    _QOS_TABLE.c.deleted == sa.false())


def _execute(context, statement, params=None):
    return connection_of(context).execute(statement, params)


def _root(context, specs_id):
    root = _execute(context, _ROOT, {'specs_id': specs_id}).first()
    if root is None:
        raise exception.QoSSpecsNotFound(specs_id=specs_id)
    return root


def _lock_root(context, specs_id, values=None):
    """Write the root row of live specs first (its row lock serializes
    deleting specs with associating them), or raise QoSSpecsNotFound."""
    if not conditional_update(context, _QOS, specs_id,
                              values or {},
                              expected={'specs_id': None}):
        raise exception.QoSSpecsNotFound(specs_id=specs_id)


def _items(context, specs_ids):
    """{specs_id: {key: value}} of the keys below the given roots."""
    items = {specs_id: {} for specs_id in specs_ids}
    if not specs_ids:
        return items
    for specs_id, key, value in _execute(context, _ITEMS,
                                         {'ids': list(specs_ids)}):
        items[specs_id][key] = value
    return items


def _record(root, items):
    specs = dict(items)
    consumer = specs.pop('consumer', DEFAULT_CONSUMER)
    return QoSSpecs(id=root.id, name=root.value, consumer=consumer,
                    specs=specs, created_at=root.created_at)


def _get(context, specs_id):
    root = _root(context, specs_id)
    return _record(root, _items(context, [root.id])[root.id])


_SET_ITEM = sa.update(_QOS_TABLE).where(
    _QOS_TABLE.c.specs_id == sa.bindparam('root_id'),
    _QOS_TABLE.c.key == sa.bindparam('item_key'),
    _QOS_TABLE.c.deleted == sa.false()).values(
        value=sa.bindparam('item_value'), updated_at=sa.bindparam('now'))


def _set_items(context, specs_id, specs):
    now = utcnow()
    for key, value in specs.items():
        value = None if value is None else str(value)
        if not _execute(context, _SET_ITEM, {
                'root_id': specs_id, 'item_key': key, 'item_value': value,
                'now': now}).rowcount:
            _execute(context, sa.insert(_QOS_TABLE), {
                'id': str(uuid.uuid4()), 'specs_id': specs_id, 'key': key,
                'value': value})


@writer
def qos_specs_create(context, name, consumer, specs):
    """Create QoS specs; names are unique among live specs.

    :raises QoSSpecsExists: live specs have this name.
    """
    if _execute(context, _ROOTS.where(
            _QOS_TABLE.c.value == name).limit(1)).first() is not None:
        raise exception.QoSSpecsExists(specs_id=name)
    root_id = str(uuid.uuid4())
    _execute(context, sa.insert(_QOS_TABLE), {
        'id': root_id, 'key': models.QOS_NAME_KEY, 'value': name})
    _set_items(context, root_id, dict(specs, consumer=consumer))
    return _get(context, root_id)


@reader
def qos_specs_get(context, specs_id):
    return _get(context, specs_id)


@reader
def qos_specs_get_all(context):
    """Every live QoS specs, oldest first (two queries)."""
    roots = _execute(context, _ROOTS.order_by(_QOS_TABLE.c.created_at,
                                              _QOS_TABLE.c.id)).all()
    items = _items(context, [root.id for root in roots])
    return [_record(root, items[root.id]) for root in roots]


@writer
def qos_specs_update(context, specs_id, specs):
    """Set keys of QoS specs (``consumer`` among them), keep the others."""
    _root(context, specs_id)
    _set_items(context, specs_id, specs)
    return _get(context, specs_id)


@writer
def qos_specs_delete_keys(context, specs_id, keys):
    """Remove keys of QoS specs; all or nothing.

    :raises QoSSpecsKeyNotFound: a key is not in the specs.
    """
    _root(context, specs_id)
    for key in keys:
        if not soft_delete(context, _QOS, _QOS.specs_id == specs_id,
                           _QOS.key == key):
            raise exception.QoSSpecsKeyNotFound(specs_id=specs_id,
                                                specs_key=key)


def _associated(specs_id):
    """The Core select of the live types associated with QoS specs."""
    return sa.select(*(_TYPE_TABLE.c[name] for name in records.columns_of(
        records.VolumeType))).where(
            _TYPE_TABLE.c.qos_specs_id == specs_id,
            _TYPE_TABLE.c.deleted == sa.false())


@writer
def qos_specs_delete(context, specs_id, force=False):
    """Delete QoS specs; with ``force``, disassociate them first.

    :raises QoSSpecsInUse: volume types use them and not ``force``.
    """
    # The root first: an association racing with this waits for it, and
    # then finds the specs gone (see qos_specs_associate).
    _lock_root(context, specs_id, {'deleted': True, 'deleted_at': utcnow()})
    if _execute(context, _associated(specs_id).limit(1)).first() is not None:
        if not force:
            raise exception.QoSSpecsInUse(specs_id=specs_id)
        _disassociate_all(context, specs_id)
    soft_delete(context, _QOS, _QOS.specs_id == specs_id)


@reader
def qos_specs_associations_get(context, specs_id):
    """The live volume types associated with QoS specs, by name (their
    :class:`~cinder_ma.db.records.VolumeType` records, without their
    children)."""
    _root(context, specs_id)
    return records.from_result(records.VolumeType, _execute(
        context, _associated(specs_id).order_by(_TYPE_TABLE.c.name)))


@writer
def qos_specs_associate(context, specs_id, type_id):
    """Associate QoS specs with a volume type, in one compare-and-swap:
    the type must have no QoS specs or these.

    :raises InvalidVolumeType: the type has other QoS specs.
    """
    _lock_root(context, specs_id)
    if not _type_exists(context, type_id):
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)
    updated = _execute(
        context, sa.update(_TYPE_TABLE).where(
            _TYPE.id == type_id, _TYPE.deleted == sa.false(),
            sa.or_(_TYPE.qos_specs_id.is_(None),
                   _TYPE.qos_specs_id == specs_id))
        .values(qos_specs_id=specs_id, updated_at=utcnow())).rowcount
    if not updated:
        current = _execute(context, sa.select(_TYPE.qos_specs_id).where(
            _TYPE.id == type_id)).scalar()
        raise exception.InvalidVolumeType(
            reason='Type %s is already associated with another qos specs: '
                   '%s' % (type_id, current))


@writer
def qos_specs_disassociate(context, specs_id, type_id):
    """Take QoS specs from a volume type (nothing if it has others)."""
    _root(context, specs_id)
    if not _type_exists(context, type_id):
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)
    _execute(
        context, sa.update(_TYPE_TABLE).where(_TYPE.id == type_id,
                               _TYPE.qos_specs_id == specs_id)
        .values(qos_specs_id=None, updated_at=utcnow()))


def _type_exists(context, type_id):
    return _execute(context, sa.select(_TYPE_TABLE.c.id).where(
        _TYPE_TABLE.c.id == type_id,
        _TYPE_TABLE.c.deleted == sa.false())).first() is not None


def _disassociate_all(context, specs_id):
    _execute(
        context, sa.update(_TYPE_TABLE).where(_TYPE.qos_specs_id == specs_id)
        .values(qos_specs_id=None, updated_at=utcnow()))


@writer
def qos_specs_disassociate_all(context, specs_id):
    _root(context, specs_id)
    _disassociate_all(context, specs_id)


# Read for every volume the manager creates or connects: built once.
_SPECS_ID_OF_TYPE = sa.select(_TYPE_TABLE.c.qos_specs_id).where(
    _TYPE_TABLE.c.id == sa.bindparam('type_id'))


@reader
def qos_specs_get_by_type(context, type_id):
    """The QoS specs of a volume type, or None (two small queries)."""
    specs_id = _execute(context, _SPECS_ID_OF_TYPE,
                        {'type_id': type_id}).scalar()
    if specs_id is None:
        return None
    try:
        return _get(context, specs_id)
    except exception.QoSSpecsNotFound:
        return None
