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

"""Services (managers and their backends) and hosts as admins see and
manage them: ``os-services`` and ``os-hosts``.

Cinder's names for our roles: a backend row (``cinder-ma-volume``,
``node@backend``) is what Cinder calls the ``cinder-volume`` service, and
is shown and found under that name, so that clients filtering on
``binary=cinder-volume`` find the backends; the manager row of a node
(``cinder-ma-manager``) keeps its own name.

Disabled backends get no new volumes (the scheduler skips them). Frozen
backends (``freeze``) are disabled too, as Cinder does, and refuse changes
to their volumes (delete, extend, retype) until thawed; attachments keep
working, since instances need their data.
"""

from oslo_log import log as logging

from cinder_ma.db import services as service_db
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.policies import services as service_policies
from cinder_ma import policy

LOG = logging.getLogger(__name__)

VOLUME_BINARY = 'cinder-ma-volume'
#: The names the API shows for binaries, and accepts beside our own.
CINDER_BINARIES = {VOLUME_BINARY: 'cinder-volume'}
_OUR_BINARIES = {shown: ours for ours, shown in CINDER_BINARIES.items()}

#: disabled_reason of a frozen backend (Cinder's).
FROZEN_REASON = 'frozen'


def shown_binary(binary):
    return CINDER_BINARIES.get(binary, binary)


def _our_binary(binary):
    return _OUR_BINARIES.get(binary, binary)


def _summary(service):
    return {
        'binary': shown_binary(service.binary),
        'host': service.host,
        'zone': service.availability_zone,
        'status': 'disabled' if service.disabled else 'enabled',
        'state': 'up' if service_db.service_is_up(service) else 'down',
        'updated_at': service.heartbeat_at or service.updated_at,
        'disabled_reason': service.disabled_reason,
        'frozen': bool(service.frozen),
        'is_backend': service.binary == VOLUME_BINARY,
        'uuid': service.uuid,
    }


def list_services(context, host=None, binary=None):
    """Services, filtered as Cinder does: ``host`` ``node`` lists what
    runs on the node (``node``, ``node@backend``), ``binary`` exactly
    (Cinder's or our name)."""
    policy.authorize(context, service_policies.GET_ALL)
    filters = {}
    if host:
        filters['host'] = host
    if binary:
        filters['binary'] = _our_binary(binary)
    return [_summary(service)
            for service in service_db.service_get_all(context, filters)]


def set_disabled(context, host, binary, disabled, reason=None):
    """Enable or disable the service ``binary`` of ``host`` (exact
    names); a disabled backend gets no new volumes.

    :raises ServiceNotFound: no such service.
    """
    policy.authorize(context, service_policies.UPDATE)
    service = service_db.service_get_by_host_and_binary(
        context, host, _our_binary(binary))
    if service is None:
        raise exception.ServiceNotFound(service_id='%s %s' % (binary,
                                                              host))
    values = {'disabled': disabled}
    if not disabled or reason is not None:
        values['disabled_reason'] = reason
    service_db.service_update(context, service.id, values)
    LOG.info('%s %s %s%s', 'Disabled' if disabled else 'Enabled', binary,
             host, ' (%s)' % reason if reason else '')


def _backends(context, host):
    backends = service_db.service_get_all(
        context, {'host': host, 'binary': VOLUME_BINARY})
    if not backends:
        raise exception.InvalidInput(
            reason='No service found with host=%s' % host)
    return backends


def freeze(context, host):
    """Freeze the backends of ``host`` (``node`` or ``node@backend``).

    :raises InvalidInput: no backend runs there (Cinder's 400).
    """
    policy.authorize(context, service_policies.FREEZE)
    for backend in _backends(context, host):
        service_db.service_update(context, backend.id, {
            'frozen': True, 'disabled': True,
            'disabled_reason': FROZEN_REASON})
        LOG.info('Froze backend %s', backend.host)


def thaw(context, host):
    """Thaw the backends of ``host``: enabled again, changes allowed."""
    policy.authorize(context, service_policies.THAW)
    for backend in _backends(context, host):
        service_db.service_update(context, backend.id, {
            'frozen': False, 'disabled': False, 'disabled_reason': None})
        LOG.info('Thawed backend %s', backend.host)


def assert_not_frozen(context, volume):
    """Refuse a change to a volume whose backend is frozen.

    :raises BackendFrozen: a 400 with Cinder's message.
    """
    if volume.host and service_db.backend_is_frozen(context.elevated(),
                                                    volume.host):
        raise exception.BackendFrozen()


def list_hosts(context, zone=None):
    """Every service, as ``os-hosts`` lists them."""
    policy.authorize(context, service_policies.HOSTS)
    filters = {'availability_zone': zone} if zone else {}
    return [_summary(service)
            for service in service_db.service_get_all(context, filters)]


def host_usage(context, host):
    """Volume usage of an enabled backend host: the host's total and the
    totals of each project with volumes there (Cinder's figures): each a
    (volume count, volume GiB, snapshot count, snapshot GiB).

    :raises HostNotFound: no enabled backend runs on ``host``.
    """
    policy.authorize(context, service_policies.HOSTS)
    backends = [service for service in service_db.service_get_all(
        context, {'host': host, 'binary': VOLUME_BINARY})
        if not service.disabled]
    if not backends:
        raise exception.HostNotFound(host=host)
    total, projects = volume_db.volume_usage_on_host(context, host)
    total += snapshot_db.snapshot_usage_on_host(context, host)
    return total, [(project_id,
                    volume_db.volume_usage_of_project(context, project_id) +
                    snapshot_db.snapshot_usage_of_project(context,
                                                          project_id))
                   for project_id in projects]
