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

"""Resource actions: ``POST .../{id}/action`` with ``{"<name>": {...}}``.

Cinder serves several operations of a resource at one URL and picks the
operation by the single key of the body (``cinder/api/openstack/wsgi.py``,
``action_peek``). :func:`dispatcher` does the same: it reads the key and
hands the request to that action's function, itself an exposed controller
function (with its own success status, microversion range and schemas),
so each action reads like any other handler. As in Cinder:

* a body that is not one JSON object with exactly one key is a 400
  ``Malformed request body``;
* an unknown key is a 400 ``There is no such action: <key>``;
* an action outside its microversion range is a 404;
* an action without a schema ignores the value of its key
  (``{"os-reserve": null}`` and ``{"os-reserve": {}}`` alike).

The route table names the dispatcher; ``dispatcher.actions`` lists the
action functions so that the app checks their schema ranges too.
"""

import webob.exc

from cinder_ma.api import validation
from cinder_ma import exception


def dispatcher(actions, name):
    """A controller function serving ``actions`` ({key: function}).

    :param name: the function's name, for logs and checks.
    """
    actions = dict(actions)

    def dispatch(req, **kwargs):
        body = validation.parse_body(req)
        if not isinstance(body, dict) or len(body) != 1:
            raise webob.exc.HTTPBadRequest(
                explanation='Malformed request body')
        (key,) = body
        func = actions.get(key)
        if func is None:
            raise webob.exc.HTTPBadRequest(
                explanation='There is no such action: %s'
                % exception.cut(key))
        return func(req, **kwargs)

    dispatch.__name__ = dispatch.__qualname__ = name
    dispatch.actions = actions
    return dispatch


def action_functions(handler):
    """The action functions behind a route handler (none for most)."""
    return getattr(handler, 'actions', {}).values()

