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

"""Database API of quotas: limits, quota classes and usage counters.

Limits: a project's own rows in ``quotas`` override the rows of its quota
class (``default``) in ``quota_classes``, which override the options (the
quota service, :mod:`cinder_ma.volume.quotas`, resolves them).

Usage: one counter per project and resource in ``quota_usages``. Every
change of a project's volumes changes its counters in the same
transaction (:func:`change_usage`): it locks and reads them, checks the
limits and changes them all in one UPDATE::

    SELECT resource, in_use FROM quota_usages
     WHERE project_id = :p AND resource IN (:r0, :r1, ...)
     ORDER BY resource FOR UPDATE
    UPDATE quota_usages SET in_use = in_use + CASE WHEN resource = :r0
           THEN :d0 WHEN ... END
     WHERE project_id = :p AND resource IN (:r0, :r1, ...)

so that concurrent creates cannot go past a quota on any database: the
SELECT waits for the row locks of a concurrent writer and (READ
COMMITTED) reads what it committed, and holds the locks until this
transaction ends; on SQLite the writers take turns. A counter over its
limit is refused before anything changes.

A counter is created on first use from the volumes present (so volumes
recorded before the quota tables existed are counted), in a transaction
of its own before the change (:func:`ensure_usages`), because two
creations of one counter collide on its unique key.

Resources are named as Cinder names them ('volumes', 'gigabytes',
'per_volume_gigabytes', ...), except a volume type's, which are keyed by
the type's id ('volumes:<type id>', 'gigabytes:<type id>') so that a
renamed type keeps its quotas; the quota service shows them as Cinder's
'volumes_<type name>'.
"""

import functools

from oslo_db import exception as db_exc
import sqlalchemy as sa

from cinder_ma.db.api import connection_of
from cinder_ma.db.api import reader
from cinder_ma.db.api import utcnow
from cinder_ma.db.api import writer
from cinder_ma.db import models
from cinder_ma import exception

VOLUMES = 'volumes'
SNAPSHOTS = 'snapshots'
GIGABYTES = 'gigabytes'
PER_VOLUME_GIGABYTES = 'per_volume_gigabytes'

_COUNTED = (VOLUMES, GIGABYTES)


class UsageMissing(Exception):
    """A counter the transaction needs does not exist yet; create it with
    :func:`ensure_usages` and run the transaction again
    (:func:`retrying` does both)."""

    def __init__(self, project_id, resources):
        super().__init__('no usage counter of %s for %s' % (
            project_id, ', '.join(resources)))
        self.project_id = project_id
        self.resources = tuple(resources)


def type_resource(resource, type_id):
    """The key of a volume type's own quota of ``resource``."""
    return '%s:%s' % (resource, type_id)


def split_resource(resource):
    """(resource, type id or None) of a key."""
    name, _sep, type_id = resource.partition(':')
    return name, type_id or None


def volume_deltas(size, type_id, sign=1):
    """The counters a volume of ``size`` GiB and type ``type_id`` holds."""
    return {VOLUMES: sign, GIGABYTES: sign * size,
            type_resource(VOLUMES, type_id): sign,
            type_resource(GIGABYTES, type_id): sign * size}


def snapshot_deltas(size, type_id, sign=1):
    """The counters a snapshot of a volume of ``size`` GiB and type
    ``type_id`` holds."""
    return {SNAPSHOTS: sign, GIGABYTES: sign * size,
            type_resource(SNAPSHOTS, type_id): sign,
            type_resource(GIGABYTES, type_id): sign * size}


# Limits

def _limits(context, model, key_column, key):
    return dict(connection_of(context).execute(
        sa.select(model.resource, model.hard_limit).where(
            key_column == key)).all())


def _set_limits(context, model, key_column, key, limits):
    """Insert or replace rows (the caller's transaction holds a savepoint
    per insert, so a concurrent insert of the same key turns into an
    update)."""
    now = utcnow()
    for resource, limit in sorted(limits.items()):
        where = (key_column == key, model.resource == resource)
        updated = connection_of(context).execute(
            sa.update(model).where(*where).values(
                hard_limit=limit, updated_at=now)).rowcount
        if updated:
            continue
        try:
            with connection_of(context).begin_nested():
                connection_of(context).execute(sa.insert(model).values(
                    {key_column.key: key, 'resource': resource,
                     'hard_limit': limit, 'created_at': now}))
        except db_exc.DBDuplicateEntry:
            connection_of(context).execute(sa.update(model).where(*where).values(
                hard_limit=limit, updated_at=now))


