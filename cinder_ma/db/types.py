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

"""Database API of volume types: types, their extra specs, project
access and encryption, and the SQL conditions that other writers check on
a type.

Readers return :class:`cinder_ma.db.records.VolumeType` records (with
:class:`~cinder_ma.db.records.Encryption`). Every statement is a Core
statement of the tables, run on the transaction's connection."""

import uuid

import sqlalchemy as sa

from cinder_ma.db.api import conditional_update
from cinder_ma.db.api import conditional_update_pk
from cinder_ma.db.api import connection_of
from cinder_ma.db.api import deleted_values
from cinder_ma.db.api import on_duplicate_raise
from cinder_ma.db.api import paginate
from cinder_ma.db.api import reader
from cinder_ma.db.api import soft_delete
from cinder_ma.db.api import utcnow
from cinder_ma.db.api import writer
from cinder_ma.db import models
from cinder_ma.db import records
from cinder_ma import exception


_TYPE_TABLE = models.VolumeType.__table__
_SPEC_TABLE = models.VolumeTypeExtraSpecs.__table__
_ACCESS_TABLE = models.VolumeTypeProjects.__table__
_ENCRYPTION_TABLE = models.Encryption.__table__
_VOLUME_TABLE = models.Volume.__table__

_LIVE_TYPES = sa.select(
    *(_TYPE_TABLE.c[name] for name in records.columns_of(
        records.VolumeType))).where(_TYPE_TABLE.c.deleted == sa.false())
_TYPE_BY_ID = _LIVE_TYPES.where(_TYPE_TABLE.c.id == sa.bindparam('type_id'))
_TYPE_BY_NAME = _LIVE_TYPES.where(
    _TYPE_TABLE.c.name == sa.bindparam('name')).limit(1)
_SPECS_OF_TYPES = sa.select(
    _SPEC_TABLE.c.volume_type_id, _SPEC_TABLE.c.key,
    _SPEC_TABLE.c.value).where(
        _SPEC_TABLE.c.volume_type_id.in_(
            sa.bindparam('ids', expanding=True)),
        _SPEC_TABLE.c.deleted == sa.false())
_PROJECTS_OF_TYPE = sa.select(_ACCESS_TABLE.c.project_id).where(
    _ACCESS_TABLE.c.volume_type_id == sa.bindparam('type_id'),
    _ACCESS_TABLE.c.deleted == sa.false()).order_by(_ACCESS_TABLE.c.id)
_ENCRYPTION_OF_TYPE = sa.select(_ENCRYPTION_TABLE).where(
    _ENCRYPTION_TABLE.c.volume_type_id == sa.bindparam('type_id'),
    _ENCRYPTION_TABLE.c.deleted == sa.false()).limit(1)


def _specs_of(connection, type_ids):
    """{type id: {key: value}} of the live extra specs of the types."""
    specs = {type_id: {} for type_id in type_ids}
    if type_ids:
        for type_id, key, value in connection.execute(
                _SPECS_OF_TYPES, {'ids': list(type_ids)}):
            specs[type_id][key] = value
    return specs


def _type_get(context, type_id):
    """The live type ``type_id`` with its extra specs, projects and
    encryption (four small queries)."""
    connection = connection_of(context)
    row = connection.execute(_TYPE_BY_ID, {'type_id': type_id}).first()
    if row is None:
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)
    params = {'type_id': type_id}
    encryption = connection.execute(_ENCRYPTION_OF_TYPE, params).first()
    return records.from_row(
        records.VolumeType, row, _specs_of(connection, [type_id])[type_id],
        tuple(connection.execute(_PROJECTS_OF_TYPE, params).scalars()),
        None if encryption is None else records.from_row(
            records.Encryption, encryption))


def _name_taken(context, name):
    return connection_of(context).execute(
        _TYPE_BY_NAME, {'name': name}).first() is not None


def _lock_type(context, type_id):
    """Touch a type's row: its lock serializes writers that check one
    another's changes to the type (multiattach spec vs. encryption)."""
    if not conditional_update(context, models.VolumeType, type_id,
                              {}):
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)


def _insert(context, table, values):
    connection_of(context).execute(sa.insert(table), values)


