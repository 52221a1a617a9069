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

"""Tasks on snapshots: their storage and records, volumes made from them
or from other volumes, and a volume reverted to one.

Driver tasks get the driver at construction, the snapshot as a frozen
:class:`~cinder_ma.volume.drivers.base.SnapshotRef` and volumes as
:class:`~cinder_ma.volume.drivers.base.VolumeRef` from the store; record
tasks change rows with compare-and-swap updates.
"""

from oslo_log import log as logging
from taskflow import task
from taskflow.types import failure as tf_failure

from cinder_ma.db import quotas as quota_db
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import work as work_db
from cinder_ma import exception
from cinder_ma import status as vstatus
from cinder_ma.volume.drivers import base as driver_base

LOG = logging.getLogger(__name__)


class _DriverTask(task.Task):

    def __init__(self, driver, **kwargs):
        super().__init__(**kwargs)
        self.driver = driver


class CreateSnapshotOnBackend(_DriverTask):
    """Take the snapshot; revert deletes it. Provides ``paused``: how
    long the driver held the writes of the volume's connections, in
    seconds (None for a driver without ``consistent_snapshots``)."""

    default_provides = 'paused'

    def execute(self, snapshot):
        return self.driver.create_snapshot(snapshot)

    def revert(self, snapshot, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        try:
            self.driver.delete_snapshot(snapshot)
        except Exception:
            LOG.exception('Could not delete the storage of snapshot %s '
                          'while reverting its creation', snapshot.id)


class MarkSnapshotAvailable(task.Task):
    """'creating' -> 'available' (progress 100%), giving up the flow's
    ``claim`` in the same UPDATE; revert: back to 'creating'."""

    def execute(self, context, snapshot_id, claim=None):
        values = {'status': vstatus.SNAPSHOT_AVAILABLE, 'progress': '100%',
                  'error_reason': None}
        if claim is not None:
            values.update(work_db.release_values('snapshot', claim))
        snapshot_db.snapshot_change(
            context, snapshot_id, values,
            expected={'status': vstatus.SNAPSHOT_CREATING})

    def revert(self, context, snapshot_id, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        try:
            snapshot_db.snapshot_change(
                context, snapshot_id, {'status': vstatus.SNAPSHOT_CREATING},
                expected={'status': vstatus.SNAPSHOT_AVAILABLE})
        except Exception as exc:
            LOG.warning('Snapshot %s not set back to creating: %s',
                        snapshot_id, exc)


class DeleteSnapshotOnBackend(_DriverTask):
    """Delete the snapshot's storage (idempotent); cannot be undone."""

    def execute(self, snapshot):
        self.driver.delete_snapshot(snapshot)

    def revert(self, snapshot, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        LOG.warning('The storage of snapshot %s is deleted but its '
                    'deletion did not complete; deleting it again will '
                    'finish it', snapshot.id)


class DestroySnapshotRecord(task.Task):
    """Soft-delete the snapshot's row, giving its quota back in the same
    transaction. The last task of its flow: its revert does nothing."""

    def execute(self, context, snapshot_id):
        try:
            quota_db.retrying(context, snapshot_db.snapshot_destroy,
                              context, snapshot_id,
                              quota=quota_db.release_snapshot)
        except exception.SnapshotNotFound:
            LOG.info('Record of snapshot %s was already deleted',
                     snapshot_id)

    def revert(self, context, snapshot_id, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure):
            LOG.warning('Record of snapshot %s was deleted before its flow '
                        'failed; it is not restored', snapshot_id)


class DeleteSnapshotsOfVolume(_DriverTask):
    """Delete the snapshots of a volume being deleted with them
    (``cascade``), storage then record, each (idempotent: a run after a
    crash deletes those left). Cannot be undone: revert logs."""

    def execute(self, context, volume_id, volume):
        for snapshot in snapshot_db.snapshots_of_volume(context, volume_id):
            ref = driver_base.SnapshotRef.for_snapshot(
                snapshot.id, volume, snapshot.volume_size)
            self.driver.delete_snapshot(ref)
            try:
                quota_db.retrying(context, snapshot_db.snapshot_destroy,
                                  context, snapshot.id,
                                  quota=quota_db.release_snapshot)
            except exception.SnapshotNotFound:
                continue
            LOG.info('Deleted snapshot %s with its volume %s', snapshot.id,
                     volume_id)

    def revert(self, context, volume_id, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        LOG.warning('The snapshots of volume %s are deleted but its '
                    'deletion did not complete', volume_id)


class CreateVolumeFromSnapshot(_DriverTask):
    """Create the volume's storage from the snapshot's; revert deletes
    it."""

    def execute(self, volume, snapshot):
        self.driver.create_volume_from_snapshot(volume, snapshot)

    def revert(self, volume, result, *args, **kwargs):
        _delete_new_volume(self.driver, volume, result)


class CloneVolume(_DriverTask):
    """Create the volume's storage as a copy of the volume ``source``;
    revert deletes it."""

    def execute(self, volume, source):
        self.driver.create_cloned_volume(volume, source)

    def revert(self, volume, result, *args, **kwargs):
        _delete_new_volume(self.driver, volume, result)


def _delete_new_volume(driver, volume, result):
    if isinstance(result, tf_failure.Failure):
        return
    try:
        driver.delete_volume(volume)
    except Exception:
        LOG.exception('Could not delete the storage of volume %s while '
                      'reverting its creation; it is left on %s', volume.id,
                      volume.host)


class RevertVolumeOnBackend(_DriverTask):
    """Make the volume's data the snapshot's again (idempotent); the old
    data is gone, so revert only logs."""

    def execute(self, volume, snapshot):
        self.driver.revert_to_snapshot(volume, snapshot)

    def revert(self, volume, snapshot, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        LOG.warning('Volume %s holds the data of snapshot %s but its revert '
                    'did not complete', volume.id, snapshot.id)


class FinishRevert(task.Task):
    """Volume 'reverting' -> 'available' and snapshot 'restoring' ->
    'available', giving up the flow's claim on the volume; the last
    task."""

    def execute(self, context, volume_id, snapshot_id, claim=None):
        release = None
        if claim is not None:
            release = work_db.release_values('volume', claim)
        snapshot_db.revert_end(context, volume_id, snapshot_id,
                               vstatus.AVAILABLE, release=release)

    def revert(self, context, volume_id, result, *args, **kwargs):
        if not isinstance(result, tf_failure.Failure):
            LOG.warning('Revert of volume %s was recorded before its flow '
                        'failed', volume_id)
