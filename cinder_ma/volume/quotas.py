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

"""Quotas: limits of a project, their usage, and their enforcement.

A limit is the project's own (``os-quota-sets``), else its class's
(``os-quota-class-sets/default``), else the option ([DEFAULT]
quota_volumes, quota_gigabytes, per_volume_size_limit); -1 is unlimited.

Enforced: ``volumes``, ``snapshots``, ``gigabytes`` (a snapshot's
count with the volumes', as in Cinder), ``per_volume_gigabytes`` and the
per-type ``volumes_<type>``, ``snapshots_<type>`` and
``gigabytes_<type>``, on volume create, extend and retype and snapshot
create, inside the transaction of the change (see
:mod:`cinder_ma.db.quotas`). Shown but not enforced: Cinder's other
resources (backups, backup_gigabytes, groups), which cinder_ma does not
have. They can be set, so that Cinder's clients and Tempest round-trip
them, default to 0 and are never in use.
"""

from oslo_config import cfg

from cinder_ma.db import quotas as quota_db
from cinder_ma.db import types as type_db
from cinder_ma import exception
from cinder_ma.policies import limits as limit_policies
from cinder_ma.policies import quotas as quota_policies
from cinder_ma import policy

CONF = cfg.CONF

DEFAULT_CLASS = 'default'

VOLUMES = quota_db.VOLUMES
SNAPSHOTS = quota_db.SNAPSHOTS
GIGABYTES = quota_db.GIGABYTES
PER_VOLUME_GIGABYTES = quota_db.PER_VOLUME_GIGABYTES

# Cinder's resources that cinder_ma does not have: shown, settable, 0.
ABSENT = ('backups', 'backup_gigabytes', 'groups')
# Per-type resources, in the order Cinder shows them.
PER_TYPE = (VOLUMES, SNAPSHOTS, GIGABYTES)
ABSENT_PER_TYPE = ()

# Keys of a quota set body that are not resources (ignored, as in Cinder).
NON_QUOTA_KEYS = ('id', 'tenant_id')

MAX_INT = 0x7FFFFFFF


def _option_defaults():
    return {VOLUMES: CONF.quota_volumes,
            SNAPSHOTS: CONF.quota_snapshots,
            GIGABYTES: CONF.quota_gigabytes,
            PER_VOLUME_GIGABYTES: CONF.per_volume_size_limit}


def _type_default(name):
    return 0 if name in ABSENT_PER_TYPE else -1


def _types(context):
    """Every volume type, private ones too: {id: name}."""
    return {t.id: t.name
            for t in type_db.volume_type_get_all(context.elevated())}


def _option_limits():
    limits = dict.fromkeys(ABSENT, 0)
    limits.update(_option_defaults())
    return limits


def _class_limits(context, class_name):
    limits = _option_limits()
    limits.update(quota_db.quota_class_get_all(context, DEFAULT_CLASS))
    if class_name != DEFAULT_CLASS:
        limits.update(quota_db.quota_class_get_all(context, class_name))
    return limits


def effective_limits(context, project_id):
    """{resource key: limit} of a project (per-type keys only where set;
    an unset one is unlimited, or 0 for a resource cinder_ma lacks)."""
    class_limits, own = quota_db.quota_get_all(context, project_id,
                                               DEFAULT_CLASS)
    limits = _option_limits()
    limits.update(class_limits)
    limits.update(own)
    return limits


def _wire(limits, types):
    """Internal keys to Cinder's: every resource, and every per-type
    resource of every type."""
    shown = {}
    for key in (VOLUMES, 'snapshots', GIGABYTES, 'backups',
                'backup_gigabytes', PER_VOLUME_GIGABYTES, 'groups'):
        shown[key] = limits[key]
    for type_id, name in sorted(types.items(), key=lambda t: t[1]):
        for resource in PER_TYPE:
            shown['%s_%s' % (resource, name)] = limits.get(
                quota_db.type_resource(resource, type_id),
                _type_default(resource))
    return shown


