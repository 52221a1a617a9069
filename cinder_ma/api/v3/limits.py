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

"""Limits: ``GET /v3/{project_id}/limits``.

The absolute limits of the caller's project from its quotas, with what
it uses; admins name another project with ``?project_id=`` from 3.39
(LIMITS_ADMIN_FILTER), as in Cinder.
"""

from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api.views import limits as views
from cinder_ma.volume import quotas


@expose.expose()
def index(req, project_id):
    target = None
    if req.api_version.matches(mv.LIMITS_ADMIN_FILTER):
        target = req.GET.get('project_id') or None
    return views.limits(quotas.absolute_limits(req.context, target))
