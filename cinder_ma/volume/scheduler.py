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

"""Choose a backend (host@backend#pool) for a new volume.

Backends are the ``cinder-ma-volume`` rows of the services table; their
managers report capabilities and pool capacity there. A pool qualifies
when its backend is up, enabled and not frozen, is in the requested
availability zone, supports multiattach for a shareable volume, meets
every extra spec of the volume type that names a capability (Cinder's
CapabilitiesFilter: the backend's report with the pool's own keys over
it, see :mod:`cinder_ma.volume.extra_specs_ops`), and has room for the
volume; the pool with the most free space wins.

When none qualifies, the reason names backend hosts: it is logged, and
shown to administrators only; other callers learn that no backend could
hold the volume (as Cinder answers them), not where the backends are.
"""

import dataclasses

from oslo_log import log as logging
from oslo_serialization import jsonutils

from cinder_ma.db import services as service_db
from cinder_ma import exception
from cinder_ma import policy
from cinder_ma.volume import extra_specs_ops

LOG = logging.getLogger(__name__)

VOLUME_BINARY = 'cinder-ma-volume'
MANAGER_BINARY = 'cinder-ma-manager'

#: What a caller who is not an administrator learns when no backend fits.
PUBLIC_NO_BACKEND = ('No backend can hold the volume (its size, type or '
                     'availability zone).')

@dataclasses.dataclass(frozen=True)
class Placement:
    host: str
    service_uuid: str
    shared_targets: bool
    availability_zone: str


def capabilities_of(service):
    """The decoded capability report of a service row ({} if none)."""
    if not service.capabilities:
        return {}
    try:
        return jsonutils.loads(service.capabilities)
    except ValueError:
        LOG.warning('Service %s@%s reported unreadable capabilities',
                    service.binary, service.host)
        return {}


def _pool_capabilities(caps, pool):
    """What a pool reports: its backend's capabilities with the pool's
    own keys over them (as Cinder's host state of a pool)."""
    merged = {key: value for key, value in caps.items() if key != 'pools'}
    merged.update(pool or {})
    return merged


def capability_mismatch(caps, extra_specs, multiattach, pool=None):
    """Why a backend (its ``pool``, when given) cannot hold the volume,
    or None when it can."""
    if multiattach and not caps.get('multiattach'):
        return 'does not support multiattach'
    unmet = extra_specs_ops.unmet(_pool_capabilities(caps, pool),
                                  extra_specs or {})
    if unmet is None:
        return None
    key, requirement, value = unmet
    if value is None:
        return 'does not report %s (the type asks for %s)' % (
            key, requirement)
    return 'reports %s=%s, not %s' % (key, value, requirement)


def _pool_free(pool):
    total = float(pool.get('total_capacity_gb') or 0)
    free = float(pool.get('free_capacity_gb') or 0)
    reserved = total * float(pool.get('reserved_percentage') or 0) / 100
    return free - reserved


def select_backend(context, size, extra_specs=None, multiattach=False,
                   availability_zone=None):
    """Pick a pool for a volume of ``size`` GiB.

    :raises NoValidBackend: with a reason naming what was missing.
    """
    extra_specs = extra_specs or {}
    # The data layer does not scope the services table by caller: the
    # caller's context reads it (in the caller's transaction, if any).
    services = service_db.service_get_all_for_scheduling(context,
                                                         VOLUME_BINARY)
    best = None
    reasons = []
    for service in services:
        if service.disabled or service.frozen:
            reasons.append('%s is %s' % (
                service.host, 'frozen' if service.frozen else 'disabled'))
            continue
        if not service_db.service_is_up(service):
            reasons.append('%s is down' % service.host)
            continue
        if availability_zone and (
                service.availability_zone != availability_zone):
            reasons.append('%s is not in availability zone %s' % (
                service.host, availability_zone))
            continue
        caps = capabilities_of(service)
        pools, why = [], None
        for candidate_pool in caps.get('pools', ()):
            why = capability_mismatch(caps, extra_specs, multiattach,
                                      candidate_pool)
            if why is None:
                pools.append(candidate_pool)
        if not pools:
            if why is None:
                why = capability_mismatch(caps, extra_specs, multiattach)
            reasons.append('%s %s' % (service.host,
                                      why or 'reports no pool'))
            continue
        pools = [p for p in pools if _pool_free(p) >= size]
        if not pools:
            reasons.append('%s has no pool with %s GiB free' % (
                service.host, size))
            continue
        pool = max(pools, key=_pool_free)
        candidate = (_pool_free(pool), service, pool, caps)
        if best is None or candidate[0] > best[0]:
            best = candidate
    if best is None:
        if not services:
            reason = 'No storage backend is running.'
        else:
            reason = 'No backend can hold the volume: %s.' % '; '.join(
                reasons)
        LOG.info('Scheduling a %s GiB volume failed: %s', size, reason)
        full_reason = reason
        if services and not policy.check_persona(context,
                                                  'context_is_admin'):
            reason = PUBLIC_NO_BACKEND
        error = exception.NoValidBackend(reason=reason)
        # What administrators may read (the volume's error_reason).
        error.full_reason = full_reason
        raise error
    _free, service, pool, caps = best
    host = '%s#%s' % (service.host, pool.get('pool_name') or
                      caps.get('volume_backend_name'))
    return Placement(host=host, service_uuid=service.uuid,
                     shared_targets=bool(caps.get('shared_targets')),
                     availability_zone=service.availability_zone)


def node_of(host):
    """The manager node of a volume host ``node@backend#pool``."""
    return host.split('@', 1)[0].split('#', 1)[0]


def manager_is_up(context, host):
    """Whether the manager of the node of ``host`` (``node``,
    ``node@backend#pool``) heartbeats (``[manager] service_down_time``)."""
    service = service_db.service_get_by_host_and_binary(
        context, node_of(host), MANAGER_BINARY)
    return service is not None and service_db.service_is_up(service)


def hypervisor_capabilities(context, host):
    """The hypervisor capabilities reported by the manager of node
    ``host`` (``{'driver': ..., 'supports_multiattach': ..., ...}``), or
    None when it runs no hypervisor driver or never registered."""
    service = service_db.service_get_by_host_and_binary(
        context, node_of(host), MANAGER_BINARY)
    if service is None:
        return None
    return capabilities_of(service).get('hypervisor') or None


def backend_capabilities(context, host):
    """The capabilities reported by the backend of a volume host
    (``node@backend#pool``); {} when it never reported."""
    backend_host = host.split('#', 1)[0] if host else None
    if not backend_host:
        return {}
    service = service_db.service_get_by_host_and_binary(
        context, backend_host, VOLUME_BINARY)
    return capabilities_of(service) if service else {}


def pool_free_space(context, host):
    """GiB free (less the reserved part) in the pool of a volume host
    ``node@backend#pool``, as its backend last reported; None when it is
    not known (no report, or 'infinite'/'unknown' capacity)."""
    caps = backend_capabilities(context, host)
    pool_name = host.split('#', 1)[1] if host and '#' in host else None
    for pool in caps.get('pools', ()):
        if pool.get('pool_name') == pool_name or pool_name is None:
            try:
                return _pool_free(pool)
            except (TypeError, ValueError):
                return None
    return None
