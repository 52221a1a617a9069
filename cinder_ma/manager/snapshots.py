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

"""The manager's endpoints of snapshots (RPC API 1.7): take, delete, and
revert a volume to one, each as a flow on TaskFlow's engine under the
work claim of its row; and what a create of a volume from a snapshot or
a source volume copies.

A mixin of :class:`cinder_ma.manager.manager.Manager`, which provides
the backends, the claims (``_claimed``, ``_claim_given_up``) and the
volume helpers (``_backend``, ``_load``) it uses.
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager import flows
from cinder_ma.manager.flows import create_snapshot as snapshot_create_flow
from cinder_ma.manager.flows import create_volume as create_flow
from cinder_ma.manager.flows import delete_snapshot as snapshot_delete_flow
from cinder_ma.manager.flows import revert_volume as revert_flow
from cinder_ma import notifications
from cinder_ma import status as vstatus
from cinder_ma.volume.drivers import base as driver_base

LOG = logging.getLogger(__name__)

#: Outcomes a caller can expect, not failures of the manager.
EXPECTED = (exception.VolumeNotFound, exception.Conflict,
            exception.InvalidVolume, exception.InvalidInput,
            exception.DriverError, exception.SnapshotNotFound,
            exception.InvalidSnapshot)


def volume_ref(volume, qos=None):
    """The VolumeRef drivers get for a volume row (as
    :func:`cinder_ma.manager.manager.volume_ref`, which this module
    cannot import)."""
    return driver_base.VolumeRef.for_volume(
        volume.id, volume.size, multiattach=volume.multiattach,
        host=volume.host, qos_specs=qos)


def snapshot_ref(snapshot, volume):
    """The SnapshotRef drivers get for a snapshot of ``volume``."""
    return driver_base.SnapshotRef.for_snapshot(
        snapshot.id, volume_ref(volume), snapshot.volume_size)



class SnapshotEndpoints:
    """Snapshot endpoints of the manager (1.7)."""

    def _source_of(self, context, volume, store):
        """The create flow of a volume and what it copies, added to its
        ``store`` (a snapshot of one of this manager's backends, or a
        volume there)."""
        if volume.snapshot_id:
            snapshot = snapshot_db.snapshot_get(context, volume.snapshot_id)
            source = volume_db.volume_get(context, snapshot.volume_id,
                                          children=False)
            store['snapshot'] = snapshot_ref(snapshot, source)
            return (create_flow.get_flow_from_snapshot,
                    ' from snapshot %s' % snapshot.id)
        if volume.source_volid:
            source = volume_db.volume_get(context, volume.source_volid,
                                          children=False)
            store['source'] = volume_ref(source)
            return create_flow.get_clone_flow, ' from volume %s' % source.id
        return create_flow.get_flow, ''

    # Snapshots (1.7)

    def _load_snapshot(self, context, snapshot_id, expected_status,
                       error_status):
        """The snapshot, its volume and backend, or a reason it cannot
        proceed (recorded on the snapshot when its volume is not on a
        backend of this manager)."""
        snapshot = snapshot_db.snapshot_get(context, snapshot_id)
        if snapshot.status != expected_status:
            raise exception.InvalidSnapshot(
                reason='snapshot %s is %s, not %s' % (
                    snapshot_id, snapshot.status, expected_status))
        volume = volume_db.volume_get(context, snapshot.volume_id,
                                      children=False)
        try:
            backend = self._backend(volume)
        except exception.InvalidVolume as exc:
            LOG.error('%s', exc)
            try:
                snapshot_db.snapshot_change(
                    context, snapshot_id,
                    {'status': error_status, 'error_reason': str(exc)},
                    expected={'status': expected_status})
            except (exception.SnapshotNotFound, exception.Conflict):
                pass
            raise
        return snapshot, volume, backend

    @messaging.expected_exceptions(*EXPECTED)
    def create_snapshot(self, context, snapshot_id):
        """Take a snapshot recorded 'creating' of a volume of this node
        (1.7)."""
        with self._claimed(context, 'snapshot', snapshot_id,
                           (vstatus.SNAPSHOT_CREATING,)) as owner:
            self._create_snapshot(context, snapshot_id, owner)

    def _create_snapshot(self, context, snapshot_id, owner,
                         clean_first=False):
        snapshot, volume, backend = self._load_snapshot(
            context, snapshot_id, vstatus.SNAPSHOT_CREATING,
            vstatus.SNAPSHOT_ERROR)
        ref = snapshot_ref(snapshot, volume)
        if clean_first:
            backend.driver.delete_snapshot(ref)
        try:
            results = flows.run(snapshot_create_flow.get_flow,
                                {'context': context,
                                 'snapshot_id': snapshot_id,
                                 'snapshot': ref, 'claim': owner},
                                backend.driver)
        except Exception:
            notifications.notify_snapshot(
                context, 'snapshot.create.error',
                snapshot_db.snapshot_get(context, snapshot_id),
                priority='error')
            raise
        self._claim_given_up(owner)
        LOG.info('Created snapshot %s of volume %s on %s', snapshot_id,
                 volume.id, volume.host)
        notifications.notify_snapshot(
            context, 'snapshot.create.end',
            snapshot_db.snapshot_get(context, snapshot_id),
            paused_seconds=results.get('paused'),
            consistent=results.get('paused') is not None)

    @messaging.expected_exceptions(*EXPECTED)
    def delete_snapshot(self, context, snapshot_id):
        """Delete a snapshot recorded 'deleting' of a volume of this node
        (1.7)."""
        with self._claimed(context, 'snapshot', snapshot_id,
                           (vstatus.SNAPSHOT_DELETING,)):
            self._delete_snapshot(context, snapshot_id)

    def _delete_snapshot(self, context, snapshot_id):
        snapshot, volume, backend = self._load_snapshot(
            context, snapshot_id, vstatus.SNAPSHOT_DELETING,
            vstatus.SNAPSHOT_ERROR_DELETING)
        flows.run(snapshot_delete_flow.get_flow,
                  {'context': context, 'snapshot_id': snapshot_id,
                   'snapshot': snapshot_ref(snapshot, volume)},
                  backend.driver)
        LOG.info('Deleted snapshot %s of volume %s', snapshot_id, volume.id)
        notifications.notify_snapshot(context, 'snapshot.delete.end',
                                      snapshot)

    @messaging.expected_exceptions(*EXPECTED)
    def revert_to_snapshot(self, context, volume_id, snapshot_id):
        """Revert a volume recorded 'reverting' of this node to its
        snapshot recorded 'restoring' (1.7)."""
        with self._claimed(context, 'volume', volume_id,
                           (vstatus.REVERTING,)) as owner:
            self._revert_to_snapshot(context, volume_id, snapshot_id,
                                     owner)

    def _revert_to_snapshot(self, context, volume_id, snapshot_id, owner):
        volume, backend = self._load(context, volume_id, vstatus.REVERTING,
                                     vstatus.ERROR)
        snapshot = snapshot_db.snapshot_get(context, snapshot_id)
        if snapshot.volume_id != volume_id:
            raise exception.InvalidSnapshot(
                reason='snapshot %s is not a snapshot of volume %s' % (
                    snapshot_id, volume_id))
        flows.run(revert_flow.get_flow,
                  {'context': context, 'volume_id': volume_id,
                   'volume': volume_ref(volume), 'snapshot_id': snapshot_id,
                   'snapshot': snapshot_ref(snapshot, volume),
                   'claim': owner}, backend.driver)
        self._claim_given_up(owner)
        LOG.info('Reverted volume %s to snapshot %s', volume_id, snapshot_id)
        notifications.notify(context, 'volume.revert.end',
                             {'volume_id': volume_id,
                              'snapshot_id': snapshot_id,
                              'project_id': volume.project_id})

