"""Service views: Cinder's ``os-services`` list
(``cinder/api/contrib/services.py``), detailed as Cinder shows it when the
``os-extended-services`` extension is loaded (always, in v3).

Replication, freezing and clustering do not exist here: their fields show
Cinder's values for a service without them.
"""

from cinder_ma.api import microversions as mv
from cinder_ma.api import views

VOLUME_BINARY = 'cinder-ma-volume'


def service(req, svc):
    view = {
        'binary': svc['binary'],
        'host': svc['host'],
        'zone': svc['zone'],
        'status': svc['status'],
        'state': svc['state'],
        'updated_at': views.isotime(svc['updated_at']),
        'disabled_reason': svc['disabled_reason'],
    }
    is_volume = svc['binary'] == VOLUME_BINARY
    if is_volume and req.api_version.matches(mv.BACKEND_STATE_REPORT):
        view['backend_state'] = svc.get('backend_state', svc['state'])
    if is_volume:
        view['replication_status'] = 'disabled'
        view['active_backend_id'] = None
        view['frozen'] = False
    if req.api_version.matches(mv.CLUSTER_SUPPORT):
        view['cluster'] = None
    return view


def index(req, services):
    return {'services': [service(req, svc) for svc in services]}
