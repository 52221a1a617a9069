"""Tasks on a volume's storage and record.

Driver tasks get the driver at construction and the volume as a frozen
:class:`~cinder_ma.volume.drivers.base.VolumeRef` from the flow's store;
record tasks change the volume row with compare-and-swap updates.
"""

from oslo_log import log as logging
from taskflow import task
from taskflow.types import failure as tf_failure

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import quotas as quota_db
from cinder_ma import exception
from cinder_ma.volume import status as vstatus

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
    """'creating' -> 'available'; revert: back to 'creating'."""

    def execute(self, context, volume_id):
        db_api.volume_update(context, volume_id,
                             {'status': vstatus.AVAILABLE,
                              'error_reason': None},
                             expected={'status': vstatus.CREATING},
                             children=False)

    def revert(self, context, volume_id, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        try:
            db_api.volume_update(context, volume_id,
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
        quota_db.retrying(context, db_api.volume_destroy, context,
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
    failed extend gives them back."""

    def execute(self, context, volume_id, volume, new_size):
        """Nothing to do: the charge was made with the request."""

    def revert(self, context, volume_id, volume, new_size, *args,
               **kwargs):
        try:
            quota_db.release_extend(context, volume_id,
                                    new_size - volume.size)
        except Exception:
            LOG.exception('The quota charged for the extend of volume %s '
                          'was not given back', volume_id)


class FinishExtend(task.Task):
    """'extending' -> derived status, with the new size."""

    def execute(self, context, volume_id, new_size):
        attachment_db.volume_leave_status(
            context, volume_id, vstatus.EXTENDING,
            {'size': new_size, 'error_reason': None, 'target_size': None})
