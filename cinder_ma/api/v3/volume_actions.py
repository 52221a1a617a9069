"""Actions of volumes: ``POST /v3/{project_id}/volumes/{id}/action``, as
Cinder's ``cinder/api/contrib/volume_actions.py`` and
``admin_actions.py``.

The legacy way of attaching, from before the attachments API:
``os-reserve``, ``os-unreserve``, ``os-attach``, ``os-begin_detaching``,
``os-roll_detaching``, ``os-detach`` and, for admins, ``os-force_detach``.
Each answers 202 with no body, as in Cinder; they work on the same
attachment records as the attachments API
(:mod:`cinder_ma.volume.actions`), so the volume's status stays derived
from them. An unknown action is a 400.

Managing a volume: ``os-extend`` (202; an in-use volume from 3.42 only, as
in Cinder, and only where its backend extends online), ``os-set_bootable``
(200), ``os-retype`` (202; cinder_ma does not migrate, so the new type
must suit the volume's backend) and, for admins, ``os-force_delete``
(202: detach everything, then delete). The rules and their messages are
the service's (:mod:`cinder_ma.volume.api`).

``os-detach`` (and from 3.55 ``os-begin_detaching`` and
``os-roll_detaching``) takes the ``attachment_id`` to act on; without it
the volume must have exactly one such attachment, else a 400 that says
so. ``os-force_detach`` accepts Cinder's ``connector`` but terminates the
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
from cinder_ma.volume import actions as volume_actions
from cinder_ma.volume import api as volume_api
from cinder_ma.volume import attachments as volume_attachments
from cinder_ma.volume import status as vstatus


def _checked_id(volume_id):
    """Like Cinder, an id that is no UUID names no volume."""
    if not uuidutils.is_uuid_like(volume_id):
        raise exception.VolumeNotFound(volume_id=volume_id)
    return volume_id


def _attachment_id(req, body, action):
    """The attachment_id of os-begin_detaching/os-roll_detaching (3.55)."""
    if not req.api_version.matches(mv.ATTACH_THROUGH_MANAGER):
        return None
    return (body[action] or {}).get('attachment_id')


@expose.expose(status=202)
def reserve(req, project_id, volume_id):
    """``os-reserve``: hold the volume for an attach to come."""
    volume_actions.reserve(req.context, _checked_id(volume_id))


@expose.expose(status=202)
def unreserve(req, project_id, volume_id):
    """``os-unreserve``: drop the reservations never attached."""
    volume_actions.unreserve(req.context, _checked_id(volume_id))


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
                   max_version=mv.prior(mv.ATTACH_THROUGH_MANAGER))
@validation.schema(schemas.begin_detaching_v355,
                   min_version=mv.ATTACH_THROUGH_MANAGER)
def begin_detaching(req, project_id, volume_id, body):
    """``os-begin_detaching``: an attached attachment is detaching."""
    volume_actions.begin_detaching(
        req.context, _checked_id(volume_id),
        attachment_id=_attachment_id(req, body, 'os-begin_detaching'))


@expose.expose(status=202)
@validation.schema(schemas.any_value,
                   max_version=mv.prior(mv.ATTACH_THROUGH_MANAGER))
@validation.schema(schemas.roll_detaching_v355,
                   min_version=mv.ATTACH_THROUGH_MANAGER)
def roll_detaching(req, project_id, volume_id, body):
    """``os-roll_detaching``: a detaching attachment is attached again."""
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


ACTIONS = {
    'os-reserve': reserve,
    'os-unreserve': unreserve,
    'os-attach': attach,
    'os-begin_detaching': begin_detaching,
    'os-roll_detaching': roll_detaching,
    'os-detach': detach,
    'os-force_detach': force_detach,
    'os-extend': extend,
    'os-set_bootable': set_bootable,
    'os-retype': retype,
    'os-force_delete': force_delete,
}

# POST /v3/{project_id}/volumes/{id}/action
action = expose.expose(status=202)(actions.dispatcher(ACTIONS, 'action'))
