"""Volume type views: Cinder's ``cinder/api/views/types.py`` with the
``os-volume-type-access:is_public`` attribute its extension adds.

``extra_specs`` shows to callers the extra specs read policy allows;
``qos_specs_id`` (always null: no QoS specs here) to admins, as in Cinder.
"""

from cinder_ma.api import views
from cinder_ma.api.views import links
from cinder_ma.volume import types as volume_types

_SEES_SPECS = 'cinder_ma.can_see_extra_specs'


def _can_see_extra_specs(req):
    if _SEES_SPECS not in req.environ:
        req.environ[_SEES_SPECS] = bool(
            volume_types.can_see_extra_specs(req.context))
    return req.environ[_SEES_SPECS]


def brief(req, vtype):
    view = {
        'id': vtype.id,
        'name': vtype.name,
        'is_public': bool(vtype.is_public),
        'description': vtype.description,
        'os-volume-type-access:is_public': bool(vtype.is_public),
    }
    if _can_see_extra_specs(req):
        view['extra_specs'] = {s.key: s.value for s in vtype.extra_specs}
    if views.is_admin(req):
        view['qos_specs_id'] = None
    return view


def show(req, vtype):
    return {'volume_type': brief(req, vtype)}


def index(req, vtypes, limit):
    body = {'volume_types': [brief(req, vtype) for vtype in vtypes]}
    next_links = links.next_links(req, vtypes, limit, 'types')
    if next_links:
        body['volume_type_links'] = next_links
    return body
