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

"""A backend's capabilities: ``GET /v3/{project_id}/capabilities/
{hostname}`` (admins), Cinder's ``capabilities`` extension.

``hostname`` is a backend (``host@backend``), one of its pools as
``scheduler-stats/get_pools`` names them (``host@backend#pool``), or a
host (its first backend).
"""

from cinder_ma.api import expose
from cinder_ma.api.views import capabilities as views
from cinder_ma.volume import pools


@expose.expose()
def show(req, project_id, hostname):
    service, caps = pools.backend_capabilities(req.context, hostname)
    return views.show(service, caps)