@writer
def volume_type_create(context, values, extra_specs=None):
    values = dict(values)
    name = values['name']
    if _name_taken(context, name):
        raise exception.VolumeTypeExists(name=name)
    values['id'] = values.get('id') or str(uuid.uuid4())
    with on_duplicate_raise(exception.VolumeTypeExists(name=name)):
        _insert(context, _TYPE_TABLE, values)
    if extra_specs:
        _insert(context, _SPEC_TABLE, [
            {'volume_type_id': values['id'], 'key': key, 'value': value}
            for key, value in extra_specs.items()])
    return _type_get(context, values['id'])


@reader
def volume_type_get(context, type_id):
    """A live type with its extra specs, projects and encryption.

    :returns: a :class:`cinder_ma.db.records.VolumeType`.
    """
    return _type_get(context, type_id)


# One row per live extra spec of the type (one with a NULL key when it
# has none), each with the type's columns, whether the project has
# access to it and its encryption's: one statement, built once.
_ENCRYPTION_COLUMNS = records.columns_of(records.Encryption)
_FIND = sa.select(
    *(_TYPE_TABLE.c[name] for name in records.columns_of(
        records.VolumeType)),
    sa.exists().where(
        _ACCESS_TABLE.c.volume_type_id == _TYPE_TABLE.c.id,
        _ACCESS_TABLE.c.project_id == sa.bindparam('project_id'),
        _ACCESS_TABLE.c.deleted == sa.false()).label('shared'),
    *(_ENCRYPTION_TABLE.c[name].label('encryption__' + name)
      for name in _ENCRYPTION_COLUMNS),
    _SPEC_TABLE.c.key.label('spec_key'),
    _SPEC_TABLE.c.value.label('spec_value'),
).select_from(_TYPE_TABLE.outerjoin(_SPEC_TABLE, sa.and_(
    _SPEC_TABLE.c.volume_type_id == _TYPE_TABLE.c.id,
    _SPEC_TABLE.c.deleted == sa.false())).outerjoin(
        _ENCRYPTION_TABLE, sa.and_(
            _ENCRYPTION_TABLE.c.volume_type_id == _TYPE_TABLE.c.id,
            _ENCRYPTION_TABLE.c.deleted == sa.false()))).where(
        _TYPE_TABLE.c.deleted == sa.false())
_FIND_BY_ID = _FIND.where(_TYPE_TABLE.c.id == sa.bindparam('key'))
_FIND_BY_NAME = _FIND.where(_TYPE_TABLE.c.name == sa.bindparam('key'))


@reader
def volume_type_find(context, type_id=None, name=None, project_id=None):
    """A live type by id or by name, with what creating a volume needs of
    it, in one query: its extra specs, its encryption and, as its
    ``projects``, ``project_id`` if that project was given access to it
    (``()`` if not).

    :returns: a :class:`cinder_ma.db.records.VolumeType`.
    :raises VolumeTypeNotFound: no live type has id ``type_id``.
    :raises VolumeTypeNotFoundByName: no live type is named ``name``.
    """
    if type_id is not None:
        statement, key = _FIND_BY_ID, type_id
    else:
        statement, key = _FIND_BY_NAME, name
    rows = connection_of(context).execute(
        statement, {'key': key, 'project_id': project_id}).all()
    if not rows:
        if type_id is not None:
            raise exception.VolumeTypeNotFound(volume_type_id=type_id)
        raise exception.VolumeTypeNotFoundByName(volume_type_name=name)
    first = rows[0]
    encryption = None
    if first.encryption__encryption_id is not None:
        encryption = records.from_row(records.Encryption, first,
                                      prefix='encryption__')
    return records.from_row(
        records.VolumeType, first,
        {row.spec_key: row.spec_value for row in rows
         if row.spec_key is not None},
        (project_id,) if first.shared else (), encryption)


def _visible_to_project(project_id):
    return sa.or_(_TYPE_TABLE.c.is_public == sa.true(), sa.exists().where(
        _ACCESS_TABLE.c.volume_type_id == _TYPE_TABLE.c.id,
        _ACCESS_TABLE.c.project_id == project_id,
        _ACCESS_TABLE.c.deleted == sa.false()))


def _has_spec(key, value):
    return sa.exists().where(_SPEC_TABLE.c.volume_type_id == _TYPE_TABLE.c.id,
                             _SPEC_TABLE.c.key == key,
                             _SPEC_TABLE.c.value == value,
                             _SPEC_TABLE.c.deleted == sa.false())


