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

"""User messages: ``/v3/{project_id}/messages`` (from 3.3), as Cinder's
``cinder/api/v3/messages.py``.

List, show and delete (204). From 3.5 (MESSAGES_PAGINATION) a list takes
``limit``, ``marker``, ``offset``, ``sort`` (or ``sort_key`` and
``sort_dir``) and Cinder's filters; from 3.31 (RESOURCE_FILTER) another
filter is a 400 (below, ignored). Messages are never created through the
API: the service records them (:func:`cinder_ma.db.messages.record`).
"""

import webob.exc

from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api import params
from cinder_ma.api.views import messages as views
from cinder_ma import exception
from cinder_ma.volume import messages as message_api

_LIST_PARAMS = params.PAGING_KEYS | {'offset'}


def _filters(req):
    query = req.GET
    unknown = sorted(set(query) - set(message_api.FILTERS) - _LIST_PARAMS)
    if unknown and req.api_version.matches(mv.RESOURCE_FILTER):
        raise webob.exc.HTTPBadRequest(
            explanation='Invalid filters %s are found in query options.'
                        % exception.cut(','.join(unknown)))
    return {key: query[key] for key in message_api.FILTERS if key in query}


@expose.expose(min_version=mv.MESSAGES)
def index(req, project_id):
    """GET /v3/{project_id}/messages."""
    if not req.api_version.matches(mv.MESSAGES_PAGINATION):
        return views.index(req, message_api.list_messages(req.context))
    query = req.GET
    limit = params.limit(query)
    sort_keys, sort_dirs = params.sort(query)
    messages = message_api.list_messages(
        req.context, filters=_filters(req), marker=params.marker(query),
        limit=limit, offset=params.offset(query), sort_keys=sort_keys,
        sort_dirs=sort_dirs)
    return views.index(req, messages, limit)


@expose.expose(min_version=mv.MESSAGES)
def show(req, project_id, message_id):
    """GET /v3/{project_id}/messages/{message_id}."""
    return views.show(req, message_api.get_message(req.context, message_id))


@expose.expose(status=204, min_version=mv.MESSAGES)
def delete(req, project_id, message_id):
    """DELETE /v3/{project_id}/messages/{message_id}: 204."""
    message_api.delete_message(req.context, message_id)
