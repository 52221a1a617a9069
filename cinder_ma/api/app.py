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

"""The WSGI application of the API.

From the outside in::

    RequestId       X-OpenStack-Request-Id on every response (oslo.middleware)
    /healthcheck    oslo.middleware Healthcheck, without authentication
    LogContext      an anonymous thread-local context with the request id
    FaultWrapper    whatever escapes below becomes a 500 fault, no traceback;
                    errors answered below leave in Cinder's fault shape
    sizelimit       bodies over [oslo_middleware] max_request_body_size are
                    a 413, chunked ones too (oslo.middleware)
    authentication  keystone (auth_token) or noauth; version documents pass
    pecan           RootController.serve -> dispatch(): microversion, route,
                    context, controller (see cinder_ma.api.routes)

:func:`dispatch` does, for each request: parse the microversion (under
/v3), match the route table, build the request context (except for the
public version documents), check that the URL's project is the caller's,
and call the controller, which answers a response (a fault on error).
Responses under /v3 carry ``OpenStack-API-Version`` and ``Vary``.

The heap is frozen by the commands that serve the API
(:func:`cinder_ma.cmd.freeze_heap`), not here.
"""

from oslo_config import cfg
from oslo_middleware import healthcheck
from oslo_middleware import request_id
from oslo_middleware import sizelimit
import pecan
import pecan.core
import webob
import webob.exc

from cinder_ma.api import actions
from cinder_ma.api import auth
from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api import params
from cinder_ma.api import routes
from cinder_ma.api import validation
from cinder_ma.conf import healthcheck as healthcheck_conf

CONF = cfg.CONF

def _check_project(req, path_params):
    project_id = path_params.get('project_id')
    if project_id is not None and project_id != req.context.project_id:
        # Cinder's answer to a URL naming another project than the
        # caller's (admins included).
        raise webob.exc.HTTPBadRequest(explanation='Malformed request url')


def dispatch(req):
    """Serve one request; always returns a webob Response."""
    path = req.path_info
    headers = {}
    try:
        if routes.is_versioned(path):
            req.api_version = mv.from_headers(req.headers)
            headers = mv.response_headers(req.api_version)
        else:
            req.api_version = mv.APIVersionRequest(mv.MIN_VERSION)
        handler, path_params = routes.match(req.method, path)
        params.check_url_text(req, path_params)
        if routes.is_public(path):
            req.context = None
        else:
            req.context = auth.request_context(req)
            if req.context is None:
                raise webob.exc.HTTPUnauthorized(
                    explanation='Authentication required')
            _check_project(req, path_params)
        response = handler(req, **path_params)
    except Exception as exc:
        response = expose.exception_response(exc)
    response.headers.update(headers)
    return response


class RootController:
    """The root of the application: every request goes to :meth:`serve`."""

    @pecan.expose(content_type=expose.JSON)
    def serve(self, req):
        return dispatch(req)


class _Pecan(pecan.core.PecanBase):
    """Pecan, with the API's own route table instead of object dispatch.

    Pecan's object dispatch and its controller invocation inspect the
    controller's signature and render its return value on every request;
    here :func:`dispatch` matches :mod:`cinder_ma.api.routes` and answers a
    complete webob Response (JSON, with the status each controller chose:
    Cinder answers some requests 200 with no body, which Pecan would turn
    into a 204). Requests are plain webob requests, not Pecan's, whose
    every attribute access is wrapped to turn undecodable input into a 400;
    :func:`cinder_ma.api.expose.exception_response` does that instead.
    """

    def find_controller(self, state):
        state.controller = self.root.serve
        return state.controller, [], {}

    def invoke_controller(self, controller, args, kwargs, state):
        state.response = controller(state.request)

    def _handle_empty_response_body(self, state):
        pass


def _check_routes():
    for handler in routes.handlers():
        validation.check_ranges(handler)
        for action in actions.action_functions(handler):
            validation.check_ranges(action)


def with_healthcheck(app, conf):
    """Serve oslo.middleware's Healthcheck at ``/healthcheck`` (no
    authentication: load balancers call it), ``app`` everywhere else.

    Its ``[healthcheck]`` options apply; by default it answers 503 while
    ``$state_path/healthcheck_disable`` exists.
    """
    check = healthcheck.Healthcheck(webob.exc.HTTPNotFound(), conf)

    def serve(environ, start_response):
        if environ.get('PATH_INFO') == healthcheck_conf.PATH:
            return check(environ, start_response)
        return app(environ, start_response)

    return serve


def setup_app(conf=None):
    """The WSGI application, middleware included.

    :param conf: the ConfigOpts to read (default: the global CONF),
        already parsed.
    """
    conf = conf or CONF
    _check_routes()
    app = _Pecan(RootController(), force_canonical=False,
                 guess_content_type_from_ext=False,
                 request_cls=webob.Request, response_cls=webob.Response)
    app = auth.wrap(app, conf)
    app = sizelimit.RequestBodySizeLimiter(app, conf)
    app = expose.FaultWrapper(app)
    app = auth.LogContext(app)
    app = with_healthcheck(app, conf)
    app = request_id.RequestId(app)
    return app
