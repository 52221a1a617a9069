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

"""Volume summary: ``GET /v3/{project_id}/volumes/summary`` (from 3.12).

How many volumes the caller has and their total size (with
``all_tenants``, an admin's count covers every project), with their
metadata from 3.36. Filters are those of volume lists.
"""

from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api import params
from cinder_ma.api.views import volume_summary as views
from cinder_ma.volume import api as volume_api

# Filters of the summary, as Cinder accepts for volume lists.
_FILTERS = ('name', 'status', 'bootable', 'availability_zone',
            'multiattach')


@expose.expose(min_version=mv.VOLUME_SUMMARY)
def summary(req, project_id):
    query = req.GET
    filters = {key: query[key] for key in _FILTERS if key in query}
    for key in ('bootable', 'multiattach'):
        if key in filters:
            filters[key] = params.boolean(query, key)
    count, size, metadata = volume_api.summarize_volumes(
        req.context, filters=filters,
        all_tenants=params.boolean(query, 'all_tenants'))
    return views.summary(req, count, size, metadata)
