"""The WSGI application of the API.

From the outside in::

    RequestId       X-OpenStack-Request-Id on every response (oslo.middleware)
    FaultWrapper    whatever escapes below becomes a 500 fault, no traceback
    authentication  keystone (auth_token) or noauth; version documents pass
    pecan           RootController -> dispatch(): microversion, route,
                    context, controller (see cinder_ma.api.routes)

:func:`dispatch` does, for each request: parse the microversion (under
/v3), match the route table, build the request context (except for the
public version documents), check that the URL's project is the caller's,
and call the controller, which answers a response (a fault on error).
Responses under /v3 carry ``OpenStack-API-Version`` and ``Vary``.
"""

from oslo_config import cfg
from oslo_middleware import request_id
import pecan
import webob.exc

from cinder_ma.api import actions
from cinder_ma.api import auth
from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api import routes
from cinder_ma.api import validation

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
    """Hands every request to :func:`dispatch`."""

    @pecan.expose()
    def _route(self, args, request=None):
        # JSON whatever the Accept header says: no content negotiation
        # (and no bare 406 from the framework).
        pecan.request.pecan['content_type'] = expose.JSON
        return self.serve, []

    @pecan.expose(content_type=expose.JSON)
    def serve(self, *args, **kwargs):
        return dispatch(pecan.request)


class _Pecan(pecan.Pecan):
    """Pecan, keeping the status each controller chose.

    Pecan turns every 200 without a body into a 204; Cinder answers some
    requests 200 with no body (``os-set_bootable``, ``DELETE
    .../metadata/{key}``) and clients may check for it. Controllers here
    always set their status (:func:`cinder_ma.api.expose.expose`).
    """

    def _handle_empty_response_body(self, state):
        pass


def _check_routes():
    for handler in routes.handlers():
        validation.check_ranges(handler)
        for action in actions.action_functions(handler):
            validation.check_ranges(action)


def setup_app(conf=None):
    """The WSGI application, middleware included.

    :param conf: the ConfigOpts to read (default: the global CONF),
        already parsed.
    """
    conf = conf or CONF
    _check_routes()
    app = _Pecan(RootController(), force_canonical=False,
                 guess_content_type_from_ext=False)
    app = auth.wrap(app, conf)
    app = expose.FaultWrapper(app)
    return request_id.RequestId(app)
