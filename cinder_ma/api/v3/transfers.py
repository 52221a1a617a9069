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

"""Volume transfers: ``/v3/{project_id}/os-volume-transfer`` (Cinder's
extension, every microversion) and ``/v3/{project_id}/volume-transfers``
(Cinder's v3 controller, from 3.55).

List (summary and detail), create (202; the only answer that shows the
``auth_key``), show, delete (202) and accept (202, ``{"accept":
{"auth_key": ...}}``). ``volume-transfers`` takes ``no_snapshots`` in a
create and shows it (3.55) and the transfer's history (3.57, see
:mod:`cinder_ma.api.views.transfers`); from 3.59 its lists take
``marker`` and ``sort`` besides ``limit`` and ``offset``. Administrators
list every project's with ``all_tenants``.
"""

from oslo_utils import strutils

from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api import params
from cinder_ma.api.schemas import transfers as schemas
from cinder_ma.api import validation
from cinder_ma.api.views import transfers as views
from cinder_ma.volume import transfers as transfer_api


def _list(req, v3):
    query = req.GET
    limit = params.limit(query)
    marker = sort_keys = sort_dirs = None
    if v3 and req.api_version.matches(mv.SUPPORT_TRANSFER_PAGINATION):
        marker = params.marker(query)
        sort_keys, sort_dirs = params.sort(query)
    return limit, transfer_api.list_transfers(
        req.context, all_tenants=params.boolean(query, 'all_tenants'),
        marker=marker, limit=limit, offset=params.offset(query),
        sort_keys=sort_keys, sort_dirs=sort_dirs)


def _create(req, body, v3):
    transfer = body['transfer']
    name = transfer.get('name')
    if isinstance(name, str):
        name = name.strip()
    no_snapshots = strutils.bool_from_string(
        transfer.get('no_snapshots', False))
    created, auth_key = transfer_api.create_transfer(
        req.context, transfer['volume_id'], name, no_snapshots=no_snapshots,
        allow_encrypted=req.api_version.matches(
            mv.TRANSFER_ENCRYPTED_VOLUME))
    return views.create(req, created, auth_key, v3)


def _accept(req, transfer_id, body):
    accepted = transfer_api.accept_transfer(
        req.context, transfer_id, body['accept']['auth_key'])
    return views.summary(req, accepted)


# os-volume-transfer (every microversion).

@expose.expose()
def index(req, project_id):
    limit, transfers = _list(req, v3=False)
    return views.summary_list(req, transfers, limit)


@expose.expose()
def detail(req, project_id):
    limit, transfers = _list(req, v3=False)
    return views.detail_list(req, transfers, limit)


@expose.expose(status=202)
@validation.schema(schemas.create)
def create(req, project_id, body):
    return _create(req, body, v3=False)


@expose.expose()
def show(req, project_id, transfer_id):
    return views.show(req, transfer_api.get_transfer(req.context,
                                                     transfer_id))


@expose.expose(status=202)
def delete(req, project_id, transfer_id):
    transfer_api.delete_transfer(req.context, transfer_id)


@expose.expose(status=202)
@validation.schema(schemas.accept)
def accept(req, project_id, transfer_id, body):
    return _accept(req, transfer_id, body)


# volume-transfers (3.55 on).

@expose.expose(min_version=mv.TRANSFER_WITH_SNAPSHOTS)
def v3_index(req, project_id):
    limit, transfers = _list(req, v3=True)
    return views.summary_list(req, transfers, limit)


@expose.expose(min_version=mv.TRANSFER_WITH_SNAPSHOTS)
def v3_detail(req, project_id):
    limit, transfers = _list(req, v3=True)
    return views.detail_list(req, transfers, limit, v3=True)


@expose.expose(status=202, min_version=mv.TRANSFER_WITH_SNAPSHOTS)
@validation.schema(schemas.create_v355)
def v3_create(req, project_id, body):
    return _create(req, body, v3=True)


@expose.expose(min_version=mv.TRANSFER_WITH_SNAPSHOTS)
def v3_show(req, project_id, transfer_id):
    return views.show(req, transfer_api.get_transfer(req.context,
                                                     transfer_id), v3=True)


@expose.expose(status=202, min_version=mv.TRANSFER_WITH_SNAPSHOTS)
def v3_delete(req, project_id, transfer_id):
    transfer_api.delete_transfer(req.context, transfer_id)


@expose.expose(status=202, min_version=mv.TRANSFER_WITH_SNAPSHOTS)
@validation.schema(schemas.accept)
def v3_accept(req, project_id, transfer_id, body):
    return _accept(req, transfer_id, body)