_QUOTA_TABLE = models.Quota.__table__
_CLASS_TABLE = models.QuotaClass.__table__
# The limits of a quota class and a project's own, told apart by 'own'.
_PROJECT_LIMITS = sa.union_all(
    sa.select(_CLASS_TABLE.c.resource, _CLASS_TABLE.c.hard_limit,
              sa.literal(False).label('own')).where(
        _CLASS_TABLE.c.class_name == sa.bindparam('class_name')),
    sa.select(_QUOTA_TABLE.c.resource, _QUOTA_TABLE.c.hard_limit,
              sa.literal(True).label('own')).where(
        _QUOTA_TABLE.c.project_id == sa.bindparam('project_id')))


@reader
def quota_get_all(context, project_id, class_name):
    """The limits of a project's quota class and its own, in one query:
    ({resource: limit} of the class, {resource: limit} of the
    project)."""
    limits = ({}, {})
    for resource, limit, own in connection_of(context).execute(
            _PROJECT_LIMITS, {'class_name': class_name,
                              'project_id': project_id}):
        limits[bool(own)][resource] = limit
    return limits


@writer
def quota_set(context, project_id, limits):
    _set_limits(context, models.Quota, models.Quota.project_id, project_id,
                limits)


@writer
def quota_destroy_all(context, project_id):
    """Forget a project's own limits (back to its class's)."""
    connection_of(context).execute(sa.delete(models.Quota).where(
        models.Quota.project_id == project_id))


@reader
def quota_class_get_all(context, class_name):
    return _limits(context, models.QuotaClass, models.QuotaClass.class_name,
                   class_name)


@writer
def quota_class_set(context, class_name, limits):
    _set_limits(context, models.QuotaClass, models.QuotaClass.class_name,
                class_name, limits)


# Usage

def _count_of(context, model, what, project_id, type_id):
    query = sa.select(what).where(model.project_id == project_id,
                                  model.deleted == sa.false())
    if type_id is not None:
        query = query.where(model.volume_type_id == type_id)
    return int(connection_of(context).execute(query).scalar() or 0)


def _count(context, project_id, resource):
    """What the volumes and snapshots present use of a resource (as in
    Cinder, a snapshot's gigabytes count with the volumes')."""
    name, type_id = split_resource(resource)
    volume = models.Volume
    snapshot = models.Snapshot
    if name == VOLUMES:
        return _count_of(context, volume, sa.func.count(volume.id),
                         project_id, type_id)
    if name == SNAPSHOTS:
        return _count_of(context, snapshot, sa.func.count(snapshot.id),
                         project_id, type_id)
    if name == GIGABYTES:
        return (_count_of(context, volume,
                          sa.func.coalesce(sa.func.sum(volume.size), 0),
                          project_id, type_id) +
                _count_of(context, snapshot,
                          sa.func.coalesce(sa.func.sum(
                              snapshot.volume_size), 0),
                          project_id, type_id))
    return 0


@reader
def usage_get_all(context, project_id, resources=()):
    """A project's usage: {resource: in_use} of its counters, and of
    ``resources`` without a counter yet, counted from its volumes."""
    table = models.QuotaUsage
    usage = dict(connection_of(context).execute(
        sa.select(table.resource, table.in_use).where(
            table.project_id == project_id)).all())
    for resource in resources:
        if resource not in usage:
            usage[resource] = _count(context, project_id, resource)
    return usage


@writer
def ensure_usages(context, project_id, resources):
    """Create the missing counters of a project from its volumes."""
    table = models.QuotaUsage
    present = set(connection_of(context).execute(
        sa.select(table.resource).where(
            table.project_id == project_id,
            table.resource.in_(list(resources)))).scalars())
    now = utcnow()
    for resource in sorted(set(resources) - present):
        try:
            with connection_of(context).begin_nested():
                connection_of(context).execute(sa.insert(table).values(
                    project_id=project_id, resource=resource,
                    in_use=_count(context, project_id, resource),
                    created_at=now))
        except db_exc.DBDuplicateEntry:
            # Created meanwhile, from the same volumes.
            pass


_USAGE_TABLE = models.QuotaUsage.__table__
# The counters a change needs, locked in the order of their keys.
_LOCK_COUNTERS = sa.select(
    _USAGE_TABLE.c.resource, _USAGE_TABLE.c.in_use).where(
        _USAGE_TABLE.c.project_id == sa.bindparam('p'),
        _USAGE_TABLE.c.resource.in_(sa.bindparam('r', expanding=True)),
).order_by(_USAGE_TABLE.c.resource).with_for_update()


