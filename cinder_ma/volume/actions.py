"""Legacy volume actions of attaching (before the attachments API).

os-reserve, os-unreserve, os-attach, os-begin_detaching,
os-roll_detaching and os-detach work on the same attachment records as the
attachments API, so that the volume's status stays derived from them.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from cinder_ma.db import attachments as attachment_db
from cinder_ma import exception
from cinder_ma.policies import attachments as attachment_policies
from cinder_ma.policies import volumes as volume_policies
from cinder_ma.volume import api as volume_api
from cinder_ma.volume import attachments
from cinder_ma.volume import status as vstatus

LOG = logging.getLogger(__name__)


def _volume(context, volume_id, action):
    return volume_api.get_volume(context, volume_id, action)


def _with_status(volume, *statuses):
    return [a for a in volume.volume_attachment
            if a.attach_status in statuses]


def reserve(context, volume_id):
    """os-reserve: hold the volume for an attach to come."""
    volume = _volume(context, volume_id, attachment_policies.CREATE)
    attachments._check_bootable(context, volume, None)
    return attachment_db.attachment_reserve(
        context, volume.id, None,
        max_attachments=attachments._max_attachments(context, volume))


def unreserve(context, volume_id):
    """os-unreserve: drop reservations that were never attached."""
    volume = _volume(context, volume_id, attachment_policies.DELETE)
    for attachment in _with_status(volume, vstatus.ATTACH_RESERVED):
        attachment_db.attachment_destroy(
            context, attachment.id, expected_status=vstatus.ATTACH_RESERVED)


def attach(context, volume_id, instance_uuid=None, host_name=None,
           mountpoint=None, mode='rw'):
    """os-attach: record that a consumer attached the volume.

    Uses the reservation of os-reserve (or one of the same instance) when
    there is one, else reserves now.
    """
    if mode not in attachments.MODES:
        raise exception.InvalidInput(
            reason='mode must be one of %s' % ', '.join(attachments.MODES))
    if not instance_uuid and not host_name:
        raise exception.InvalidInput(
            reason='os-attach needs instance_uuid or host_name')
    volume = _volume(context, volume_id, attachment_policies.COMPLETE)
    reserved = [a for a in _with_status(volume, vstatus.ATTACH_RESERVED)
                if a.instance_uuid in (None, instance_uuid)]
    # A reservation of os-reserve (no instance yet) was checked without an
    # instance: check again now that the instance is known.
    attachments._check_bootable(context, volume, instance_uuid)
    if reserved:
        attachment = reserved[0]
    else:
        attachment = attachment_db.attachment_reserve(
            context, volume.id, instance_uuid, attach_mode=mode,
            max_attachments=attachments._max_attachments(context, volume))
    return attachment_db.attachment_update(
        context, attachment.id,
        {'attach_status': vstatus.ATTACH_ATTACHED,
         'instance_uuid': instance_uuid, 'attached_host': host_name,
         'mountpoint': mountpoint, 'attach_mode': mode,
         'attach_time': timeutils.utcnow()},
        expected_status=(vstatus.ATTACH_RESERVED,
                         vstatus.ATTACH_ATTACHING))


def _only(volume, attachment_id, statuses, action):
    candidates = _with_status(volume, *statuses)
    if attachment_id is not None:
        for attachment in candidates:
            if attachment.id == attachment_id:
                return attachment
        raise exception.InvalidVolume(
            reason='volume %s has no attachment %s that is %s' % (
                volume.id, attachment_id, ' or '.join(statuses)))
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise exception.InvalidVolume(
            reason='volume %s has no attachment that is %s' % (
                volume.id, ' or '.join(statuses)))
    raise exception.InvalidVolume(
        reason='volume %s has %d attachments (%s); %s needs the '
               'attachment_id of the one to act on' % (
                   volume.id, len(candidates),
                   ', '.join(a.id for a in candidates), action))


def begin_detaching(context, volume_id, attachment_id=None):
    volume = _volume(context, volume_id, attachment_policies.DELETE)
    attachment = _only(volume, attachment_id, (vstatus.ATTACH_ATTACHED,),
                       'os-begin_detaching')
    return attachment_db.attachment_update(
        context, attachment.id, {'attach_status': vstatus.ATTACH_DETACHING},
        expected_status=vstatus.ATTACH_ATTACHED)


def roll_detaching(context, volume_id, attachment_id=None):
    volume = _volume(context, volume_id, attachment_policies.DELETE)
    attachment = _only(volume, attachment_id, (vstatus.ATTACH_DETACHING,),
                       'os-roll_detaching')
    return attachment_db.attachment_update(
        context, attachment.id, {'attach_status': vstatus.ATTACH_ATTACHED},
        expected_status=vstatus.ATTACH_DETACHING)


def detach(context, volume_id, attachment_id=None):
    """os-detach: detach one attachment (named, or the only one)."""
    volume = _volume(context, volume_id, attachment_policies.DELETE)
    attachment = _only(volume, attachment_id,
                       vstatus.LIVE_ATTACH_STATUSES, 'os-detach')
    attachments.delete_attachment(context, attachment.id)
    LOG.info('Detached attachment %s of volume %s (os-detach)',
             attachment.id, volume.id)


def force_delete(context, volume_id):
    """os-force_delete (admin): detach every attachment, then delete.

    Attachments made through a cinder_ma manager go through that host's
    detach flow (waited for); those of external consumers have their
    connections terminated. Any failure stops here, before the delete,
    with the attachment in error_detaching.
    """
    volume = _volume(context, volume_id, volume_policies.FORCE_DELETE)
    live = [a for a in volume.volume_attachment
            if a.attach_status in vstatus.LIVE_ATTACH_STATUSES +
            (vstatus.ATTACH_ERROR_ATTACHING,)]
    for attachment in live:
        LOG.warning('Force-delete of volume %s: detaching attachment %s '
                    '(instance %s)', volume.id, attachment.id,
                    attachment.instance_uuid)
        attachments.delete_attachment(context, attachment.id, force=True,
                                      wait=True)
    volume_api.delete_volume(context, volume.id, force=True)
