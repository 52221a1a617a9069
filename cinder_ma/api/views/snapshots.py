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

"""Snapshot views: Cinder's ``cinder/api/views/snapshots.py`` and
``cinder/api/v3/views/snapshots.py``, with the attributes of Cinder's
extension ``os-extended-snapshot-attributes`` (``project_id``,
``progress``) on show and the detail list, for callers its policy
allows.

Every snapshot shows id, created_at, updated_at, name, description,
volume_id, status, size and metadata; the detail (show, detail list,
create, update) adds by microversion 3.14 ``group_snapshot_id`` (null:
no group snapshots here), 3.41 ``user_id`` and 3.65
``consumes_quota`` (true: no temporary snapshots here).
"""

from cinder_ma.api import microversions as mv
from cinder_ma.api import views
from cinder_ma.api.views import links

COLLECTION = 'snapshots'
EXTENDED = 'os-extended-snapshot-attributes'


def _summary(snapshot):
    return {
        'id': snapshot.id,
        'created_at': views.isotime(snapshot.created_at),
        'updated_at': views.isotime(snapshot.updated_at),
        'name': snapshot.name,
        'description': snapshot.description,
        'volume_id': snapshot.volume_id,
        'status': snapshot.status,
        'size': snapshot.volume_size,
        'metadata': dict(snapshot.metadata or {}),
    }


def _detail(req, snapshot, extended=False):
    view = _summary(snapshot)
    version = req.api_version
    if version.matches(mv.GROUP_SNAPSHOTS):
        view['group_snapshot_id'] = None
    if version.matches(mv.SNAPSHOT_LIST_USER_ID):
        view['user_id'] = snapshot.user_id
    if version.matches(mv.USE_QUOTA):
        view['consumes_quota'] = True
    if extended:
        view[EXTENDED + ':project_id'] = snapshot.project_id
        view[EXTENDED + ':progress'] = snapshot.progress
    return view


def show(req, snapshot, extended=False):
    """``GET /snapshots/{id}`` (``extended``: the caller may see the
    extension's attributes), create and update (never extended)."""
    return {'snapshot': _detail(req, snapshot, extended)}


def _list(req, snapshots, limit, collection, count, render):
    body = {COLLECTION: [render(snapshot) for snapshot in snapshots]}
    next_links = links.next_links(req, snapshots, limit, collection)
    if next_links:
        body[COLLECTION + '_links'] = next_links
    if count is not None:
        body['count'] = count
    return body


def summary_list(req, snapshots, limit, count=None):
    """``GET /snapshots``."""
    return _list(req, snapshots, limit, COLLECTION, count, _summary)


def detail_list(req, snapshots, limit, count=None, extended=False):
    """``GET /snapshots/detail``."""
    return _list(req, snapshots, limit, COLLECTION + '/detail', count,
                 lambda snapshot: _detail(req, snapshot, extended))
