"""Services (managers and their backends) as admins see them."""

from cinder_ma.db import api as db_api
from cinder_ma.policies import services as service_policies
from cinder_ma import policy


def list_services(context, host=None, binary=None):
    policy.authorize(context, service_policies.GET_ALL)
    filters = {}
    if host:
        filters['host'] = host
    if binary:
        filters['binary'] = binary
    return [{
        'binary': service.binary,
        'host': service.host,
        'zone': service.availability_zone,
        'status': 'disabled' if service.disabled else 'enabled',
        'state': 'up' if db_api.service_is_up(service) else 'down',
        'updated_at': service.heartbeat_at or service.updated_at,
        'disabled_reason': service.disabled_reason,
        'uuid': service.uuid,
    } for service in db_api.service_get_all(context, filters)]