def _to_keys(body, types):
    """Cinder's keys of a request body to internal ones, validated.

    :raises InvalidInput: a key that names no resource, a value that is
        not an integer from -1.
    """
    by_name = {name: type_id for type_id, name in types.items()}
    plain = (VOLUMES, SNAPSHOTS, GIGABYTES, PER_VOLUME_GIGABYTES) + ABSENT
    limits, bad = {}, []
    for key, value in body.items():
        if key in NON_QUOTA_KEYS:
            continue
        internal = key if key in plain else None
        if internal is None:
            for resource in PER_TYPE:
                prefix = resource + '_'
                if key.startswith(prefix) and key[len(prefix):] in by_name:
                    internal = quota_db.type_resource(
                        resource, by_name[key[len(prefix):]])
                    break
        if internal is None:
            bad.append(key)
            continue
        limits[internal] = _integer(key, value)
    if bad:
        raise exception.InvalidInput(
            reason='Bad key(s) in quota set: %s' % ','.join(sorted(bad)))
    return limits


def _integer(key, value):
    if isinstance(value, bool):
        value = None
    try:
        value = int(str(value).strip()) if value is not None else None
    except ValueError:
        value = None
    if value is None:
        raise exception.InvalidInput(reason='%s must be an integer.' % key)
    if value < -1:
        raise exception.InvalidInput(reason='%s must be >= -1' % key)
    if value > MAX_INT:
        raise exception.InvalidInput(reason='%s must be <= %d' % (
            key, MAX_INT))
    return value


def _usage(context, project_id, types):
    resources = [VOLUMES, SNAPSHOTS, GIGABYTES]
    for type_id in types:
        for resource in PER_TYPE:
            resources.append(quota_db.type_resource(resource, type_id))
    return quota_db.usage_get_all(context, project_id, resources)


def _with_usage(limits, usage, types):
    """Cinder's ?usage=true shape: {limit, in_use, reserved} per key."""
    in_use = _wire(usage_keys(usage), types)
    return {key: {'limit': limit, 'in_use': in_use.get(key, 0),
                  'reserved': 0}
            for key, limit in limits.items()}


def usage_keys(usage):
    """Usage counters as limits-like values (0 where none is counted)."""
    values = dict.fromkeys(ABSENT + (PER_VOLUME_GIGABYTES,), 0)
    values.update({VOLUMES: 0, SNAPSHOTS: 0, GIGABYTES: 0})
    values.update(usage)
    return values


def show(context, project_id, usage=False):
    """``GET os-quota-sets/{project_id}[?usage=true]``."""
    policy.authorize(context, quota_policies.SHOW,
                     {'project_id': project_id})
    types = _types(context)
    limits = _wire(effective_limits(context, project_id), types)
    if usage:
        limits = _with_usage(limits, _usage(context, project_id, types),
                             types)
    return limits


def defaults(context, project_id):
    """``GET os-quota-sets/{project_id}/defaults``: the class's limits."""
    policy.authorize(context, quota_policies.SHOW,
                     {'project_id': project_id})
    return _wire(_class_limits(context, DEFAULT_CLASS), _types(context))


def update(context, project_id, body):
    """``PUT os-quota-sets/{project_id}``.

    :raises InvalidInput: a bad key or value, or a limit below what the
        project uses already (as Cinder refuses it).
    """
    policy.authorize(context, quota_policies.UPDATE,
                     {'project_id': project_id})
    types = _types(context)
    limits = _to_keys(body, types)
    usage = usage_keys(quota_db.usage_get_all(context, project_id,
                                              list(limits)))
    for key, limit in sorted(limits.items()):
        if key == PER_VOLUME_GIGABYTES or limit == -1:
            continue
        used = usage.get(key, 0)
        if limit < used:
            raise exception.InvalidInput(
                reason='Quota %s limit must be equal or greater than '
                       'existing resources. Current usage is %s and the '
                       'requested limit is %s.' % (
                           _wire_name(key, types), used, limit))
    quota_db.quota_set(context, project_id, limits)
    return _wire(effective_limits(context, project_id), types)


def delete(context, project_id):
    """``DELETE os-quota-sets/{project_id}``: back to the defaults."""
    policy.authorize(context, quota_policies.DELETE,
                     {'project_id': project_id})
    quota_db.quota_destroy_all(context, project_id)


def class_show(context, class_name):
    policy.authorize(context, quota_policies.CLASS_GET)
    return _wire(_class_limits(context, class_name), _types(context))


