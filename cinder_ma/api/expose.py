"""Turn what a controller returns or raises into an HTTP response.

:func:`expose` wraps every controller function (like Ironic's
``ironic/api/method.py``): a dict result becomes a JSON body with the
declared status; an exception becomes Cinder's fault body::

    {"badRequest": {"code": 400, "message": "..."}}

with the fault names of Cinder's ``cinder/api/openstack/wsgi.py``
(``Fault``); a status without a name there (406, for instance) is a
``computeFault``, as in Cinder. :class:`cinder_ma.exception.CinderMAException`
subclasses carry their status in ``.code``; a webob HTTP error carries its
own. Anything else is a bug: it is logged with its traceback and the client
gets a 500 ``computeFault`` with a generic message, never the traceback.

``expose(min_version=...)`` also gates a function by microversion: outside
its range the request is a 404 (Cinder's "API version 3.N is not supported
on this method.") before the body is read.
"""

import functools

from oslo_log import log as logging
from oslo_serialization import jsonutils
import webob
import webob.exc

from cinder_ma.api import microversions as mv
from cinder_ma import exception

LOG = logging.getLogger(__name__)

FAULT_NAMES = {
    400: 'badRequest',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'itemNotFound',
    405: 'badMethod',
    409: 'conflictingRequest',
    413: 'overLimit',
    415: 'badMediaType',
    501: 'notImplemented',
    503: 'serviceUnavailable',
}
DEFAULT_FAULT_NAME = 'computeFault'

JSON = 'application/json'


def _generic_message(code):
    """webob's explanation of a status: says nothing about the cause."""
    try:
        return webob.exc.status_map[code].explanation
    except KeyError:
        return webob.exc.HTTPInternalServerError.explanation


def fault_body(code, message):
    name = FAULT_NAMES.get(code, DEFAULT_FAULT_NAME)
    return {name: {'code': code, 'message': message}}


def fault_response(code, message, headers=None):
    """A webob Response with Cinder's fault body."""
    response = webob.Response(status=code, content_type=JSON,
                              charset='UTF-8')
    response.text = jsonutils.dumps(fault_body(code, message))
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


def json_response(body, status=200, headers=None):
    """A JSON response; ``None`` makes an empty body."""
    response = webob.Response(status=status)
    if body is None:
        response.content_type = None
        response.body = b''
    else:
        response.content_type = JSON
        response.charset = 'UTF-8'
        response.text = jsonutils.dumps(body)
    for key, value in (headers or {}).items():
        response.headers[key] = value
    return response


def exception_response(exc):
    """The fault response of an exception raised while serving a request.

    Expected errors (a CinderMAException below 500, a webob HTTP error)
    show their message; server-side errors are logged with the traceback
    and show only a generic message.
    """
    if isinstance(exc, exception.CinderMAException):
        code = exc.code if exc.code in webob.exc.status_map else 500
        if code < 500:
            LOG.info('Request refused (%s): %s', code, exc)
            return fault_response(code, str(exc))
        LOG.error('Request failed (%s): %s', code, exc, exc_info=exc)
        return fault_response(code, _generic_message(code))
    if isinstance(exc, webob.exc.HTTPException):
        code = exc.code
        headers = {}
        if code == 405 and exc.headers.get('Allow'):
            headers['Allow'] = exc.headers['Allow']
        message = exc.explanation or _generic_message(code)
        if exc.detail:
            message = exc.detail
        if code >= 500:
            LOG.error('Request failed (%s): %s', code, message)
        return fault_response(code, message, headers)
    if isinstance(exc, UnicodeDecodeError):
        # webob decodes the query string and form data lazily.
        LOG.info('Request refused (400): %s', exc)
        return fault_response(400, 'The request is not valid UTF-8')
    LOG.error('Unexpected error while serving a request', exc_info=exc)
    return fault_response(500, _generic_message(500))


def check_version(req, min_version=None, max_version=None):
    """Refuse a request whose microversion is outside [min, max].

    :raises VersionNotFoundForAPIMethod: a 404, as Cinder answers a
        method that does not exist at the requested microversion.
    """
    if not req.api_version.matches(min_version, max_version):
        raise mv.VersionNotFoundForAPIMethod(version=str(req.api_version))


def expose(status=200, min_version=None, max_version=None):
    """Decorate a controller ``func(req, **path_params)``.

    :param status: status of a successful response (200, 202, ...); a
        function returning None gets an empty body.
    :param min_version: the first microversion that serves the function
        (None: every version); below it, a 404 before anything else runs.
    :param max_version: the last microversion that serves it (None: up
        to the maximum).
    """
    def decorate(func):
        @functools.wraps(func)
        def wrapper(req, **kwargs):
            try:
                if min_version is not None or max_version is not None:
                    check_version(req, min_version, max_version)
                result = func(req, **kwargs)
            except Exception as exc:
                return exception_response(exc)
            if isinstance(result, webob.Response):
                return result
            return json_response(result, status)
        wrapper.success_status = status
        wrapper.min_version = min_version
        wrapper.max_version = max_version
        return wrapper
    return decorate


class FaultWrapper:
    """Last-resort WSGI middleware: nothing escapes as a traceback.

    Controllers already answer with faults; this catches what fails
    around them (middleware, the framework) and answers a 500 fault.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        try:
            return self.application(environ, start_response)
        except Exception as exc:
            return exception_response(exc)(environ, start_response)