@reader
def volume_type_get_all(context, filters=None, marker=None, limit=None,
                        sort_keys=None, sort_dirs=None):
    """A page of live types with their extra specs (two queries; their
    projects and encryption are not read: None)."""
    statement = _LIVE_TYPES
    for key, value in (filters or {}).items():
        if key == 'is_public' and value is not None:
            statement = statement.where(_TYPE_TABLE.c.is_public == value)
        elif key == 'visible_to_project':
            statement = statement.where(_visible_to_project(value))
        elif key == 'extra_specs':
            for skey, svalue in value.items():
                statement = statement.where(_has_spec(skey, svalue))
    connection = connection_of(context)
    statement = paginate(connection, statement, models.VolumeType,
                         _LIVE_TYPES, marker, limit, sort_keys, sort_dirs,
                         ('id', 'name', 'description', 'is_public',
                          'created_at'),
                         'name', 'asc')
    rows = connection.execute(statement).all()
    specs = _specs_of(connection, [row.id for row in rows])
    return [records.from_row(records.VolumeType, row, specs[row.id])
            for row in rows]


@writer
def volume_type_update(context, type_id, values):
    vtype = _type_get(context, type_id)
    name = values.get('name')
    if name and name != vtype.name and _name_taken(context, name):
        raise exception.VolumeTypeExists(name=name)
    with on_duplicate_raise(exception.VolumeTypeExists(name=name)):
        conditional_update(context, models.VolumeType, type_id,
                           values)
    return _type_get(context, type_id)


_VOLUME_OF_TYPE = sa.select(_VOLUME_TABLE.c.id).where(
    _VOLUME_TABLE.c.volume_type_id == sa.bindparam('type_id'),
    _VOLUME_TABLE.c.deleted == sa.false()).limit(1)


def _type_in_use(context, type_id):
    return connection_of(context).execute(
        _VOLUME_OF_TYPE, {'type_id': type_id}).first() is not None


@writer
def volume_type_destroy(context, type_id):
    _type_get(context, type_id)
    if _type_in_use(context, type_id):
        raise exception.VolumeTypeInUse(volume_type_id=type_id)
    conditional_update(context, models.VolumeType, type_id,
                       deleted_values(models.VolumeType))
    soft_delete(context, models.VolumeTypeExtraSpecs,
                models.VolumeTypeExtraSpecs.volume_type_id == type_id)


# Read by every reservation of a shareable volume: built once.
_EXTRA_SPECS = sa.select(_SPEC_TABLE.c.key, _SPEC_TABLE.c.value).where(
    _SPEC_TABLE.c.volume_type_id == sa.bindparam('type_id'),
    _SPEC_TABLE.c.deleted == sa.false())


@reader
def volume_type_extra_specs_get(context, type_id):
    """Extra specs of a type as a dict (one query)."""
    return dict(connection_of(context).execute(
        _EXTRA_SPECS, {'type_id': type_id}).all())


def _type_holds(context, type_id, condition):
    """Whether ``condition`` holds for the type ``type_id``."""
    return connection_of(context).execute(
        sa.select(_TYPE_TABLE.c.id).where(_TYPE_TABLE.c.id == type_id,
                                          condition)).first() is not None


_SET_SPEC = sa.update(_SPEC_TABLE).where(
    _SPEC_TABLE.c.volume_type_id == sa.bindparam('type_id'),
    _SPEC_TABLE.c.key == sa.bindparam('spec_key'),
    _SPEC_TABLE.c.deleted == sa.false()).values(
        value=sa.bindparam('spec_value'), updated_at=sa.bindparam('now'))


@writer
def volume_type_extra_specs_update_or_create(context, type_id, specs,
                                             expected=None):
    """Set extra specs of a type.

    :param expected: a SQL condition that must hold for the type in this
        transaction (for instance: it has no encryption).
    """
    _type_get(context, type_id)
    if expected is not None:
        # Take the type's row lock first, so that a concurrent encryption
        # create (which does the same) is serialized with this check.
        _lock_type(context, type_id)
        if not _type_holds(context, type_id, expected):
            raise exception.InvalidVolumeType(
                reason='volume type %s changed concurrently' % type_id)
    now = utcnow()
    connection = connection_of(context)
    with on_duplicate_raise(exception.Conflict(
            reason='extra specs %s of volume type %s were set by a '
                   'concurrent request' % (', '.join(sorted(specs)),
                                           type_id))):
        for key, value in specs.items():
            if not connection.execute(_SET_SPEC, {
                    'type_id': type_id, 'spec_key': key,
                    'spec_value': value, 'now': now}).rowcount:
                _insert(context, _SPEC_TABLE, {
                    'volume_type_id': type_id, 'key': key, 'value': value})
    return _specs_of(connection, [type_id])[type_id]


