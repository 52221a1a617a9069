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
a type."""

import typing
import uuid

import sqlalchemy as sa

from cinder_ma.db.api import conditional_update
from cinder_ma.db.api import conditional_update_pk
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


def _type_query(context):
    return context.session.query(models.VolumeType).filter(
        models.VolumeType.deleted == sa.false())


def _type_get(context, type_id):
    vtype = _type_query(context).filter(
        models.VolumeType.id == type_id).populate_existing().first()
    if vtype is None:
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)
    return vtype


def _lock_type(context, type_id):
    """Touch a type's row: its lock serializes writers that check one
    another's changes to the type (multiattach spec vs. encryption)."""
    if not conditional_update(context.session, models.VolumeType, type_id,
                              {}):
        raise exception.VolumeTypeNotFound(volume_type_id=type_id)


@writer
def volume_type_create(context, values, extra_specs=None):
    values = dict(values)
    name = values['name']
    if _type_query(context).filter(models.VolumeType.name == name).first():
        raise exception.VolumeTypeExists(name=name)
    vtype = models.VolumeType(id=values.pop('id', None) or str(uuid.uuid4()),
                              **values)
    with on_duplicate_raise(exception.VolumeTypeExists(name=name)):
        context.session.add(vtype)
        context.session.flush()
    for key, value in (extra_specs or {}).items():
        context.session.add(models.VolumeTypeExtraSpecs(
            volume_type_id=vtype.id, key=key, value=value))
    context.session.flush()
    return _type_get(context, vtype.id)


@reader
def volume_type_get(context, type_id):
    return _type_get(context, type_id)


class TypeForVolume(typing.NamedTuple):
    """What creating or retyping a volume needs of its type (read by
    :func:`volume_type_find`)."""

    id: str
    name: str
    is_public: bool
    #: Whether the project the lookup was made for may use the type
    #: (it has access to it; a public type needs none).
    shared: bool
    #: Whether the type has a live encryption.
    encrypted: bool
    #: {key: value} of its live extra specs.
    extra_specs: dict

    def record(self):
        """What the record of a volume of this type holds of it."""
        return records.VolumeType(self.id, self.name,
                                  self.extra_specs.get(models.WRITERS_SPEC))


_TYPE_TABLE = models.VolumeType.__table__
_SPEC_TABLE = models.VolumeTypeExtraSpecs.__table__
_ACCESS_TABLE = models.VolumeTypeProjects.__table__
_ENCRYPTION_TABLE = models.Encryption.__table__
# One row per live extra spec of the type (one with a NULL key when it
# has none), each with the type's columns: one statement, built once.
_FIND = sa.select(
    _TYPE_TABLE.c.id, _TYPE_TABLE.c.name, _TYPE_TABLE.c.is_public,
    sa.exists().where(
        _ACCESS_TABLE.c.volume_type_id == _TYPE_TABLE.c.id,
        _ACCESS_TABLE.c.project_id == sa.bindparam('project_id'),
        _ACCESS_TABLE.c.deleted == sa.false()).label('shared'),
    sa.exists().where(
        _ENCRYPTION_TABLE.c.volume_type_id == _TYPE_TABLE.c.id,
        _ENCRYPTION_TABLE.c.deleted == sa.false()).label('encrypted'),
    _SPEC_TABLE.c.key, _SPEC_TABLE.c.value,
).select_from(_TYPE_TABLE.outerjoin(_SPEC_TABLE, sa.and_(
    _SPEC_TABLE.c.volume_type_id == _TYPE_TABLE.c.id,
    _SPEC_TABLE.c.deleted == sa.false()))).where(
        _TYPE_TABLE.c.deleted == sa.false())
_FIND_BY_ID = _FIND.where(_TYPE_TABLE.c.id == sa.bindparam('key'))
_FIND_BY_NAME = _FIND.where(_TYPE_TABLE.c.name == sa.bindparam('key'))


@reader
def volume_type_find(context, type_id=None, name=None, project_id=None):
    """A live type by id or by name, with what creating a volume needs of
    it, in one query.

    :param project_id: the project whose access to the type ``shared``
        tells.
    :returns: a :class:`TypeForVolume`.
    :raises VolumeTypeNotFound: no live type has id ``type_id``.
    :raises VolumeTypeNotFoundByName: no live type is named ``name``.
    """
    if type_id is not None:
        statement, key = _FIND_BY_ID, type_id
    else:
        statement, key = _FIND_BY_NAME, name
    rows = context.session.connection().execute(
        statement, {'key': key, 'project_id': project_id}).all()
    if not rows:
        if type_id is not None:
            raise exception.VolumeTypeNotFound(volume_type_id=type_id)
        raise exception.VolumeTypeNotFoundByName(volume_type_name=name)
    first = rows[0]
    return TypeForVolume(
        first.id, first.name, bool(first.is_public), bool(first.shared),
        bool(first.encrypted),
        {row.key: row.value for row in rows if row.key is not None})