def class_update(context, class_name, body):
    policy.authorize(context, quota_policies.CLASS_UPDATE)
    if not 1 <= len(class_name) <= 255:
        raise exception.InvalidInput(
            reason='quota_class_name has a length from 1 to 255')
    types = _types(context)
    quota_db.quota_class_set(context, class_name, _to_keys(body, types))
    return _wire(_class_limits(context, class_name), types)


def absolute_limits(context, project_id=None):
    """Cinder's absolute limits of a project, with what it uses.

    :param project_id: another project (admins); the caller's when None.
    """
    project_id = project_id or context.project_id
    policy.authorize(context, limit_policies.USED_LIMITS,
                     {'project_id': project_id})
    limits = effective_limits(context, project_id)
    usage = quota_db.usage_get_all(context, project_id,
                                   [VOLUMES, SNAPSHOTS, GIGABYTES])
    return {'limits': limits, 'usage': usage_keys(usage)}


# Enforcement

def _wire_name(resource, types):
    name, type_id = quota_db.split_resource(resource)
    if type_id is None:
        return name
    return '%s_%s' % (name, types.get(type_id, type_id))


def _cinder_error(context, exc):
    """Cinder's 413 for a charge over its limit."""
    name, type_id = quota_db.split_resource(exc.resource)
    types = _types(context) if type_id else {}
    wire = _wire_name(exc.resource, types)
    if name == GIGABYTES:
        return exception.VolumeSizeExceedsAvailableQuota(
            name=wire, requested=exc.requested, quota=exc.limit,
            consumed=exc.in_use)
    if name == SNAPSHOTS:
        return exception.SnapshotLimitExceeded(allowed=exc.limit, name=wire)
    return exception.VolumeLimitExceeded(allowed=exc.limit, name=wire)


def run_charged(context, func, *args, **kwargs):
    """Run a database writer that changes usage (with a ``quota`` hook):
    creating missing counters, and turning an over-quota into Cinder's
    413."""
    try:
        return quota_db.retrying(context, func, *args, **kwargs)
    except exception.OverQuota as exc:
        raise _cinder_error(context, exc) from None


def _check_size(size, limits):
    limit = limits.get(PER_VOLUME_GIGABYTES, -1)
    if limit >= 0 and size > limit:
        raise exception.VolumeSizeExceedsLimit(size=size, limit=limit)


def charge_create(context, project_id, size, type_id):
    """The ``quota`` hook of a new volume's record.

    :raises VolumeSizeExceedsLimit: larger than per_volume_gigabytes.
    """
    limits = effective_limits(context, project_id)
    _check_size(size, limits)
    deltas = quota_db.volume_deltas(size, type_id)

    def hook(ctx, _volume):
        quota_db.change_usage(ctx, project_id, deltas, limits)
    return hook


def charge_extend(context, volume, new_size):
    """The ``quota`` hook of an extend (the volume's project pays)."""
    limits = effective_limits(context, volume.project_id)
    _check_size(new_size, limits)

    def hook(ctx, before):
        delta = new_size - before.size
        quota_db.change_usage(ctx, before.project_id, {
            GIGABYTES: delta,
            quota_db.type_resource(GIGABYTES, before.volume_type_id): delta,
        }, limits)
    return hook


def charge_retype(context, volume, new_type_id):
    """The ``quota`` hook of a retype: the volume moves from its type's
    quotas to the new type's."""
    limits = effective_limits(context, volume.project_id)

    def hook(ctx, before):
        deltas = quota_db.volume_deltas(before.size, new_type_id)
        for key, value in quota_db.volume_deltas(
                before.size, before.volume_type_id, -1).items():
            deltas[key] = deltas.get(key, 0) + value
        quota_db.change_usage(ctx, before.project_id, deltas, limits)
    return hook


def charge_snapshot(context, volume):
    """The ``quota`` hook of a new snapshot of ``volume`` (the caller's
    project pays, as in Cinder: its snapshots count and its volume's
    size)."""
    limits = effective_limits(context, context.project_id)
    deltas = quota_db.snapshot_deltas(volume.size, volume.volume_type_id)

    def hook(ctx, _snapshot):
        quota_db.change_usage(ctx, context.project_id, deltas, limits)
    return hook
