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

"""``os-reset_status`` (admins): set a volume's or an attachment's status
by hand, as Cinder's admin action does, within cinder_ma's rule that a
volume's attachment-derived status is :func:`cinder_ma.status.derive`
of its attachments.

So, unlike Cinder:

* a volume may be reset to an attachment-derived status (``available``,
  ``in-use``, ``attaching``, ``detaching``, ``error_detaching``) only when
  its attachments give that status: ``available`` while it has live
  attachments is refused with a message naming them;
* ``attach_status: detached`` never wipes attachments (Cinder's
  ``reset-state --attach-status detached`` deletes every attachment of a
  shared volume, leaving disks plugged in): it is refused while the volume
  has live attachments; detach them one by one through their host
  (``os-force_detach`` with ``attachment_id``, or ``cinder-ma-manage
  attachment detach``);
* from 3.50, ``cinder-ma-multiattach:attachment_id`` resets that one
  attachment's
  ``attach_status``, and the volume's status is derived again in the same
  transaction. ``detached`` is refused there too, for the same reason;
* there is no volume migration, so ``migration_status`` may only be
  ``none`` (or null).
"""

from oslo_log import log as logging

from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import maintenance
from cinder_ma import exception
from cinder_ma import notifications
from cinder_ma.policies import volumes as volume_policies
from cinder_ma import status as vstatus
from cinder_ma.volume import api as volume_api

LOG = logging.getLogger(__name__)


def _live(volume):
    return [a for a in volume.volume_attachment
            if a.attach_status in vstatus.LIVE_ATTACH_STATUSES]


def _describe(attachments):
    return ', '.join('%s (%s)' % (a.id, a.attach_status)
                     for a in attachments)


def _check_volume_attach_status(volume, attach_status):
    live = _live(volume)
    if attach_status == 'detached' and live:
        raise exception.InvalidInput(
            reason='volume %s has live attachments %s: resetting it to '
                   'detached would leave them connected. Detach each one '
                   'through its host (os-force_detach with attachment_id, '
                   'or cinder-ma-manage attachment detach)' % (
                       volume.id, _describe(live)))
    if attach_status == 'attached' and not any(
            a.attach_status == vstatus.ATTACH_ATTACHED for a in live):
        raise exception.InvalidInput(
            reason='volume %s has no attached attachment; an attachment '
                   'cannot be made by a status reset' % volume.id)


def _reset_attachment(context, volume, attachment_id, attach_status):
    if attachment_id not in {a.id for a in volume.volume_attachment}:
        raise exception.VolumeAttachmentNotFound(
            filter='attachment_id = %s, volume_id = %s' % (attachment_id,
                                                           volume.id))
    if attach_status == vstatus.ATTACH_DETACHED:
        raise exception.InvalidInput(
            reason='an attachment is not reset to detached: that would '
                   'leave its disk and connection on the host. Detach it '
                   'through its host (os-force_detach with attachment_id, '
                   'or cinder-ma-manage attachment detach)')
    updated = attachment_db.attachment_update(
        context, attachment_id, {'attach_status': attach_status,
                                 # Also when it stays attached.
                                 'detach_begun_at': None})
    LOG.warning('Attachment %s of volume %s reset to %s by %s',
                attachment_id, volume.id, attach_status, context.user_id)
    return updated


def reset_status(context, volume_id, status=None, attach_status=None,
                 migration_status=None, attachment_id=None):
    """Reset a volume's status, or an attachment's (``attachment_id``).

    :raises InvalidInput: a combination that would break the derived
        status rule, or leave a connection behind (400).
    :raises Conflict: the volume changed meanwhile (409).
    """
    volume = volume_api.get_volume(context, volume_id,
                                   volume_policies.RESET_STATUS)
    if migration_status not in (None, 'none'):
        raise exception.InvalidInput(
            reason='cinder_ma does not migrate volumes: migration_status '
                   'can only be none')
    if attachment_id is not None:
        if status is not None:
            raise exception.InvalidInput(
                reason='reset either an attachment (attachment_id with '
                       'attach_status) or the volume (status), not both: '
                       'the volume\'s status follows its attachments')
        if attach_status is None:
            raise exception.InvalidInput(
                reason='attachment_id needs an attach_status')
        _reset_attachment(context, volume, attachment_id, attach_status)
    else:
        if attach_status is not None:
            _check_volume_attach_status(volume, attach_status)
        if status is not None:
            maintenance.volume_reset_status(context, volume.id, status,
                                            volume.status)
            LOG.warning('Volume %s reset from %s to %s by %s', volume.id,
                        volume.status, status, context.user_id)
    notifications.notify(context, 'volume.reset_status', {
        'volume_id': volume.id, 'status': status,
        'attach_status': attach_status, 'attachment_id': attachment_id})