@reader
def volume_type_get_all(context, filters=None, marker=None, limit=None,
                        sort_keys=None, sort_dirs=None):
    query = _type_query(context)
    for key, value in (filters or {}).items():
        if key == 'is_public' and value is not None:
            query = query.filter(models.VolumeType.is_public == value)
        elif key == 'visible_to_project':
            query = query.filter(sa.or_(
                models.VolumeType.is_public == sa.true(),
                models.VolumeType.projects.any(sa.and_(
                    models.VolumeTypeProjects.project_id == value,
                    models.VolumeTypeProjects.deleted == sa.false()))))
        elif key == 'extra_specs':
            for skey, svalue in value.items():
                query = query.filter(models.VolumeType.extra_specs.any(
                    sa.and_(models.VolumeTypeExtraSpecs.key == skey,
                            models.VolumeTypeExtraSpecs.value == svalue)))
    query = paginate(query, models.VolumeType,
                     lambda: _type_query(context), marker,
                     limit, sort_keys, sort_dirs,
                     ('id', 'name', 'description', 'is_public', 'created_at'),
                     'name', 'asc')
    return query.all()


@writer
def volume_type_update(context, type_id, values):
    vtype = _type_get(context, type_id)
    name = values.get('name')
    if name and name != vtype.name:
        if _type_query(context).filter(
                models.VolumeType.name == name).first():
            raise exception.VolumeTypeExists(name=name)
    with on_duplicate_raise(exception.VolumeTypeExists(name=name)):
        conditional_update(context.session, models.VolumeType, type_id,
                           values)
    return _type_get(context, type_id)


def _type_in_use(context, type_id):
    return context.session.query(models.Volume.id).filter(
        models.Volume.volume_type_id == type_id,
        models.Volume.deleted == sa.false()).first() is not None


@writer
def volume_type_destroy(context, type_id):
    _type_get(context, type_id)
    if _type_in_use(context, type_id):
        raise exception.VolumeTypeInUse(volume_type_id=type_id)
    conditional_update(context.session, models.VolumeType, type_id,
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
    return dict(context.session.connection().execute(
        _EXTRA_SPECS, {'type_id': type_id}).all())


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
    if expected is not None and not context.session.query(
            models.VolumeType.id).filter(models.VolumeType.id == type_id,
                                         expected).first():
        raise exception.InvalidVolumeType(
            reason='volume type %s changed concurrently' % type_id)
    now = utcnow()
    for key, value in specs.items():
        row = context.session.query(models.VolumeTypeExtraSpecs).filter(
            models.VolumeTypeExtraSpecs.volume_type_id == type_id,
            models.VolumeTypeExtraSpecs.key == key,
            models.VolumeTypeExtraSpecs.deleted == sa.false()).first()
        if row is None:
            context.session.add(models.VolumeTypeExtraSpecs(
                volume_type_id=type_id, key=key, value=value))
        else:
            row.value = value
            row.updated_at = now
    with on_duplicate_raise(exception.Conflict(
            reason='extra specs %s of volume type %s were set by a '
                   'concurrent request' % (', '.join(sorted(specs)),
                                           type_id))):
        context.session.flush()
    return {s.key: s.value for s in _type_get(context, type_id).extra_specs}


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
    return [p.project_id for p in _type_get(context, type_id).projects]


@writer
def volume_type_access_add(context, type_id, project_id):
    vtype = _type_get(context, type_id)
    if project_id in {p.project_id for p in vtype.projects}:
        raise exception.VolumeTypeAccessExists(volume_type_id=type_id,
                                               project_id=project_id)
    with on_duplicate_raise(exception.VolumeTypeAccessExists(
            volume_type_id=type_id, project_id=project_id)):
        context.session.add(models.VolumeTypeProjects(
            volume_type_id=type_id, project_id=project_id))
        context.session.flush()


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
    """
    _lock_type(context, type_id)
    vtype = _type_get(context, type_id)
    if vtype.encryption is not None:
        raise exception.VolumeTypeEncryptionExists(type_id=type_id)
    if expected_specs is not None:
        ok = context.session.query(models.VolumeType.id).filter(
            models.VolumeType.id == type_id, expected_specs).first()
        if not ok:
            raise exception.InvalidVolumeType(
                reason='volume type %s changed concurrently' % type_id)
    context.session.add(models.Encryption(
        encryption_id=str(uuid.uuid4()), volume_type_id=type_id, **values))
    context.session.flush()
    return _type_get(context, type_id).encryption


def _encryption_of(context, type_id):
    encryption = _type_get(context, type_id).encryption
    if encryption is None:
        raise exception.VolumeTypeEncryptionNotFound(type_id=type_id)
    return encryption


@writer
def volume_type_encryption_update(context, type_id, values):
    encryption = _encryption_of(context, type_id)
    conditional_update_pk(context.session, models.Encryption,
                          models.Encryption.encryption_id,
                          encryption.encryption_id, values)
    return _type_get(context, type_id).encryption


@writer
def volume_type_encryption_delete(context, type_id):
    encryption = _encryption_of(context, type_id)
    if _type_in_use(context, type_id):
        raise exception.VolumeTypeEncryptionInUse(type_id=type_id,
                                                  action='delete')
    conditional_update_pk(context.session, models.Encryption,
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