@writer
def volume_type_extra_specs_delete(context, type_id, key):
    _type_get(context, type_id)
    if not soft_delete(context, models.VolumeTypeExtraSpecs,
                       models.VolumeTypeExtraSpecs.volume_type_id == type_id,
                       models.VolumeTypeExtraSpecs.key == key):
        raise exception.VolumeTypeExtraSpecsNotFound(
            volume_type_id=type_id, extra_specs_key=key)


@reader
def volume_type_access_get_all(context, type_id):
    return list(_type_get(context, type_id).projects)


@writer
def volume_type_access_add(context, type_id, project_id):
    vtype = _type_get(context, type_id)
    if project_id in vtype.projects:
        raise exception.VolumeTypeAccessExists(volume_type_id=type_id,
                                               project_id=project_id)
    with on_duplicate_raise(exception.VolumeTypeAccessExists(
            volume_type_id=type_id, project_id=project_id)):
        _insert(context, _ACCESS_TABLE, {
            'volume_type_id': type_id, 'project_id': project_id})


@writer
def volume_type_access_remove(context, type_id, project_id):
    _type_get(context, type_id)
    if not soft_delete(context, models.VolumeTypeProjects,
                       models.VolumeTypeProjects.volume_type_id == type_id,
                       models.VolumeTypeProjects.project_id == project_id):
        raise exception.VolumeTypeAccessNotFound(volume_type_id=type_id,
                                                 project_id=project_id)


@writer
def volume_type_encryption_create(context, type_id, values,
                                  expected_specs=None):
    """Make a type encrypted.

    :param expected_specs: a SQL condition on the type that must still
        hold (no multiattach spec), checked in the same transaction.
    :returns: its :class:`cinder_ma.db.records.Encryption`.
    """
    _lock_type(context, type_id)
    vtype = _type_get(context, type_id)
    if vtype.encryption is not None:
        raise exception.VolumeTypeEncryptionExists(type_id=type_id)
    if expected_specs is not None and not _type_holds(context, type_id,
                                                      expected_specs):
        raise exception.InvalidVolumeType(
            reason='volume type %s changed concurrently' % type_id)
    _insert(context, _ENCRYPTION_TABLE, dict(
        values, encryption_id=str(uuid.uuid4()), volume_type_id=type_id))
    return _type_get(context, type_id).encryption


def _encryption_of(context, type_id):
    encryption = _type_get(context, type_id).encryption
    if encryption is None:
        raise exception.VolumeTypeEncryptionNotFound(type_id=type_id)
    return encryption


@writer
def volume_type_encryption_update(context, type_id, values):
    encryption = _encryption_of(context, type_id)
    conditional_update_pk(context, models.Encryption,
                          models.Encryption.encryption_id,
                          encryption.encryption_id, values)
    return _type_get(context, type_id).encryption


@writer
def volume_type_encryption_delete(context, type_id):
    encryption = _encryption_of(context, type_id)
    if _type_in_use(context, type_id):
        raise exception.VolumeTypeEncryptionInUse(type_id=type_id,
                                                  action='delete')
    conditional_update_pk(context, models.Encryption,
                          models.Encryption.encryption_id,
                          encryption.encryption_id,
                          {'deleted': True, 'deleted_at': utcnow()})


def type_has_no_encryption(type_id):
    """SQL condition: a type has no encryption (for conditional updates)."""
    return ~sa.exists().where(models.Encryption.volume_type_id == type_id,
                              models.Encryption.deleted == sa.false())


def type_has_no_multiattach_spec(type_id):
    """SQL condition: a type is not multiattach."""
    return ~sa.exists().where(
        models.VolumeTypeExtraSpecs.volume_type_id == type_id,
        models.VolumeTypeExtraSpecs.key == 'multiattach',
        sa.func.lower(models.VolumeTypeExtraSpecs.value) == '<is> true',
        models.VolumeTypeExtraSpecs.deleted == sa.false())
