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

"""Attachments: ``/v3/{project_id}/attachments`` (from 3.27), as Cinder's
``cinder/api/v3/attachments.py``.

An external consumer (a compute service of its own) drives an attachment:
create (reserve, optionally with a connector), update with a connector
(the backend initializes the connection; the response carries
``connection_info``), ``os-complete`` (3.44; attached), delete (the
connection is terminated). From 3.54, with the extension
``cinder-ma-manager-attach`` (:mod:`cinder_ma.api.extensions`), create may
instead name ``cinder-ma-manager-attach:instance_host``, a host run by a
cinder_ma manager: that manager's
attach flow does the rest asynchronously, and the client polls the
attachment until it is ``attached`` (or ``error_attaching``).

With the extension ``cinder-ma-fencing`` (from 3.44), administrators and
services fence an attachment (``cinder-ma-fencing:fence``: its access is
revoked at the target; update with a new connector connects it again)
and promote a read-only attachment of a one-writer volume to its writer
(``cinder-ma-fencing:promote``); both answer 200 with the attachment.

Status codes are Cinder's: create, update, show, list and delete 200
(delete answers the volume's other attachments), ``os-complete`` 204,
every route below 3.27 a 404. The rules, the policy and the calls to the
managers are :mod:`cinder_ma.volume.attachments`'.
"""

from oslo_utils import uuidutils
import webob.exc

from cinder_ma.api import actions
from cinder_ma.api import expose
from cinder_ma.api import extensions
from cinder_ma.api import microversions as mv
from cinder_ma.api import params
from cinder_ma.api.schemas import attachments as schemas
from cinder_ma.api import validation
from cinder_ma.api.views import attachments as views
from cinder_ma import exception
from cinder_ma.volume import api as volume_api
from cinder_ma.volume import attachments as volume_attachments
from cinder_ma.volume import fencing

# Filters of attachment lists (Cinder's allowed_filters); 'status' and
# 'attach_status' both filter on the attach status.
_FILTERS = ('volume_id', 'status', 'instance_id', 'attach_status')
# Parameters of list requests that are not filters.
_LIST_PARAMS = params.PAGING_KEYS | {'all_tenants'}


def _is_admin(req):
    """Whether the caller is an administrator (views show them more)."""
    return volume_api.is_admin(req.context)


def _bad_request(message):
    return webob.exc.HTTPBadRequest(explanation=message)


def _checked_id(attachment_id):
    """Like Cinder, an id that is no UUID names no attachment."""
    if not uuidutils.is_uuid_like(attachment_id):
        raise exception.VolumeAttachmentNotFound(
            filter='attachment_id = %s' % exception.cut(attachment_id))
    return attachment_id


def _filters(req):
    """The service's filters from the query string.

    :raises HTTPBadRequest: from RESOURCE_FILTER on, an unknown filter
        (below, unknown filters are ignored, as in Cinder).
    """
    query = req.GET
    unknown = sorted(set(query) - set(_FILTERS) - _LIST_PARAMS)
    if unknown and req.api_version.matches(mv.RESOURCE_FILTER):
        raise _bad_request('Invalid filters %s are found in query options.'
                           % exception.cut(','.join(unknown)))
    return {key: query[key] for key in _FILTERS if key in query}


def _list(req, view):
    query = req.GET
    limit = params.limit(query)
    sort_keys, sort_dirs = params.sort(query)
    found = volume_attachments.list_attachments(
        req.context, filters=_filters(req), marker=params.marker(query),
        limit=limit, sort_keys=sort_keys, sort_dirs=sort_dirs,
        all_tenants=params.boolean(query, 'all_tenants'))
    return view(req, found, limit, is_admin=_is_admin(req))


@expose.expose(min_version=mv.NEW_ATTACH)
def index(req, project_id):
    """GET /v3/{project_id}/attachments: summaries."""
    return _list(req, views.summary_list)


@expose.expose(min_version=mv.NEW_ATTACH)
def detail(req, project_id):
    """GET /v3/{project_id}/attachments/detail."""
    return _list(req, views.detail_list)


@expose.expose(min_version=mv.NEW_ATTACH)
def show(req, project_id, attachment_id):
    attachment = volume_attachments.get_attachment(
        req.context, _checked_id(attachment_id))
    return views.show(attachment, req, is_admin=_is_admin(req))


def _mode(attachment, connector):
    """``mode`` (3.54), else the connector's ``mode`` as Cinder honours it
    for older clients, else read-write."""
    if attachment.get('mode'):
        return attachment['mode']
    from_connector = (connector or {}).get('mode')
    if from_connector in volume_attachments.MODES:
        return from_connector
    return 'rw'


