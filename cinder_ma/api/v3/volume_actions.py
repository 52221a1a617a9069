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

"""Actions of volumes: ``POST /v3/{project_id}/volumes/{id}/action``, as
Cinder's ``cinder/api/contrib/volume_actions.py`` and
``admin_actions.py``.

The legacy way of attaching, from before the attachments API:
``os-reserve``, ``os-unreserve``, ``os-initialize_connection``,
``os-attach``, ``os-begin_detaching``, ``os-roll_detaching``,
``os-terminate_connection``, ``os-detach`` and, for admins,
``os-force_detach``. Each answers 202 with no body, as in Cinder, but
``os-initialize_connection`` (200 with the connection info); they work
on the same
attachment records as the attachments API
(:mod:`cinder_ma.volume.actions`), so the volume's status stays derived
from them. An unknown action is a 400.

Managing a volume: ``os-extend`` (202; an in-use volume from 3.42 only, as
in Cinder, and only where its backend extends online), ``os-set_bootable``
(200), ``os-retype`` (202; cinder_ma does not migrate, so the new type
must suit the volume's backend) and, for admins, ``os-force_delete``
(202: detach everything, then delete) and ``os-reset_status`` (202;
within the derived-status rule, :mod:`cinder_ma.volume.reset`). The
rules and their messages are
the service's (:mod:`cinder_ma.volume.api`).

``os-detach`` takes the ``attachment_id`` to act on (and from 3.50, with
the extension ``cinder-ma-multiattach``, ``os-begin_detaching`` and
``os-roll_detaching`` take ``cinder-ma-multiattach:attachment_id``);
without it the volume must have exactly one such attachment, else a 400
that says so.

``revert`` (3.40, 202): the volume's data back to its latest snapshot,
refused (409, as in Cinder) while the volume is not available: attached,
say.

``os-extend_volume_completion`` (3.71, admins and services) finishes an
online extend left waiting for the compute service; none ever waits
here, so it is a 400 (see
:func:`cinder_ma.volume.api.extend_volume_completion`).

``os-force_detach`` accepts Cinder's ``connector`` but terminates the
connection recorded with the attachment.
"""

from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from cinder_ma.api import actions
from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api.schemas import volume_actions as schemas
from cinder_ma.api import validation
from cinder_ma import exception
from cinder_ma import status as vstatus
from cinder_ma.volume import actions as volume_actions
from cinder_ma.volume import api as volume_api
from cinder_ma.volume import attachments as volume_attachments
from cinder_ma.volume import reset as volume_reset
from cinder_ma.volume import snapshots as snapshot_api


def _checked_id(volume_id):
    """Like Cinder, an id that is no UUID names no volume."""
    if not uuidutils.is_uuid_like(volume_id):
        raise exception.VolumeNotFound(volume_id=volume_id)
    return volume_id


def _attachment_id(req, body, action):
    """The attachment of os-begin_detaching/os-roll_detaching (from 3.50,
    extension cinder-ma-multiattach)."""
    if not req.api_version.matches(mv.MULTIATTACH_VOLUMES):
        return None
    return (body[action] or {}).get(schemas.ATTACHMENT_ID)


@expose.expose(status=202)
def reserve(req, project_id, volume_id):
    """``os-reserve``: hold the volume for an attach to come."""
    volume_actions.reserve(req.context, _checked_id(volume_id))


@expose.expose(status=202)
def unreserve(req, project_id, volume_id):
    """``os-unreserve``: drop the reservations of os-reserve never
    connected or attached."""
    volume_actions.unreserve(req.context, _checked_id(volume_id))


@expose.expose()
@validation.schema(schemas.initialize_connection)
def initialize_connection(req, project_id, volume_id, body):
    """``os-initialize_connection``: connect the volume to the host of
    ``connector``; 200 with Cinder's nested shape,
    ``{"connection_info": {"driver_volume_type": ..., "data": {...}}}``.
    """
    connector = body['os-initialize_connection']['connector']
    info = volume_actions.initialize_connection(
        req.context, _checked_id(volume_id), connector)
    return {'connection_info': info}


