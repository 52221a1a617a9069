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
    keep_empty_200  Cinder's empty 200s stay 200s (see below)
    pecan           RootController -> dispatch(): microversion, route,
                    context, controller (see cinder_ma.api.routes)

:func:`dispatch` does, for each request: parse the microversion (under
/v3), match the route table, build the request context (except for the
public version documents), check that the URL's project is the caller's,
and call the controller, which answers a response (a fault on error).
Responses under /v3 carry ``OpenStack-API-Version`` and ``Vary``.

Pecan is used through what it documents: the application without context
locals (controllers take ``req, resp``), a root controller
(:class:`RootController`) whose controllers hand every request to
:func:`dispatch` and return its complete webob Response (Pecan passes a
returned Response through), and a hook (:class:`DispatchHook`); and one
public method it does not document, ``invoke_controller``, which
:class:`ResponsePecan` overrides with a plain call. Three things Pecan
does on its own are undone there, each with a test in
tests/unit/api/test_app.py that fails when Pecan changes (as does the
override's):

* it negotiates the content type of the controller against ``Accept``
  (an ``Accept`` it cannot match is a 406); the API answers JSON whatever
  ``Accept`` says, so the hook's ``on_route`` sets the content type of
  the request (``request.pecan['content_type']``, as WSME and Ironic do);
* before calling the controller it reads the query string and a JSON body
  for controller arguments, failing on undecodable or deeply nested input
  that :func:`dispatch` answers with a 400 of its own; the hook's
  ``on_error`` then has :func:`dispatch` answer the request;
* it turns a 200 without body into a 204; Cinder answers some requests
  200 with no body (os-set_bootable...), so :func:`keep_empty_200`, a
  WSGI wrapper around Pecan, gives those their 200 back.

The heap is frozen by the commands that serve the API
(:func:`cinder_ma.cmd.freeze_heap`), not here.
"""

from oslo_config import cfg
from oslo_middleware import healthcheck
from oslo_middleware import request_id
from oslo_middleware import sizelimit
import pecan
from pecan import core as pecan_core
from pecan import hooks
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

# Set in the environ of a request handed to :func:`dispatch`.
DISPATCHED = 'cinder_ma.api.dispatched'
# The status and headers of an empty 200 (:func:`keep_empty_200`).
EMPTY_200 = 'cinder_ma.api.empty_200'


def _check_project(req, path_params):
    project_id = path_params.get('project_id')
    if project_id is not None and project_id != req.context.project_id:
        # Cinder's answer to a URL naming another project than the
        # caller's (admins included), saying what does not match.
        hint = ('send a token of that project, or use the endpoint of '
                'project %s' % req.context.project_id)
        if CONF.auth_strategy == 'noauth':
            hint = ('with noauth the token "user:project" (or the '
                    'client\'s project id, such as cinderclient\'s '
                    '--os-project-id) names the project, and the endpoint '
                    'must end with the same one')
        raise webob.exc.HTTPBadRequest(
            explanation='Malformed request url: the URL names project %s '
                        'but the token is scoped to project %s; %s' % (
                            project_id, req.context.project_id, hint))


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


def _answer(req):
    """:func:`dispatch`, noting in the environ that it answered ``req``
    (and how, for an empty 200)."""
    req.environ[DISPATCHED] = True
    response = dispatch(req)
    if response.status_int == 200 and not response.body:
        req.environ[EMPTY_200] = (response.status, list(response.headerlist))
    return response


class RootController:
    """The root of the application: every request goes to :func:`_answer`,
    and the route table (:mod:`cinder_ma.api.routes`) does the rest.

    ``_route``, Pecan's documented hook for custom routing, would do alone;
    but Pecan inspects its signature on every request, which costs more
    than the rest of its routing. So the two prefixes of every route, ``/``
    and ``/v3`` (an explicit path segment), have controllers of their own,
    which Pecan finds before it looks for ``_route``; ``_route`` takes the
    other paths (404s), so that Pecan never walks the attributes of this
    object.
    """

    @pecan.expose(content_type=expose.JSON)
    def index(self, req, resp):
        return _answer(req)

    @pecan.expose(content_type=expose.JSON, route='v3')
    def version_3(self, req, resp, *remainder):
        return _answer(req)

    @pecan.expose()
    def _route(self, args, request):
        return self.other, []

    @pecan.expose(content_type=expose.JSON)
    def other(self, req, resp):
        return _answer(req)


class DispatchHook(hooks.PecanHook):
    """Keep Pecan's content negotiation and argument parsing out of the
    way of :func:`dispatch` (see the module's docstring)."""

    def on_route(self, state):
        # Pecan then skips its negotiation against Accept.
        state.request.pecan['content_type'] = expose.JSON

    def on_error(self, state, e):
        if state.request.environ.get(DISPATCHED):
            # Raised through dispatch(), which answers every Exception
            # itself: FaultWrapper makes it a 500.
            return None
        # Pecan failed before calling the controller, reading the query
        # string or the JSON body (undecodable, nested too deep):
        # dispatch() answers such input with a fault of its own.
        return _answer(state.request)


def keep_empty_200(app):
    """Wrap the Pecan ``app`` so that an empty 200 of the controller is
    sent as it was answered: Pecan turns every 200 without body into a
    204 (with no Content-Type), Cinder answers some requests 200 with no
    body, and clients check the status."""

    def serve(environ, start_response):
        def start(status, headers, exc_info=None):
            answered = environ.get(EMPTY_200)
            if answered is not None and status.startswith('204'):
                status, headers = answered
            return start_response(status, headers, exc_info)

        return app(environ, start)

    return serve


class ResponsePecan(pecan_core.ExplicitPecan):
    """The Pecan application without context locals (what ``pecan.Pecan``
    builds when given ``use_context_locals=False``) for controllers that
    answer a complete webob Response, as every controller of
    :class:`RootController` does.

    Pecan's own ``invoke_controller`` inspects the controller's signature
    at every request (``inspect.getfullargspec`` and a new named-tuple
    class, about a twentieth of an attach cycle's CPU) to leave out the
    keyword arguments it read from the query string and the body that the
    controller does not take, then renders what the controller returned
    unless it is a Response. Here the controller is called with the
    positional arguments Pecan found for it (the request, the response and
    the rest of the path) and its Response is the answer: :func:`dispatch`
    reads the query string and the body itself.
    """

    def invoke_controller(self, controller, args, kwargs, state):
        state.response = controller(*args)


def pecan_app():
    """The Pecan application serving :class:`RootController`, without
    middleware."""
    return keep_empty_200(ResponsePecan(
        RootController(), hooks=[DispatchHook()], use_context_locals=False,
        force_canonical=False, guess_content_type_from_ext=False,
        request_cls=webob.Request, response_cls=webob.Response))


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
    app = pecan_app()
    app = auth.wrap(app, conf)
    app = sizelimit.RequestBodySizeLimiter(app, conf)
    app = expose.FaultWrapper(app)
    app = auth.LogContext(app)
    app = with_healthcheck(app, conf)
    app = request_id.RequestId(app)
    return app
