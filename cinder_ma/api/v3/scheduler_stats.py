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

"""Pools: ``GET /v3/{project_id}/scheduler-stats/get_pools`` (admins).

``?detail=true`` shows each pool's capabilities; ``volume_backend_name``
filters by backend, as Cinder's filter of the same name.
"""

from cinder_ma.api import expose
from cinder_ma.api import params
from cinder_ma.api.views import scheduler_stats as views
from cinder_ma.volume import pools


@expose.expose()
def get_pools(req, project_id):
    detail = params.boolean(req.GET, 'detail')
    found = pools.list_pools(
        req.context,
        backend_name=req.GET.get('volume_backend_name') or None)
    return views.pools(found, detail)
