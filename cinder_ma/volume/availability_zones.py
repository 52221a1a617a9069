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

"""Availability zones: those of the storage backends.

A zone is available when one of its backends is enabled and up (Cinder
looks only at enabled; a zone whose backends are all down cannot take a
volume either).
"""

from cinder_ma.db import services as service_db
from cinder_ma.policies import availability_zones as az_policies
from cinder_ma import policy
from cinder_ma.volume import scheduler


def list_zones(context):
    """[(zone name, available)], sorted by name."""
    policy.authorize(context, az_policies.GET_ALL)
    zones = {}
    for service in service_db.service_get_all(
            context.elevated(), {'binary': scheduler.VOLUME_BINARY}):
        name = service.availability_zone
        if not name:
            continue
        usable = not service.disabled and service_db.service_is_up(service)
        zones[name] = zones.get(name, False) or usable
    return sorted(zones.items())