def _check_connector(connector):
    # Checked before anything is reserved (the service would refuse it
    # only after reserving).
    if connector is not None and not connector.get('host'):
        raise _bad_request('Invalid input received: connector must be an '
                           'object with at least "host"')


def _check_instance_host(attachment, connector):
    if connector is not None:
        raise _bad_request(
            '%(f)s and connector are mutually exclusive: with %(f)s, the '
            'manager of that host makes the connection; with connector, the '
            'caller does.' % {'f': schemas.INSTANCE_HOST})
    if not attachment.get('instance_uuid'):
        raise _bad_request('%s needs instance_uuid: the manager of the host '
                           'attaches the volume to that instance.'
                           % schemas.INSTANCE_HOST)


@expose.expose(min_version=mv.NEW_ATTACH)
@validation.schema(schemas.create, min_version=mv.NEW_ATTACH,
                   max_version=mv.prior(mv.ATTACHMENT_CREATE_MODE_ARG))
@validation.schema(schemas.create_v354,
                   min_version=mv.ATTACHMENT_CREATE_MODE_ARG)
def create(req, project_id, body):
    """POST /v3/{project_id}/attachments: reserve an attachment (and
    connect it when a connector is given); 200 and its detail."""
    attachment = body['attachment']
    # An empty connector is none, as in Cinder.
    connector = attachment.get('connector') or None
    instance_host = attachment.get(schemas.INSTANCE_HOST)
    if instance_host:
        _check_instance_host(attachment, connector)
    _check_connector(connector)
    new = volume_attachments.create_attachment(
        req.context, attachment['volume_uuid'],
        attachment.get('instance_uuid'), connector=connector,
        mode=_mode(attachment, connector), instance_host=instance_host)
    return views.show(new, req, is_admin=_is_admin(req))


@expose.expose(min_version=mv.NEW_ATTACH)
@validation.schema(schemas.update, min_version=mv.NEW_ATTACH)
def update(req, project_id, attachment_id, body):
    """PUT /v3/{project_id}/attachments/{id} with a connector: 200 and the
    detail, with the connection_info the backend gave."""
    updated = volume_attachments.update_attachment(
        req.context, _checked_id(attachment_id),
        body['attachment']['connector'])
    return views.show(updated, req, is_admin=_is_admin(req))


@expose.expose(min_version=mv.NEW_ATTACH)
def delete(req, project_id, attachment_id):
    """DELETE /v3/{project_id}/attachments/{id}: 200 and the summaries of
    the volume's other attachments.

    An attachment connected to an instance is deleted by a service only
    (409 for others); one made through a manager
    (cinder-ma-manager-attach) is detached by that manager's detach
    flow, asynchronously.
    """
    others = volume_attachments.delete_attachment(
        req.context, _checked_id(attachment_id))
    return views.remaining(others or [])


@expose.expose(status=204, min_version=mv.NEW_ATTACH_COMPLETION)
def complete(req, project_id, attachment_id):
    """``{"os-complete": null}`` (3.44): the attachment is attached."""
    volume_attachments.complete_attachment(req.context,
                                           _checked_id(attachment_id))


@expose.expose(min_version=extensions.FENCING.min_version)
@validation.schema(schemas.fence, min_version=extensions.FENCING.min_version)
def fence(req, project_id, attachment_id, body):
    """``{"cinder-ma-fencing:fence": {}}`` (extension
    ``cinder-ma-fencing``): revoke the attachment's access at the target
    at once; 200 and its detail with the fencing fields."""
    fenced = fencing.fence_attachment(req.context,
                                      _checked_id(attachment_id))
    return views.show(fenced, req, fencing=True,
                      is_admin=_is_admin(req))


@expose.expose(min_version=extensions.FENCING.min_version)
@validation.schema(schemas.promote,
                   min_version=extensions.FENCING.min_version)
def promote(req, project_id, attachment_id, body):
    """``{"cinder-ma-fencing:promote": {}}`` (extension
    ``cinder-ma-fencing``): make this read-only attachment of a one-writer
    volume the writer; 200 and its detail (with the new connection_info)
    with the fencing fields."""
    promoted = fencing.promote_attachment(req.context,
                                          _checked_id(attachment_id))
    return views.show(promoted, req, fencing=True,
                      is_admin=_is_admin(req))


# POST /v3/{project_id}/attachments/{id}/action
action = expose.expose(min_version=mv.NEW_ATTACH)(
    actions.dispatcher({'os-complete': complete,
                        schemas.FENCE: fence,
                        schemas.PROMOTE: promote}, 'action'))
