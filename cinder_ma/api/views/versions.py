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

"""Version documents, in the shape of Cinder's
``cinder/api/views/versions.py`` (``GET /`` and ``GET /v3/``)."""

from cinder_ma.api import microversions as mv
from cinder_ma.api.views import links

_DOCS_LINK = {'rel': 'describedby', 'type': 'text/html',
              'href': 'https://docs.openstack.org/'}


def v3(req):
    return {
        'id': 'v3.0',
        'status': 'CURRENT',
        'version': mv.MAX_VERSION,
        'min_version': mv.MIN_VERSION,
        'updated': mv.UPDATED,
        'links': [dict(_DOCS_LINK),
                  {'rel': 'self',
                   'href': '%s/v3/' % links.root_url(req)}],
        'media-types': [{
            'base': 'application/json',
            'type': 'application/vnd.openstack.volume+json;version=3',
        }],
    }


def versions(req):
    return {'versions': [v3(req)]}
