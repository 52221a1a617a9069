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

"""Volume type views: Cinder's ``cinder/api/views/types.py`` with the
``os-volume-type-access:is_public`` attribute its extension adds.

``extra_specs`` shows to callers the extra specs read policy allows, and
to those without the read_sensitive policy only the user-visible ones;
``qos_specs_id`` (the type's QoS specs, or null) to admins, as in Cinder.

Which call answers what, as Cinder's (and as Tempest checks, extra keys
forbidden): show and list carry ``qos_specs_id`` (admins) and
``os-volume-type-access:is_public``; create carries the latter but not
``qos_specs_id`` (:func:`created`); update carries neither
(:func:`updated`).
"""

from cinder_ma.api import views
from cinder_ma.api.views import links
from cinder_ma.volume import types as volume_types

_SEES_SPECS = 'cinder_ma.can_see_extra_specs'
_SEES_SENSITIVE = 'cinder_ma.sees_sensitive_specs'


def _can_see_extra_specs(req):
    if _SEES_SPECS not in req.environ:
        req.environ[_SEES_SPECS] = bool(
            volume_types.can_see_extra_specs(req.context))
    return req.environ[_SEES_SPECS]


def _sees_sensitive_specs(req):
    if _SEES_SENSITIVE not in req.environ:
        req.environ[_SEES_SENSITIVE] = volume_types.sees_sensitive_specs(
            req.context)
    return req.environ[_SEES_SENSITIVE]


def _base(req, vtype):
    view = {
        'id': vtype.id,
        'name': vtype.name,
        'is_public': bool(vtype.is_public),
        'description': vtype.description,
    }
    if _can_see_extra_specs(req):
        view['extra_specs'] = volume_types.visible_specs(
            {s.key: s.value for s in vtype.extra_specs},
            _sees_sensitive_specs(req))
    return view


def brief(req, vtype):
    """A type as show and list answer it."""
    view = _base(req, vtype)
    view['os-volume-type-access:is_public'] = bool(vtype.is_public)
    if views.is_admin(req):
        view['qos_specs_id'] = vtype.qos_specs_id
    return view


def show(req, vtype):
    return {'volume_type': brief(req, vtype)}


def created(req, vtype):
    """``POST /types``."""
    view = _base(req, vtype)
    view['os-volume-type-access:is_public'] = bool(vtype.is_public)
    return {'volume_type': view}


def updated(req, vtype):
    """``PUT /types/{id}``."""
    return {'volume_type': _base(req, vtype)}


def index(req, vtypes, limit):
    body = {'volume_types': [brief(req, vtype) for vtype in vtypes]}
    next_links = links.next_links(req, vtypes, limit, 'types')
    if next_links:
        body['volume_type_links'] = next_links
    return body
