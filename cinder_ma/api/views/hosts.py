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

"""Host views: Cinder's ``os-hosts`` (``cinder/api/contrib/hosts.py``).

A host row's ``service`` is the Cinder topic of the service: backends
are ``cinder-volume``. Usage figures are strings, as Cinder shows them.
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
    count, gigabytes, snapshots, snapshot_gigabytes = usage
    return {'resource': {
        'host': host, 'project': project,
        'volume_count': str(count), 'total_volume_gb': str(gigabytes),
        'snapshot_count': str(snapshots),
        'total_snapshot_gb': str(snapshot_gigabytes)}}


def show(req, host, total, projects):
    return {'host': [_resource(host, '(total)', total)] + [
        _resource(host, project_id, usage)
        for project_id, usage in projects]}
