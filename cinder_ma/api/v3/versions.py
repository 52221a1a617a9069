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

"""Version documents: ``GET /`` and ``GET /v3/``.

Served without authentication: clients (keystoneauth) discover versions
before they hold a token. As in Cinder, ``GET /`` answers 300 Multiple
Choices and ``GET /v3/`` 200, both with ``{"versions": [...]}`` (Cinder's
api-ref: "List All Api Versions", "Show API v3 details").
"""

from cinder_ma.api import expose
from cinder_ma.api.views import versions as views


@expose.expose(status=300)
def list_versions(req):
    """GET /: every API version (only v3 here)."""
    return views.versions(req)


@expose.expose()
def show_v3(req):
    """GET /v3/: the v3 version with its microversion range."""
    return views.versions(req)
