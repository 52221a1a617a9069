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

"""Storage pools as the scheduler sees them (``scheduler-stats``).

Each backend (a ``cinder-ma-volume`` row of the services table) reports
its capabilities with a list of pools; a pool is shown as
``host@backend#pool`` with the backend's capabilities (``multiattach``
among them) and its own (capacity), as Cinder's scheduler reports a
pool. A backend's own capabilities (``capabilities/{hostname}``) are its
report without the pools.
"""

from cinder_ma.db import services as service_db
from cinder_ma import exception
from cinder_ma.policies import scheduler_stats as stats_policies
from cinder_ma import policy
from cinder_ma.volume import scheduler


def list_pools(context, backend_name=None):
    """[{'name', 'capabilities'}] of the pools of every backend that
    reported, optionally only those of ``volume_backend_name``."""
    policy.authorize(context, stats_policies.GET_POOLS)
    found = []
    for service in service_db.service_get_all(
            context, {'binary': scheduler.VOLUME_BINARY}):
        caps = scheduler.capabilities_of(service)
        if backend_name and caps.get('volume_backend_name') != backend_name:
            continue
        backend = {key: value for key, value in caps.items()
                   if key != 'pools'}
        for pool in caps.get('pools', ()):
            pool_caps = dict(backend)
            pool_caps.update(pool)
            pool_caps['timestamp'] = service.heartbeat_at
            name = pool.get('pool_name') or caps.get('volume_backend_name')
            found.append({'name': '%s#%s' % (service.host, name),
                          'capabilities': pool_caps})
    return sorted(found, key=lambda pool: pool['name'])


def backend_capabilities(context, hostname):
    """The service row and capability report (without pools) of the
    backend ``hostname``: ``host@backend``, a pool of it
    (``host@backend#pool``, as get_pools names them) or ``host`` (its
    first backend), as Cinder finds a volume service by host.

    :raises ServiceNotFound: no backend of that name.
    """
    policy.authorize(context, stats_policies.CAPABILITIES)
    host = hostname.partition('#')[0]
    services = sorted(
        (service for service in service_db.service_get_all(
            context, {'binary': scheduler.VOLUME_BINARY})
         if service.host == host or service.host.startswith(host + '@')),
        key=lambda service: service.host)
    if not host or not services:
        raise exception.ServiceNotFound(service_id=hostname)
    service = services[0]
    caps = {key: value
            for key, value in scheduler.capabilities_of(service).items()
            if key != 'pools'}
    return service, caps