@expose.expose(status=202)
@validation.schema(schemas.terminate_connection)
def terminate_connection(req, project_id, volume_id, body):
    """``os-terminate_connection``: end the connection of the host of
    ``connector`` (kept while another attachment there uses it)."""
    volume_actions.terminate_connection(
        req.context, _checked_id(volume_id),
        body['os-terminate_connection']['connector'])


@expose.expose(status=202)
@validation.schema(schemas.attach)
def attach(req, project_id, volume_id, body):
    """``os-attach``: record that an instance (or a host) attached the
    volume at ``mountpoint``."""
    params = body['os-attach']
    volume_actions.attach(
        req.context, _checked_id(volume_id),
        instance_uuid=params.get('instance_uuid'),
        host_name=params.get('host_name'),
        mountpoint=params['mountpoint'],
        mode=params.get('mode', 'rw'))


@expose.expose(status=202)
@validation.schema(schemas.any_value,
                   max_version=mv.prior(mv.MULTIATTACH_VOLUMES))
@validation.schema(schemas.begin_detaching_v350,
                   min_version=mv.MULTIATTACH_VOLUMES)
def begin_detaching(req, project_id, volume_id, body):
    """``os-begin_detaching``: the consumer is about to detach the volume
    (which must be in-use; see :func:`cinder_ma.volume.actions.
    begin_detaching`)."""
    volume_actions.begin_detaching(
        req.context, _checked_id(volume_id),
        attachment_id=_attachment_id(req, body, 'os-begin_detaching'))


@expose.expose(status=202)
@validation.schema(schemas.any_value,
                   max_version=mv.prior(mv.MULTIATTACH_VOLUMES))
@validation.schema(schemas.roll_detaching_v350,
                   min_version=mv.MULTIATTACH_VOLUMES)
def roll_detaching(req, project_id, volume_id, body):
    """``os-roll_detaching``: the detach did not happen; never refused
    for the volume's status."""
    volume_actions.roll_detaching(
        req.context, _checked_id(volume_id),
        attachment_id=_attachment_id(req, body, 'os-roll_detaching'))


@expose.expose(status=202)
@validation.schema(schemas.detach)
def detach(req, project_id, volume_id, body):
    """``os-detach``: detach one attachment (named, or the only one)."""
    params = body['os-detach'] or {}
    volume_actions.detach(req.context, _checked_id(volume_id),
                          attachment_id=params.get('attachment_id'))


@expose.expose(status=202)
@validation.schema(schemas.force_detach)
def force_detach(req, project_id, volume_id, body):
    """``os-force_detach`` (admins): detach an attachment whoever made
    it. As in Cinder, an attachment the volume does not have is a 400."""
    params = body['os-force_detach']
    try:
        volume_attachments.force_detach(
            req.context, _checked_id(volume_id),
            attachment_id=params.get('attachment_id') or None)
    except exception.VolumeAttachmentNotFound as exc:
        raise webob.exc.HTTPBadRequest(
            explanation='Error force detaching volume - '
                        'VolumeAttachmentNotFound: %s' % exc)


@expose.expose(status=202)
@validation.schema(schemas.extend)
def extend(req, project_id, volume_id, body):
    """``os-extend``: grow the volume to ``new_size`` GiB.

    Below 3.42 an in-use volume is refused here, as Cinder refuses it;
    from 3.42 the service decides (online extend of its backend).
    """
    volume_id = _checked_id(volume_id)
    new_size = int(body['os-extend']['new_size'])
    if not req.api_version.matches(mv.VOLUME_EXTEND_INUSE):
        volume = volume_api.get_volume(req.context, volume_id)
        if volume.status == vstatus.IN_USE:
            raise exception.InvalidVolume(
                reason='volume %s is in-use; extending an attached volume '
                       'needs microversion %s or later' % (
                           volume.id, mv.VOLUME_EXTEND_INUSE))
    volume_api.extend(req.context, volume_id, new_size)


