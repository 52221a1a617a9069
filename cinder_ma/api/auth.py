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

"""Who is calling: keystone tokens or noauth, and the request context.

``[DEFAULT] auth_strategy``:

* ``keystone``: keystonemiddleware's ``auth_token`` (configured by
  ``[keystone_authtoken]``) validates the token and sets the identity
  headers (``X-User-Id``, ``X-Project-Id``, ``X-Roles``,
  ``X-Service-Roles``, ``X-Is-Admin-Project``, ...), after removing any
  the client sent.
  The roles of a *service token* (``X-Service-Token``, sent beside the
  user's token by a service such as a compute service) arrive as
  ``X-Service-Roles`` and become the context's ``service_roles``: the
  ``service`` persona of the policies looks there only.
  ``keystone`` is the default; without a usable ``[keystone_authtoken]``
  (see :func:`check_config`) the API refuses to start. When Keystone is
  unreachable or slow, the request gets a 503 fault once
  ``http_connect_timeout`` and ``http_request_max_retries`` are spent
  (:class:`KeystoneFaults`).
* ``noauth`` (tests, the all-in-one service, whose default it is): as
  Cinder's noauth, ``X-Auth-Token: user:project`` (or the ``X-User-Id``
  and ``X-Project-Id`` headers) names the caller; its roles are
  ``X-Roles`` (comma separated) or, without it, ``admin``; the service
  roles are ``X-Service-Roles``.

Either way the context is built from those headers (see
:func:`request_context`). The version documents (``GET /``, ``GET /v3/``)
are public: clients discover versions before they hold a token, so those
paths bypass authentication.

Every request starts with an anonymous context holding its request id
(:class:`LogContext`), so that whatever is logged before its caller is
known (a refused token, a malformed request) is logged under that request
and not under the previous request of the same thread.
"""

from keystoneauth1 import exceptions as ksa_exceptions
from keystoneauth1 import loading as ks_loading
from oslo_log import log as logging
from oslo_middleware import request_id as request_id_middleware

from cinder_ma.api import expose
from cinder_ma.api import routes
from cinder_ma import context as cm_context
from cinder_ma import exception

LOG = logging.getLogger(__name__)

CONFIRMED = 'Confirmed'
ADMIN_ROLE = 'admin'
AUTHTOKEN_GROUP = 'keystone_authtoken'

#: The environ key set once a request got past authentication.
_AUTHENTICATED = 'cinder_ma.authenticated'


class LogContext:
    """Give every request a fresh, anonymous thread-local context with its
    request id, before anything can log or refuse it.

    oslo.log's formatter takes the identity and request id of a log line
    from the thread's current oslo.context; without this, a request
    refused before its context is built would be logged under the
    identity of the previous request served by the same thread.
    :func:`request_context` replaces it once the caller is known.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        cm_context.RequestContext(
            request_id=environ.get(request_id_middleware.ENV_REQUEST_ID),
            global_request_id=environ.get(
                request_id_middleware.GLOBAL_REQ_ID),
            overwrite=True)
        return self.application(environ, start_response)


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


def check_config(conf):
    """Refuse ``auth_strategy = keystone`` without a usable
    ``[keystone_authtoken]``: an auth plugin (``auth_type`` and the
    options it requires, with which the API validates tokens) and
    ``www_authenticate_uri`` (where clients are sent for a token).

    Does nothing for other strategies.

    :raises InvalidConfiguration: naming what is missing.
    """
    if conf.auth_strategy != 'keystone':
        return
    # Registers the [keystone_authtoken] options.
    from keystonemiddleware import auth_token  # noqa: F401
    group = conf[AUTHTOKEN_GROUP]
    missing = []
    if not group.www_authenticate_uri:
        missing.append('www_authenticate_uri')
    section = group.auth_section or AUTHTOKEN_GROUP
    plugin = conf[section].auth_type if section in conf else None
    if not plugin:
        missing.append('auth_type (with the options of its plugin, such '
                       'as auth_url, username, password, project_name, '
                       'user_domain_name and project_domain_name for '
                       '"password")')
    else:
        try:
            ks_loading.load_auth_from_conf_options(conf, AUTHTOKEN_GROUP)
        except ksa_exceptions.NoMatchingPlugin:
            raise exception.InvalidConfiguration(
                reason='[%s] auth_type = %s names no keystoneauth plugin'
                       % (section, plugin))
        except ksa_exceptions.MissingRequiredOptions as exc:
            missing.extend(opt.dest for opt in exc.options)
    if missing:
        raise exception.InvalidConfiguration(
            reason='auth_strategy = keystone needs [%s] %s' % (
                AUTHTOKEN_GROUP, ', '.join(missing)))


class KeystoneFaults:
    """Around keystonemiddleware's auth_token: what it answers itself (a
    refused token, Keystone unreachable) gets Cinder's fault body, and an
    error of the identity client that escapes it is a 503, not a 500.

    Responses of the application behind it (marked by
    :class:`_MarkAuthenticated`) pass unchanged.
    """

    def __init__(self, auth_middleware):
        self.auth_middleware = auth_middleware

    def __call__(self, environ, start_response):
        held = {}

        def start(status, headers, exc_info=None):
            if environ.get(_AUTHENTICATED) or _code(status) < 400:
                return start_response(status, headers, exc_info)
            # auth_token's own refusal: held back, answered below.
            held['status'] = status
            held['headers'] = headers
            return _discard

        try:
            body = self.auth_middleware(environ, start)
        except ksa_exceptions.ClientException as exc:
            if environ.get(_AUTHENTICATED):
                raise
            LOG.error('Keystone could not validate the token: %s', exc)
            return _unavailable()(environ, start_response)
        if not held:
            return body
        if hasattr(body, 'close'):
            body.close()
        code = _code(held['status'])
        if code == 503:
            response = _unavailable()
        else:
            keep = {k: v for k, v in held['headers']
                    if k.lower() == 'www-authenticate'}
            response = expose.fault_response(
                code, _AUTH_MESSAGES.get(code, 'Authentication failed.'),
                keep)
        return response(environ, start_response)


_AUTH_MESSAGES = {
    401: 'Authentication required: the token is missing, invalid or '
         'expired.',
    403: 'The token does not allow this request.',
}


def _code(status):
    return int(status.split(None, 1)[0])


def _unavailable():
    return expose.fault_response(
        503, 'The identity service (Keystone) is unavailable or did not '
             'answer in time; try again later.')


def _discard(data):
    pass


class _MarkAuthenticated:
    """Behind auth_token: the request got through it."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        environ[_AUTHENTICATED] = True
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
        check_config(conf)
        authenticated = KeystoneFaults(keystone_middleware(
            _MarkAuthenticated(application), conf))
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
