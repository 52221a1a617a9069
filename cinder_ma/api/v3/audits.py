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

"""The attachment audit's results: ``GET /v3/{project_id}/cinder-ma-audits``
(administrators), the ``cinder-ma-audit`` extension.

The runs of ``cinder-ma-manage attachment audit``, newest first
(``?limit=`` of them; the newest twenty are kept). Not a Cinder resource:
its path carries the extension's prefix and no Cinder shape changes.
"""

import webob.exc

from cinder_ma.api import expose
from cinder_ma.api import params
from cinder_ma.api.views import audits as views
from cinder_ma import exception
from cinder_ma.volume import audits as volume_audits

_PARAMS = {'limit'}


@expose.expose()
def index(req, project_id):
    unknown = sorted(set(req.GET) - _PARAMS)
    if unknown:
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid filters %s are found in query options.'
                        % exception.cut(','.join(unknown)))
    return views.index(volume_audits.list_audits(
        req.context, limit=params.limit(req.GET)))
