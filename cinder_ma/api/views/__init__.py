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
the records the service layer returned, and returns the dict the
controller sends. It formats what it is given: what depends on policy
(whether the caller is an administrator, which extra specs it sees) the
controller asks the service layer and passes in; JSON columns come
decoded from the data layer. Fields beyond Cinder's may only appear from
a microversion of our own.
"""

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


def is_service(req):
    """Whether the caller acts as a service (a service token or the
    service role), as Cinder shows attachment hosts to services."""
    if _IS_SERVICE not in req.environ:
        context = req.context
        roles = set(getattr(context, 'roles', None) or ()) | set(
            getattr(context, 'service_roles', None) or ())
        req.environ[_IS_SERVICE] = 'service' in roles
    return req.environ[_IS_SERVICE]
