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

"""Pool views: Cinder's ``scheduler-stats/get_pools``
(``cinder/api/views/scheduler_stats.py``)."""

from cinder_ma.api import views


def pools(pool_list, detail):
    """:param pool_list: [{'name', 'capabilities'}] from the service."""
    if not detail:
        return {'pools': [{'name': pool['name']} for pool in pool_list]}
    shown = []
    for pool in pool_list:
        caps = dict(pool['capabilities'])
        for key in ('timestamp', 'updated'):
            if key in caps:
                caps[key] = views.isotime(caps[key])
        shown.append({'name': pool['name'], 'capabilities': caps})
    return {'pools': shown}
