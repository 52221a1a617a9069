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

"""Volume transfer views: Cinder's ``cinder/api/v3/views/transfers.py``.

Summary (lists, accept): ``id``, ``volume_id``, ``name``, ``links``.
Detail (show, detailed lists) adds ``created_at``; create adds
``auth_key`` too (the only time it is shown). Through ``volume-transfers``
(3.55 on, Cinder's v3 controller) detail and create show
``no_snapshots``, and from 3.57 ``destination_project_id``,
``source_project_id`` and ``accepted``; through ``os-volume-transfer``
(Cinder's extension) never. Links name Cinder's collection
``os-volume-transfer`` whatever the path asked. A full page of a list
adds ``transfers_links``.
"""

from cinder_ma.api import microversions as mv
from cinder_ma.api import views
from cinder_ma.api.views import links

COLLECTION = 'os-volume-transfer'


def _summary(req, transfer):
    return {'id': transfer.id, 'volume_id': transfer.volume_id,
            'name': transfer.display_name,
            'links': links.resource_links(req, COLLECTION, transfer.id)}


def _detail(req, transfer, v3):
    view = {'id': transfer.id,
            'created_at': views.isotime(transfer.created_at),
            'name': transfer.display_name,
            'volume_id': transfer.volume_id,
            'links': links.resource_links(req, COLLECTION, transfer.id)}
    if not v3:
        return view
    if req.api_version.matches(mv.TRANSFER_WITH_SNAPSHOTS):
        view['no_snapshots'] = transfer.no_snapshots
    if req.api_version.matches(mv.TRANSFER_WITH_HISTORY):
        view.update(destination_project_id=transfer.destination_project_id,
                    source_project_id=transfer.source_project_id,
                    accepted=transfer.accepted)
    return view


def summary(req, transfer):
    return {'transfer': _summary(req, transfer)}


def show(req, transfer, v3=False):
    """:param v3: through ``volume-transfers`` (Cinder's v3 view)."""
    return {'transfer': _detail(req, transfer, v3)}


def create(req, transfer, auth_key, v3=False):
    view = _detail(req, transfer, v3)
    view['auth_key'] = auth_key
    return {'transfer': view}


def _list(req, transfers, limit, view):
    body = {'transfers': [view(req, transfer) for transfer in transfers]}
    if limit is not None:
        next_links = links.next_links(req, transfers, limit, COLLECTION)
        if next_links:
            body['transfers_links'] = next_links
    return body


def summary_list(req, transfers, limit=None):
    return _list(req, transfers, limit, _summary)


def detail_list(req, transfers, limit=None, v3=False):
    return _list(req, transfers, limit,
                 lambda req, transfer: _detail(req, transfer, v3))
