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

"""Tasks on a volume's storage and record.

Driver tasks get the driver at construction and the volume as a frozen
:class:`~cinder_ma.volume.drivers.base.VolumeRef` from the flow's store;
record tasks change the volume row with compare-and-swap updates.
"""

from oslo_log import log as logging
import oslo_messaging as messaging
from taskflow import task
from taskflow.types import failure as tf_failure

from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import quotas as quota_db
from cinder_ma.db import volumes as volume_db
from cinder_ma.db import work as work_db
from cinder_ma import exception
from cinder_ma import status as vstatus

LOG = logging.getLogger(__name__)


class _DriverTask(task.Task):

    def __init__(self, driver, **kwargs):
        super().__init__(**kwargs)
        self.driver = driver


class CreateVolumeOnBackend(_DriverTask):
    """Create the volume's storage; revert deletes it."""

    def execute(self, volume):
        self.driver.create_volume(volume)

    def revert(self, volume, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            # A failed create leaves nothing behind (driver contract), and
            # whatever is there under this name is not ours to delete.
            return
        try:
            self.driver.delete_volume(volume)
        except Exception:
            LOG.exception('Could not delete the storage of volume %s while '
                          'reverting its creation; it is left on %s',
                          volume.id, volume.host)
            return
        LOG.info('Deleted the storage of volume %s (creation reverted)',
                 volume.id)


class DeleteVolumeOnBackend(_DriverTask):
    """Delete the volume's storage (idempotent); cannot be undone."""

    def execute(self, volume):
        self.driver.delete_volume(volume)

    def revert(self, volume, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        LOG.warning('The storage of volume %s is deleted but its deletion '
                    'did not complete; deleting it again will finish it',
                    volume.id)


class MarkVolumeAvailable(task.Task):
    """'creating' -> 'available'; revert: back to 'creating'.

    Given the ``claim`` the flow runs under, it gives the claim up in the
    same UPDATE (the flow's last write: the manager need not release it
    in a transaction of its own, and a delete asked for as soon as the
    volume is available finds it free).
    """

    def execute(self, context, volume_id, claim=None):
        values = {'status': vstatus.AVAILABLE, 'error_reason': None}
        if claim is not None:
            values.update(work_db.release_values('volume', claim))
        volume_db.volume_change(context, volume_id, values,
                                expected={'status': vstatus.CREATING})

    def revert(self, context, volume_id, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        try:
            volume_db.volume_update(context, volume_id,
                                    {'status': vstatus.CREATING},
                                    expected={'status': (vstatus.AVAILABLE,
                                                         vstatus.CREATING)})
        except (exception.VolumeNotFound, exception.Conflict) as exc:
            LOG.warning('Volume %s not set back to creating: %s', volume_id,
                        exc)
        except Exception:
            LOG.exception('Volume %s not set back to creating', volume_id)


class DestroyVolumeRecord(task.Task):
    """Soft-delete the volume's row (and metadata).

    The last task of the delete flow: nothing after it can fail, so its
    revert (resurrecting the row) is never needed and does nothing.
    """

    def execute(self, context, volume_id):
        # The project's quota usage goes down in the same transaction.
        quota_db.retrying(context, volume_db.volume_destroy, context,
                          volume_id, quota=quota_db.release_volume)

    def revert(self, context, volume_id, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure):
            LOG.warning('Record of volume %s was deleted before its flow '
                        'failed; it is not restored', volume_id)


class ExtendVolumeOnBackend(_DriverTask):
    """Grow the volume's storage; it cannot be shrunk back, so revert only
    logs."""

    def execute(self, volume, new_size):
        self.driver.extend_volume(volume, new_size)

    def revert(self, volume, new_size, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        LOG.warning('The storage of volume %s was grown to %s GiB but its '
                    'extend did not complete; its record keeps the old '
                    'size', volume.id, new_size)


class ReleaseExtendQuotaOnRevert(task.Task):
    """The API charged the project's gigabytes quota for the extend; a
    failed extend gives them back.

    An extend already recorded (the volume left 'extending' with its new
    size: a task after FinishExtend failed) keeps them.
    """

    def execute(self, context, volume_id, volume, new_size):
        """Nothing to do: the charge was made with the request."""

    def revert(self, context, volume_id, volume, new_size, *args,
               **kwargs):
        try:
            current = volume_db.volume_get(context, volume_id,
                                           children=False)
            if current.status != vstatus.EXTENDING and \
                    current.size >= new_size:
                LOG.warning('Volume %s was extended to %s GiB before its '
                            'flow failed; the quota stays charged',
                            volume_id, new_size)
                return
            quota_db.release_extend(context, volume_id,
                                    new_size - volume.size)
        except Exception:
            LOG.exception('The quota charged for the extend of volume %s '
                          'was not given back', volume_id)


def _reason(exc):
    """One line saying why a call failed (no remote traceback)."""
    if isinstance(exc, messaging.RemoteError):
        return '%s: %s' % (exc.exc_type, exc.value)
    return str(exc) or type(exc).__name__


def resize_targets(volume):
    """The attachments of ``volume`` (read with its children) whose
    instance a manager resizes after an extend: attached through the
    manager of their host (``manager_host``), in a stable order.
    Attachments of external consumers have no host manager to call: the
    connection info and the notification tell them (FinishExtend, then
    the manager), and Nova's event its instances
    (:class:`~cinder_ma.manager.tasks.nova.TellNovaVolumeExtended`)."""
    return sorted((a for a in volume.volume_attachment
                   if a.manager_host and
                   a.attach_status == vstatus.ATTACH_ATTACHED),
                  key=lambda a: (a.manager_host, a.id))


#: What a ResizeAttachedDisk provides: this prefix and the attachment id.
RESIZED_PREFIX = 'not_resized.'


class ResizeAttachedDisk(task.Task):
    """Have the manager of the host holding one attachment made through
    it (an ``Attachment`` record of :func:`resize_targets`) make its
    instance see the new size: one RPC call (1.6). The extend flow runs
    one per attachment, in an unordered flow on a parallel engine, so
    that several hosts are called at once.

    The call is bounded: a manager that is down is not called
    (``[manager] service_down_time``), one that does not answer fails
    after ``[DEFAULT] rpc_response_timeout``, one too old (or a pin
    below 1.6) is not sent anything. None of these fails the task: it
    provides ``not_resized.<attachment id>``, the reason the instance was
    not told (None when it was), and logs it with its host. Attachments
    of external consumers have no host manager to call: the connection
    info and the notification tell them (FinishExtend, then the manager),
    and Nova's event its instances
    (:class:`~cinder_ma.manager.tasks.nova.TellNovaVolumeExtended`).

    Revert: nothing to undo (an instance that sees the grown storage is
    right).
    """

    def __init__(self, attachment, **kwargs):
        kwargs.setdefault('name', '%s.%s' % (type(self).__name__,
                                             attachment.id))
        kwargs.setdefault('provides', RESIZED_PREFIX + attachment.id)
        super().__init__(**kwargs)
        self.attachment = attachment

    def execute(self, manager_api, context, volume_id, new_size):
        attachment = self.attachment
        try:
            manager_api.resize_attachment(context, attachment.id,
                                          attachment.manager_host, new_size)
            reason = None
        except Exception as exc:
            reason = _reason(exc)
        values = {'volume': volume_id, 'size': new_size,
                  'attachment': attachment.id,
                  'instance': attachment.instance_uuid,
                  'host': attachment.manager_host, 'reason': reason}
        if reason is None:
            LOG.info('Extend of volume %(volume)s to %(size)s GiB: '
                     'instance %(instance)s on host %(host)s sees the '
                     'new size (attachment %(attachment)s)', values)
            return None
        LOG.error('Extend of volume %(volume)s to %(size)s GiB: '
                  'attachment %(attachment)s on host %(host)s was not '
                  'resized, instance %(instance)s still sees the old '
                  'size: %(reason)s', values)
        return '%s%d GiB not seen by instance %s on host %s: %s' % (
            attachment_db.EXTEND_REASON_PREFIX, new_size,
            attachment.instance_uuid, attachment.manager_host, reason)

    def revert(self, *args, **kwargs):
        """Nothing to undo."""


class FinishExtend(task.Task):
    """'extending' -> derived status, with the new size.

    In the same transaction the connection info of the volume's
    attachments records the new size, each attachment that a
    ResizeAttachedDisk of ``targets`` could not resize gets its reason as
    error_reason and the volume a summary of them as its own (None when
    every instance sees the new size).

    Provides ``not_resized``: ``{attachment id: reason}``.
    """

    default_provides = 'not_resized'

    def __init__(self, targets=(), **kwargs):
        kwargs.setdefault('requires', [RESIZED_PREFIX + attachment.id
                                       for attachment in targets])
        super().__init__(**kwargs)

    def execute(self, context, volume_id, new_size, **resized):
        not_resized = {name[len(RESIZED_PREFIX):]: reason
                       for name, reason in resized.items()
                       if reason is not None}
        reason = None
        if not_resized:
            reason = ('extend to %d GiB: the volume grew, but %d '
                      'attachment(s) made through a manager do not see '
                      'the new size: %s' % (
                          new_size, len(not_resized),
                          '; '.join('attachment %s: %s' % (
                              key, not_resized[key])
                              for key in sorted(not_resized))))
        attachment_db.volume_finish_extend(context, volume_id, new_size,
                                           not_resized, reason)
        return not_resized
