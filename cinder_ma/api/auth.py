"""Who is calling: keystone tokens or noauth, and the request context.

``[DEFAULT] auth_strategy``:

* ``keystone``: keystonemiddleware's ``auth_token`` (configured by
  ``[keystone_authtoken]``) validates the token and sets the identity
  headers (``X-User-Id``, ``X-Project-Id``, ``X-Roles``,
  ``X-Service-Roles``, ``X-Is-Admin-Project``, ...), after removing any
  the client sent.
* ``noauth`` (tests, the all-in-one service): as Cinder's noauth,
  ``X-Auth-Token: user:project`` (or the ``X-User-Id`` and
  ``X-Project-Id`` headers) names the caller; its roles are ``X-Roles``
  (comma separated) or, without it, ``admin``. ``X-Service-Roles`` is
  honoured.

Either way the context is built from those headers (see
:func:`request_context`). The version documents (``GET /``, ``GET /v3/``)
are public: clients discover versions before they hold a token, so those
paths bypass authentication.
"""

from cinder_ma.api import expose
from cinder_ma.api import routes
from cinder_ma import context as cm_context

CONFIRMED = 'Confirmed'
ADMIN_ROLE = 'admin'


class NoAuthMiddleware:
    """Identity from the request's own headers, trusted as they are."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        user_id = project_id = None
        token = environ.get('HTTP_X_AUTH_TOKEN')
        if token:
            user_id, _sep, project_id = token.partition(':')
            project_id = project_id or user_id
        user_id = user_id or environ.get('HTTP_X_USER_ID')
        project_id = project_id or environ.get('HTTP_X_PROJECT_ID')
        if not project_id:
            response = expose.fault_response(
                401, 'Authentication required: send "X-Auth-Token: '
                     'user:project" (noauth).')
            return response(environ, start_response)
        environ['HTTP_X_USER_ID'] = user_id or project_id
        environ['HTTP_X_PROJECT_ID'] = project_id
        roles = environ.get('HTTP_X_ROLES')
        if roles is None or not roles.strip():
            environ['HTTP_X_ROLES'] = ADMIN_ROLE
        environ['HTTP_X_IDENTITY_STATUS'] = CONFIRMED
        return self.application(environ, start_response)


def keystone_middleware(application, conf):
    """keystonemiddleware's auth_token around ``application``."""
    from keystonemiddleware import auth_token
    return auth_token.AuthProtocol(application,
                                   {'oslo_config_config': conf})


class PublicPathsMiddleware:
    """Send the public version documents around authentication."""

    def __init__(self, authenticated, public):
        self.authenticated = authenticated
        self.public = public

    def __call__(self, environ, start_response):
        if (environ.get('REQUEST_METHOD') in ('GET', 'HEAD') and
                routes.is_public(environ.get('PATH_INFO', '/'))):
            return self.public(environ, start_response)
        return self.authenticated(environ, start_response)


def wrap(application, conf):
    """``application`` behind the configured authentication."""
    if conf.auth_strategy == 'keystone':
        authenticated = keystone_middleware(application, conf)
    else:
        authenticated = NoAuthMiddleware(application)
    return PublicPathsMiddleware(authenticated, application)


def request_context(req):
    """The RequestContext of an authenticated request, or None.

    ``is_admin`` follows the admin role, as the default
    ``context_is_admin`` rule does; the service layer asks the policy
    wherever it matters.
    """
    environ = req.environ
    if environ.get('HTTP_X_IDENTITY_STATUS') != CONFIRMED:
        return None
    roles = [r.strip() for r in environ.get('HTTP_X_ROLES', '').split(',')
             if r.strip()]
    return cm_context.RequestContext.from_environ(
        environ,
        roles=roles,
        is_admin=ADMIN_ROLE in [r.lower() for r in roles],
        request_id=environ.get('openstack.request_id'),
        global_request_id=environ.get('openstack.global_request_id'),
        overwrite=True)