@functools.cache
def _change_statement(count):
    """The UPDATE that adds to ``count`` counters of a project their
    deltas (parameters ``p``, ``now``, ``r0``..., ``d0``...), built once
    per count."""
    resources = [sa.bindparam('r%d' % index) for index in range(count)]
    delta = sa.case(
        *[(_USAGE_TABLE.c.resource == resources[index],
           sa.bindparam('d%d' % index, type_=sa.Integer))
          for index in range(count)])
    return sa.update(_USAGE_TABLE).where(
        _USAGE_TABLE.c.project_id == sa.bindparam('p'),
        _USAGE_TABLE.c.resource.in_(resources)).values(
            in_use=_USAGE_TABLE.c.in_use + delta,
            updated_at=sa.bindparam('now'))


def change_usage(context, project_id, deltas, limits=None,
                 skip_missing=False):
    """Change a project's counters inside the caller's writer
    transaction: a positive delta only within its limit (-1 or no limit:
    any), a negative one always.

    Two statements, whatever the number of counters: the counters are
    read and locked (SELECT ... FOR UPDATE, in the order of their keys,
    so that concurrent transactions lock them in one order; SQLite's
    writers take turns anyway), checked against their limits, then
    changed by one UPDATE. A concurrent change of the same counters
    waits for this transaction, then reads what it committed.

    :param limits: {resource: limit} of the resources to check.
    :param skip_missing: leave alone a counter that does not exist
        instead of raising UsageMissing (a release of what was never
        charged).
    :raises OverQuota: a positive delta does not fit its limit (the
        first in the order of the keys); the caller's transaction is to
        be rolled back (raising does).
    :raises UsageMissing: a counter does not exist yet.
    """
    limits = limits or {}
    deltas = {resource: delta for resource, delta in deltas.items()
              if delta}
    if not deltas:
        return
    # Core statements built once, on the transaction's connection.
    connection = connection_of(context)
    in_use = dict(connection.execute(
        _LOCK_COUNTERS, {'p': project_id, 'r': sorted(deltas)}).all())
    missing = []
    for resource, delta in sorted(deltas.items()):
        if resource not in in_use:
            missing.append(resource)
            continue
        limit = limits.get(resource, -1)
        if delta > 0 and limit is not None and limit >= 0 and (
                in_use[resource] + delta > limit):
            raise exception.OverQuota(resource=resource, limit=limit,
                                      in_use=in_use[resource],
                                      requested=delta)
    if missing and not skip_missing:
        raise UsageMissing(project_id, missing)
    present = sorted(resource for resource in deltas if resource in in_use)
    if not present:
        return
    params = {'p': project_id, 'now': utcnow()}
    for index, resource in enumerate(present):
        params['r%d' % index] = resource
        params['d%d' % index] = deltas[resource]
    connection.execute(_change_statement(len(present)), params)


_TRIES = 5


def retrying(context, func, *args, **kwargs):
    """Run ``func`` (a writer that changes usage); while a counter is
    missing (or was created by another transaction as this one looked
    for it), create it and run ``func`` again."""
    for attempt in range(_TRIES):
        try:
            return func(*args, **kwargs)
        except UsageMissing as missing:
            if attempt == _TRIES - 1:
                raise
            ensure_usages(context, missing.project_id, missing.resources)


def release_volume(context, volume):
    """A ``quota`` hook of volume_destroy: give back what the volume
    held."""
    change_usage(context, volume.project_id,
                 volume_deltas(volume.size, volume.volume_type_id, -1))


def release_snapshot(context, snapshot):
    """A ``quota`` hook of snapshot_destroy: give back what the snapshot
    held."""
    change_usage(context, snapshot.project_id,
                 snapshot_deltas(snapshot.volume_size,
                                 snapshot.volume_type_id, -1))


@writer
def release_extend(context, volume_id, delta):
    """Give back the gigabytes charged for an extend that failed."""
    volume = connection_of(context).execute(
        sa.select(models.Volume.project_id, models.Volume.volume_type_id)
        .where(models.Volume.id == volume_id)).first()
    if volume is None or delta <= 0:
        return
    # A counter that does not exist was not charged (the charge makes
    # them).
    change_usage(context, volume.project_id, {
        GIGABYTES: -delta,
        type_resource(GIGABYTES, volume.volume_type_id): -delta},
        skip_missing=True)
