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

"""Services: ``/v3/{project_id}/os-services`` (admins).

``GET`` lists the managers and their storage backends with their state,
filtered by ``host`` and ``binary`` as in Cinder. ``PUT
/os-services/{action}`` with Cinder's bodies: ``enable``, ``disable``,
``disable-log-reason`` (``{"host", "binary", "disabled_reason"}``),
``freeze`` and ``thaw`` (``{"host"}``: the backends of a host).
"""

import webob.exc

from cinder_ma.api import expose
from cinder_ma.api import validation
from cinder_ma.api.views import services as views
from cinder_ma import exception
from cinder_ma.volume import services as volume_services

_BODY = {'type': 'object'}


@expose.expose()
def index(req, project_id):
    services = volume_services.list_services(
        req.context, host=req.GET.get('host') or None,
        binary=req.GET.get('binary') or req.GET.get('service') or None)
    return views.index(req, services)


def _string(body, key):
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise webob.exc.HTTPBadRequest(
            explanation='%s must be a string.' % key)
    return value


def _host(body):
    host = _string(body, 'host')
    if not host:
        raise webob.exc.HTTPBadRequest(
            explanation="Missing required element 'host' in request body.")
    return host


def _reason(body):
    reason = _string(body, 'disabled_reason')
    if not reason or not reason.strip() or len(reason.strip()) > 255:
        raise webob.exc.HTTPBadRequest(
            explanation='Disabled reason contains invalid characters or '
                        'is too long')
    return reason


def _set_disabled(req, body, disabled, log_reason=False):
    host = _host(body)
    reason = _reason(body) if log_reason else None
    service = _string(body, 'service') or ''
    binary = _string(body, 'binary') or ''
    if not (binary or service):
        raise webob.exc.HTTPBadRequest(
            explanation="Missing required element 'binary' in request "
                        "body.")
    volume_services.set_disabled(req.context, host, binary or service,
                                 disabled, reason)
    if disabled and not log_reason:
        return views.updated(host, binary, service, True)
    return views.updated(host, binary, service, disabled, reason)


def _freeze(req, body):
    volume_services.freeze(req.context, _host(body))


def _thaw(req, body):
    volume_services.thaw(req.context, _host(body))


_ACTIONS = {
    'enable': lambda req, body: _set_disabled(req, body, False),
    'disable': lambda req, body: _set_disabled(req, body, True),
    'disable-log-reason': lambda req, body: _set_disabled(
        req, body, True, log_reason=True),
    'freeze': _freeze,
    'thaw': _thaw,
}


@expose.expose()
@validation.schema(_BODY)
def update(req, project_id, action, body):
    """PUT /v3/{project_id}/os-services/{action}; freeze and thaw answer
    200 with no body, as Cinder does."""
    handler = _ACTIONS.get(action)
    if handler is None:
        raise exception.InvalidInput(reason='Unknown action')
    return handler(req, body)
