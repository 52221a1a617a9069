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

"""Extensions: ``GET /v3/{project_id}/extensions[/{alias}]``, as Cinder
lists its own. cinder_ma lists Cinder's extensions it serves and its
additions to Cinder's API (:mod:`cinder_ma.api.extensions`); any
authenticated caller may read them."""

from cinder_ma.api import expose
from cinder_ma.api import extensions
from cinder_ma.api.views import extensions as views
from cinder_ma import exception


class ExtensionNotFound(exception.NotFound):
    message = 'Extension %(alias)s could not be found.'


@expose.expose()
def index(req, project_id):
    return views.index(extensions.LISTED)


@expose.expose()
def show(req, project_id, alias):
    ext = extensions.get(alias)
    if ext is None:
        raise ExtensionNotFound(alias=alias)
    return views.show(ext)
