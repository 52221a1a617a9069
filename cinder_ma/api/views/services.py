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

"""Service views: Cinder's ``os-services`` list
(``cinder/api/contrib/services.py``), detailed as Cinder shows it when the
``os-extended-services`` extension is loaded (always, in v3).

Replication and clustering do not exist here: their fields show Cinder's
values for a service without them. Backends show as Cinder's
``cinder-volume`` (see :mod:`cinder_ma.volume.services`).
"""

from cinder_ma.api import microversions as mv
from cinder_ma.api import views

UNSET = object()


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
    is_volume = svc['is_backend']
    if is_volume and req.api_version.matches(mv.BACKEND_STATE_REPORT):
        view['backend_state'] = svc.get('backend_state', svc['state'])
    if is_volume:
        view['replication_status'] = 'disabled'
        view['active_backend_id'] = None
        view['frozen'] = svc['frozen']
    if req.api_version.matches(mv.CLUSTER_SUPPORT):
        view['cluster'] = None
    return view


def index(req, services):
    return {'services': [service(req, svc) for svc in services]}


def updated(host, binary, service, disabled, reason=UNSET):
    """Cinder's answer to enable, disable and disable-log-reason: the
    request's names and the new state; ``disabled_reason`` for enable
    (null) and disable-log-reason only."""
    view = {'host': host, 'binary': binary, 'service': service,
            'disabled': disabled,
            'status': 'disabled' if disabled else 'enabled'}
    if reason is not UNSET:
        view['disabled_reason'] = reason
    return view