@expose.expose()
@validation.schema(schemas.set_bootable)
def set_bootable(req, project_id, volume_id, body):
    """``os-set_bootable``: 200 with no body, as in Cinder."""
    bootable = strutils.bool_from_string(
        body['os-set_bootable']['bootable'], strict=True)
    volume_api.set_bootable(req.context, _checked_id(volume_id), bootable)


@expose.expose(status=202)
@validation.schema(schemas.update_readonly_flag)
def update_readonly_flag(req, project_id, volume_id, body):
    """``os-update_readonly_flag``: a read-only volume's attachments are
    ``ro`` whatever mode is asked (202, as in Cinder)."""
    readonly = strutils.bool_from_string(
        body['os-update_readonly_flag']['readonly'], strict=True)
    volume_actions.update_readonly_flag(req.context, _checked_id(volume_id),
                                        readonly)


@expose.expose(status=202)
@validation.schema(schemas.retype)
def retype(req, project_id, volume_id, body):
    """``os-retype``: give the volume another type (name or id)."""
    params = body['os-retype']
    volume_api.retype(req.context, _checked_id(volume_id),
                      params['new_type'],
                      migration_policy=params.get('migration_policy') or
                      'never')


@expose.expose(status=202)
def force_delete(req, project_id, volume_id):
    """``os-force_delete`` (admins): delete whatever the status,
    detaching the volume first."""
    volume_actions.force_delete(req.context, _checked_id(volume_id))


@expose.expose(status=202, min_version=mv.EXTEND_VOLUME_COMPLETION)
@validation.schema(schemas.extend_volume_completion,
                   min_version=mv.EXTEND_VOLUME_COMPLETION)
def extend_volume_completion(req, project_id, volume_id, body):
    """``os-extend_volume_completion`` (3.71): ``{"error": bool}``."""
    params = body['os-extend_volume_completion'] or {}
    error = strutils.bool_from_string(params.get('error', False),
                                      strict=True)
    volume_api.extend_volume_completion(req.context, _checked_id(volume_id),
                                        error=error)


@expose.expose(status=202)
@validation.schema(schemas.reset_status,
                   max_version=mv.prior(mv.MULTIATTACH_VOLUMES))
@validation.schema(schemas.reset_status_v350,
                   min_version=mv.MULTIATTACH_VOLUMES)
def reset_status(req, project_id, volume_id, body):
    """``os-reset_status`` (admins): status, attach_status and
    migration_status, as in Cinder, refused where they would contradict
    the attachments; from 3.50 ``cinder-ma-multiattach:attachment_id``
    resets one attachment (see :mod:`cinder_ma.volume.reset`)."""
    params = body['os-reset_status']
    volume_reset.reset_status(
        req.context, _checked_id(volume_id), status=params.get('status'),
        attach_status=params.get('attach_status'),
        migration_status=params.get('migration_status'),
        attachment_id=params.get(schemas.ATTACHMENT_ID))


@expose.expose(status=202, min_version=mv.VOLUME_REVERT)
@validation.schema(schemas.revert, min_version=mv.VOLUME_REVERT)
def revert(req, project_id, volume_id, body):
    """``revert`` (3.40): the volume's data back to its latest snapshot
    (see :func:`cinder_ma.volume.snapshots.revert`)."""
    snapshot_api.revert(req.context, _checked_id(volume_id),
                        body['revert'].get('snapshot_id'))


ACTIONS = {
    'revert': revert,
    'os-reserve': reserve,
    'os-unreserve': unreserve,
    'os-initialize_connection': initialize_connection,
    'os-attach': attach,
    'os-terminate_connection': terminate_connection,
    'os-begin_detaching': begin_detaching,
    'os-roll_detaching': roll_detaching,
    'os-detach': detach,
    'os-force_detach': force_detach,
    'os-extend': extend,
    'os-set_bootable': set_bootable,
    'os-retype': retype,
    'os-update_readonly_flag': update_readonly_flag,
    'os-force_delete': force_delete,
    'os-extend_volume_completion': extend_volume_completion,
    'os-reset_status': reset_status,
}

# POST /v3/{project_id}/volumes/{id}/action
action = expose.expose(status=202)(actions.dispatcher(ACTIONS, 'action'))
