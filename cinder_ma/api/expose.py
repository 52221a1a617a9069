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

While the database or the message broker cannot be reached, requests get
a 503 ``serviceUnavailable`` (oslo.db's ``DBConnectionError``,
SQLAlchemy's ``OperationalError``,
oslo.messaging's ``MessagingTimeout`` and ``MessageDeliveryFailure``), as
does a request needing a manager that is down (``ManagerUnavailable``,
whose message names the host). Such outages are logged once per kind per
:data:`OUTAGE_LOG_INTERVAL` seconds with the count of the others, not once
per request.

``expose(min_version=...)`` also gates a function by microversion: outside
its range the request is a 404 (Cinder's "API version 3.N is not supported
on this method.") before the body is read.
"""

import functools
import threading
import time

from oslo_db import exception as db_exc
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_serialization import jsonutils
from sqlalchemy import exc as sa_exc
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

#: Seconds between two log lines of one kind of outage.
OUTAGE_LOG_INTERVAL = 10

#: Exceptions meaning a service the API needs is unreachable, and what
#: the client is told.
OUTAGES = (
    (db_exc.DBConnectionError,
     'The database is unreachable; try again later.'),
    # libpq's "connection to server ... failed" is not one oslo.db
    # recognizes as a connection error.
    (sa_exc.OperationalError,
     'The database is unavailable; try again later.'),
    (messaging.MessagingTimeout,
     'A manager did not answer in time; try again later.'),
    (messaging.MessageDeliveryFailure,
     'The message broker is unreachable; try again later.'),
)


class _OutageLog:
    """Log one line per kind of outage per interval."""

    def __init__(self, interval=OUTAGE_LOG_INTERVAL):
        self.interval = interval
        self._lock = threading.Lock()
        self._last = {}
        self._suppressed = {}

    def log(self, kind, message):
        now = time.monotonic()
        with self._lock:
            last = self._last.get(kind)
            if last is not None and now - last < self.interval:
                self._suppressed[kind] = self._suppressed.get(kind, 0) + 1
                return False
            self._last[kind] = now
            others = self._suppressed.pop(kind, 0)
        LOG.error('Service unavailable (%s): %s%s', kind, message,
                  ' (and %d more in the last %d s)' % (
                      others, self.interval) if others else '')
        return True


_OUTAGE_LOG = _OutageLog()


def _generic_message(code):
    """webob's explanation of a status: says nothing about the cause."""
    try:
        return webob.exc.status_map[code].explanation
    except KeyError:
        return webob.exc.HTTPInternalServerError.explanation


# The longest message a fault carries (a last guard: messages cut the
# values they echo, see cinder_ma.exception).
MAX_MESSAGE = 1000


def fault_body(code, message):
    name = FAULT_NAMES.get(code, DEFAULT_FAULT_NAME)
    return {name: {'code': code,
                   'message': exception.cut(message, MAX_MESSAGE)}}


def fault_response(code, message, headers=None):
    """A webob Response with Cinder's fault body."""
    # Built in one go (the same headers as setting ``text``: webob adds
    # no charset to application/json given to its constructor).
    response = webob.Response(
        status=code, content_type=JSON, charset='UTF-8',
        body=jsonutils.dump_as_bytes(fault_body(code, message)))
    if headers:
        response.headers.update(headers)
    return response


# Statuses for which webob's constructor makes the headers that
# json_response sets one by one (not 204: it would drop them).
_JSON_STATUSES = frozenset((200, 201, 202))
_JSON_UTF8 = JSON + '; charset=UTF-8'


def json_response(body, status=200, headers=None):
    """A JSON response; ``None`` makes an empty body."""
    if body is not None and status in _JSON_STATUSES:
        # The common case built in one go: the same status and headers
        # as below, for half the CPU.
        response = webob.Response(
            status=status, content_type=_JSON_UTF8,
            body=jsonutils.dump_as_bytes(body))
        if headers:
            response.headers.update(headers)
        return response
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
    for kind, message in OUTAGES:
        if isinstance(exc, kind):
            _OUTAGE_LOG.log(kind.__name__, exc)
            return fault_response(503, message)
    if isinstance(exc, exception.ManagerUnavailable):
        # The host, not the reason (it may carry transport details).
        _OUTAGE_LOG.log('ManagerUnavailable', exc)
        return fault_response(
            503, 'The manager of %s is unavailable; try again later.' %
            exc.kwargs.get('host'))
    if isinstance(exc, exception.CinderMAException):
        code = exc.code if exc.code in webob.exc.status_map else 500
        if code < 500:
            # Not str(exc): that of an exception rebuilt from a manager's
            # answer carries the manager's traceback.
            message = exc.format_message()
            LOG.info('Request refused (%s): %s', code, message)
            return fault_response(code, message)
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


def _fault_message(response):
    """The message of an error response a middleware answered: its own
    when the body is JSON with one (keystonemiddleware's
    ``{"error": {"message": ...}}``), else the status' explanation."""
    try:
        body = jsonutils.loads(response.body)
    except (TypeError, ValueError, RecursionError):
        body = None
    if isinstance(body, dict) and len(body) == 1:
        (inner,) = body.values()
        if isinstance(inner, dict) and isinstance(inner.get('message'),
                                                  str):
            return inner['message']
    return _generic_message(response.status_int)


def _is_fault(response):
    """Whether an error response already has Cinder's fault body."""
    if response.content_type != JSON:
        return False
    try:
        body = jsonutils.loads(response.body)
    except (TypeError, ValueError, RecursionError):
        return False
    if not isinstance(body, dict) or len(body) != 1:
        return False
    (name, inner), = body.items()
    return (isinstance(inner, dict) and
            name == FAULT_NAMES.get(response.status_int,
                                    DEFAULT_FAULT_NAME) and
            inner.get('code') == response.status_int and
            isinstance(inner.get('message'), str))


# Headers of a middleware's error response that its fault does not keep.
_BODY_HEADERS = frozenset(('content-type', 'content-length'))


class FaultWrapper:
    """Last-resort WSGI middleware: every error leaves as a Cinder fault.

    Controllers already answer with faults; this catches what fails
    around them (middleware, the framework) and answers a 500 fault, and
    gives Cinder's fault body to the errors that middleware below answers
    in its own shape (oslo.middleware's body size limit answers webob's
    error page, keystonemiddleware its own JSON), keeping their status
    and headers (``WWW-Authenticate``...).
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        # Plain WSGI (no webob Request/Response around the success path):
        # an answer below 400 passes through as it came.
        answer = []

        def start(status, headers, exc_info=None):
            if exc_info is not None:
                # As webob's get_response: raised, so answered below.
                raise exc_info[1].with_traceback(exc_info[2])
            answer[:] = [status, headers]
            return written.append

        written = []
        try:
            app_iter = self.application(environ, start)
            if not answer or written:
                # start_response deferred to the first item, or write():
                # the body is read here.
                body = app_iter
                try:
                    app_iter = written + list(body)
                finally:
                    close = getattr(body, 'close', None)
                    if close is not None:
                        close()
                if not answer:
                    raise RuntimeError('The application did not call '
                                       'start_response')
        except Exception as exc:
            return exception_response(exc)(environ, start_response)
        status, headers = answer
        if int(status.split(None, 1)[0]) < 400:
            start_response(status, headers)
            return app_iter
        response = webob.Response(status=status, headerlist=headers,
                                  app_iter=app_iter)
        if not _is_fault(response):
            headers = {key: value for key, value in response.headerlist
                       if key.lower() not in _BODY_HEADERS}
            response = fault_response(response.status_int,
                                      _fault_message(response), headers)
        return response(environ, start_response)
