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
``qos_specs_id`` (the type's QoS specs, or null) to admins, as in Cinder:
the controller passes what policy decided
(:class:`cinder_ma.volume.types.Audience`).

Which call answers what, as Cinder's (and as Tempest checks, extra keys
forbidden): show and list carry ``qos_specs_id`` (admins) and
``os-volume-type-access:is_public``; create carries the latter but not
``qos_specs_id`` (:func:`created`); update carries neither
(:func:`updated`).
"""

from cinder_ma.api.views import links


def _base(vtype, audience):
    view = {
        'id': vtype.id,
        'name': vtype.name,
        'is_public': bool(vtype.is_public),
        'description': vtype.description,
    }
    if audience.sees_extra_specs:
        view['extra_specs'] = audience.shown_specs(
            vtype.extra_specs)
    return view


def brief(vtype, audience):
    """A type as show and list answer it."""
    view = _base(vtype, audience)
    view['os-volume-type-access:is_public'] = bool(vtype.is_public)
    if audience.is_admin:
        view['qos_specs_id'] = vtype.qos_specs_id
    return view


def show(vtype, audience):
    return {'volume_type': brief(vtype, audience)}


def created(vtype, audience):
    """``POST /types``."""
    view = _base(vtype, audience)
    view['os-volume-type-access:is_public'] = bool(vtype.is_public)
    return {'volume_type': view}


def updated(vtype, audience):
    """``PUT /types/{id}``."""
    return {'volume_type': _base(vtype, audience)}


def index(req, vtypes, limit, audience):
    body = {'volume_types': [brief(vtype, audience) for vtype in vtypes]}
    next_links = links.next_links(req, vtypes, limit, 'types')
    if next_links:
        body['volume_type_links'] = next_links
    return body
