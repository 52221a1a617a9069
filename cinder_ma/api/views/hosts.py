"""Host views: Cinder's ``os-hosts`` (``cinder/api/contrib/hosts.py``).

A host row's ``service`` is the Cinder topic of the service: backends
are ``cinder-volume``. Usage figures are strings, snapshots 0 (cinder_ma
has none), as Cinder shows them.
"""

from cinder_ma.api import views


def _host(svc):
    return {
        'host_name': svc['host'],
        'service': svc['binary'],
        'zone': svc['zone'],
        'service-status': 'available' if svc['state'] == 'up'
                          else 'unavailable',
        'service-state': svc['status'],
        'last-update': views.isotime(svc['updated_at']),
    }


def index(req, services):
    return {'hosts': [_host(svc) for svc in services]}


def _resource(host, project, usage):
    count, gigabytes = usage
    return {'resource': {
        'host': host, 'project': project,
        'volume_count': str(count), 'total_volume_gb': str(gigabytes),
        'snapshot_count': '0', 'total_snapshot_gb': '0'}}


def show(req, host, total, projects):
    return {'host': [_resource(host, '(total)', total)] + [
        _resource(host, project_id, usage)
        for project_id, usage in projects]}
