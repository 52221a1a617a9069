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

"""Views: the response shapes, matching Cinder's v3 views.

A view takes the request (for its microversion, context and URL) and
models from :mod:`cinder_ma.volume`, and returns the dict the controller
sends. Fields beyond Cinder's may only appear from a microversion of our
own.
"""

from cinder_ma.volume import api as volume_api

_IS_ADMIN = 'cinder_ma.is_admin'
_IS_SERVICE = 'cinder_ma.is_service'


def isotime(value):
    """Cinder's format of a time, 2026-11-21T20:00:00.000000 (naive UTC),
    or None.

    isoformat is several times faster than strftime, and faster without a
    timespec (whose keyword it parses); it shows the microseconds when they
    are not 0, and only then needs to be told to.
    """
    if value is None:
        return None
    if value.microsecond:
        return value.isoformat()
    return value.isoformat(timespec='microseconds')


def is_admin(req):
    """Whether the caller is an administrator; asked once per request."""
    if _IS_ADMIN not in req.environ:
        req.environ[_IS_ADMIN] = bool(volume_api.is_admin(req.context))
    return req.environ[_IS_ADMIN]


def is_service(req):
    """Whether the caller acts as a service (a service token or the
    service role), as Cinder shows attachment hosts to services."""
    if _IS_SERVICE not in req.environ:
        context = req.context
        roles = set(getattr(context, 'roles', None) or ()) | set(
            getattr(context, 'service_roles', None) or ())
        req.environ[_IS_SERVICE] = 'service' in roles
    return req.environ[_IS_SERVICE]
