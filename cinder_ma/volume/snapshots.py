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

"""Snapshots: the rules of the service, run in the API process.

A snapshot is taken on its volume's backend by that backend's manager
(:mod:`cinder_ma.manager.flows.create_snapshot`): the API checks the
policy (with the volume's project as the target, as Cinder), the volume's
status and its backend's ``snapshots`` capability, charges the project's
``snapshots`` and ``gigabytes`` quotas (and the volume type's), records
the snapshot ``creating`` in the transaction that checks the volume, and
casts. Deleting one records ``deleting`` and casts; the manager deletes
its storage and its record.

An attached volume is snapshotted only with ``force`` below microversion
3.66 (``SNAPSHOT_IN_USE``), without it from there on, as in Cinder. On a
driver without ``consistent_snapshots`` the snapshot of an attached
volume is crash-consistent only (see docs/admin/multiattach.rst).
"""

from oslo_log import log as logging

from cinder_ma.db import snapshots as snapshot_db
from cinder_ma import exception
from cinder_ma import holds
from cinder_ma.manager import rpcapi
from cinder_ma import notifications
from cinder_ma.policies import snapshots as snapshot_policies
from cinder_ma import policy
from cinder_ma import status as vstatus
from cinder_ma.volume import api as volume_api
from cinder_ma.volume import quotas
from cinder_ma.volume import scheduler
from cinder_ma.volume import services as volume_services

LOG = logging.getLogger(__name__)

UNSET = object()

#: Statuses a snapshot may be deleted from without force (Cinder's, and
#: error_deleting to try again).
DELETABLE = (vstatus.SNAPSHOT_AVAILABLE, vstatus.SNAPSHOT_ERROR,
             vstatus.SNAPSHOT_ERROR_DELETING)
#: os-reset_status: the statuses an administrator may set.
RESET_STATUSES = (vstatus.SNAPSHOT_AVAILABLE, vstatus.SNAPSHOT_ERROR,
                  vstatus.SNAPSHOT_ERROR_DELETING, vstatus.SNAPSHOT_CREATING,
                  vstatus.SNAPSHOT_DELETING)
#: os-update_snapshot_status: from a status, the statuses it may go to
#: (Cinder's map).
STATUS_MAP = {
    vstatus.SNAPSHOT_CREATING: (vstatus.SNAPSHOT_CREATING,
                                vstatus.SNAPSHOT_AVAILABLE,
                                vstatus.SNAPSHOT_ERROR),
    vstatus.SNAPSHOT_DELETING: (vstatus.SNAPSHOT_DELETING,
                                vstatus.SNAPSHOT_ERROR_DELETING),
}


def _rpc():
    return rpcapi.ManagerAPI()


def _target(resource):
    return {'project_id': resource.project_id, 'user_id': resource.user_id}


def is_admin(context):
    return volume_api.is_admin(context)


def get_snapshot(context, snapshot_id, action=snapshot_policies.GET):
    """A snapshot the caller may see; another project's is not found."""
    project_id = None if is_admin(context) else context.project_id
    snapshot = snapshot_db.snapshot_get(context, snapshot_id, project_id)
    policy.authorize(context, action, _target(snapshot))
    return snapshot


def sees_extended_attributes(context):
    """Whether the views show ``os-extended-snapshot-attributes``."""
    return policy.authorize(
        context, snapshot_policies.EXTEND_ATTRIBUTE,
        {'project_id': context.project_id}, do_raise=False)


def list_snapshots(context, filters=None, marker=None, limit=None,
                   sort_keys=None, sort_dirs=None, all_tenants=False,
                   project_filter=None, offset=None):
    project_id, empty = volume_api.list_scope(
        context, all_tenants, project_filter, snapshot_policies.GET_ALL,
        {'project_id': context.project_id})
    if empty:
        return []
    return snapshot_db.snapshot_get_all(context, project_id, filters,
                                        marker, limit, sort_keys, sort_dirs,
                                        offset=offset)


def count_snapshots(context, filters=None, all_tenants=False,
                    project_filter=None):
    project_id, empty = volume_api.list_scope(
        context, all_tenants, project_filter, snapshot_policies.GET_ALL,
        {'project_id': context.project_id})
    if empty:
        return 0
    return snapshot_db.snapshot_count(context, project_id, filters)


def _check_backend(context, volume, capability, what):
    """Refuse, before anything changes, what the volume's backend (or
    its manager's RPC API version) cannot do."""
    caps = scheduler.backend_capabilities(context, volume.host)
    if not caps.get(capability):
        raise exception.InvalidVolume(
            reason='the backend of volume %s cannot %s (its driver does '
                   'not declare the capability %s)' % (volume.id, what,
                                                       capability))
    _rpc().require_snapshots(context, volume.host)


def create_snapshot(context, volume_id, name=None, description=None,
                    metadata=None, force=False, allow_in_use=False):
    """Record a snapshot of a volume and have its manager take it.

    :param force: (below 3.66) an in-use volume may be snapshotted.
    :param allow_in_use: (3.66) the same, without force.
    """
    volume = volume_api.get_volume(context, volume_id, children=False)
    policy.authorize(context, snapshot_policies.CREATE, _target(volume))
    volume_services.assert_not_frozen(context, volume)
    if not volume.host:
        raise exception.InvalidVolume(
            reason='The snapshot cannot be created because volume has not '
                   'been scheduled to any host.')
    if volume.status == vstatus.ERROR:
        raise exception.InvalidVolume(
            reason='The snapshot cannot be created when the volume is in '
                   'error status.')
    valid = (vstatus.AVAILABLE,)
    if force or allow_in_use:
        valid = (vstatus.AVAILABLE, vstatus.IN_USE)
    if volume.status not in valid:
        raise exception.InvalidVolume(
            reason='Volume %s status must be %s, but current status is: '
                   '%s.' % (volume.id, ', '.join(valid), volume.status))
    _check_backend(context, volume, 'snapshots', 'take snapshots')
    snapshot = quotas.run_charged(
        context, snapshot_db.snapshot_create, context, {
            'project_id': context.project_id,
            'user_id': context.user_id,
            'volume_id': volume.id,
            'volume_type_id': volume.volume_type_id,
            'volume_size': volume.size,
            'name': name,
            'description': description,
            'status': vstatus.SNAPSHOT_CREATING,
            'progress': '0%',
            'metadata': metadata or {},
        }, valid, quota=quotas.charge_snapshot(context, volume))
    LOG.info('Creating snapshot %s of volume %s (%s, %s GiB) on %s',
             snapshot.id, volume.id, volume.status, volume.size,
             volume.host)
    notifications.notify_snapshot(context, 'snapshot.create.start',
                                  snapshot)
    # TEST ONLY: a fault test kills this process here (recorded, not
    # yet cast: the reconcile loop takes it once unclaimed for a lease).
    holds.hold('api_create_snapshot')
    try:
        _rpc().create_snapshot(context, snapshot.id, volume.host)
    except Exception as exc:
        volume_api.cast_lost('create', snapshot.id, volume.host, exc,
                             kind='snapshot')
    return snapshot


def update_snapshot(context, snapshot_id, name=UNSET, description=UNSET):
    snapshot = get_snapshot(context, snapshot_id, snapshot_policies.UPDATE)
    values = {}
    if name is not UNSET:
        values['name'] = name
    if description is not UNSET:
        values['description'] = description
    notifications.notify_snapshot(context, 'snapshot.update.start',
                                  snapshot)
    snapshot = snapshot_db.snapshot_update(context, snapshot.id, values)
    notifications.notify_snapshot(context, 'snapshot.update.end', snapshot)
    return snapshot


def _volume_of(context, snapshot):
    return volume_api.get_volume(context.elevated(), snapshot.volume_id,
                                 children=False)


def _begin_delete(context, snapshot, expected):
    volume = _volume_of(context, snapshot)
    volume_services.assert_not_frozen(context, volume)
    in_use = snapshot_db.volumes_made_from(context, snapshot.id)
    if in_use:
        raise exception.InvalidSnapshot(
            reason='snapshot %s is the source of volume(s) %s, which are '
                   'being created; delete it once they are available' % (
                       snapshot.id, ', '.join(in_use)))
    try:
        snapshot_db.snapshot_change(
            context, snapshot.id,
            {'status': vstatus.SNAPSHOT_DELETING, 'error_reason': None},
            expected=expected)
    except exception.Conflict:
        if 'status' in expected:
            raise exception.InvalidSnapshot(
                reason='Snapshot status must be %s and must not be part of '
                       'a group.' % ' or '.join(expected['status']))
        raise
    notifications.notify_snapshot(context, 'snapshot.delete.start',
                                  snapshot)
    LOG.info('Deleting snapshot %s of volume %s on %s', snapshot.id,
             volume.id, volume.host)
    # TEST ONLY: a fault test kills this process here (recorded, not
    # yet cast).
    holds.hold('api_delete_snapshot')
    try:
        _rpc().delete_snapshot(context, snapshot.id, volume.host)
    except Exception as exc:
        volume_api.cast_lost('delete', snapshot.id, volume.host, exc,
                             kind='snapshot')


def delete_snapshot(context, snapshot_id):
    snapshot = get_snapshot(context, snapshot_id, snapshot_policies.DELETE)
    if snapshot.status not in DELETABLE:
        raise exception.InvalidSnapshot(
            reason='Snapshot status must be %s and must not be part of a '
                   'group.' % ' or '.join(DELETABLE))
    _begin_delete(context, snapshot, {'status': DELETABLE})


def force_delete(context, snapshot_id):
    """os-force_delete (admins): delete from any status."""
    snapshot = get_snapshot(context, snapshot_id)
    policy.authorize(context, snapshot_policies.FORCE_DELETE,
                     _target(snapshot))
    _begin_delete(context, snapshot, {'status': snapshot.status})


def reset_status(context, snapshot_id, status):
    """os-reset_status (admins)."""
    snapshot = get_snapshot(context, snapshot_id)
    policy.authorize(context, snapshot_policies.RESET_STATUS,
                     _target(snapshot))
    if status not in RESET_STATUSES:
        raise exception.InvalidInput(
            reason='status must be one of %s' % ', '.join(RESET_STATUSES))
    snapshot_db.snapshot_change(context, snapshot.id, {'status': status},
                                expected={'status': snapshot.status})
    LOG.info('Reset the status of snapshot %s from %s to %s', snapshot.id,
             snapshot.status, status)


def update_snapshot_status(context, snapshot_id, status, progress=None):
    """os-update_snapshot_status: a compute service reports a snapshot it
    takes (Cinder's transitions)."""
    snapshot = get_snapshot(context, snapshot_id)
    policy.authorize(context, snapshot_policies.UPDATE_STATUS,
                     _target(snapshot))
    if snapshot.status not in STATUS_MAP:
        raise exception.InvalidInput(
            reason='Snapshot status %s not allowed for '
                   'update_snapshot_status' % snapshot.status)
    if status not in STATUS_MAP[snapshot.status]:
        raise exception.InvalidInput(
            reason='Provided snapshot status %s not allowed for snapshot '
                   'with status %s.' % (status, snapshot.status))
    values = {'status': status}
    if progress:
        values['progress'] = progress
    snapshot_db.snapshot_change(context, snapshot.id, values,
                                expected={'status': snapshot.status})


def get_metadata(context, snapshot_id):
    return dict(get_snapshot(context, snapshot_id,
                             snapshot_policies.GET_METADATA).metadata)


def set_metadata(context, snapshot_id, metadata, action):
    """Replace a snapshot's metadata (``action``: the policy of the
    change, update or delete)."""
    snapshot = get_snapshot(context, snapshot_id, action)
    return dict(snapshot_db.snapshot_update(
        context, snapshot.id, {}, metadata=metadata).metadata)


def revert(context, volume_id, snapshot_id):
    """3.40 ``revert``: the volume's data back to its latest snapshot, as
    Cinder: a 400 when ``snapshot_id`` is not the volume's latest
    snapshot or the volume's size is not the snapshot's; a 409 when the
    volume is not available (attached, say) or the snapshot not
    available.
    """
    volume = volume_api.get_volume(context, volume_id)
    policy.authorize(context, snapshot_policies.REVERT, _target(volume))
    latest = snapshot_db.latest_snapshot(context, volume.id)
    if latest is None:
        raise exception.InvalidInput(
            message="Volume %s doesn't have any snapshots." % volume.id)
    if snapshot_id != latest.id:
        raise exception.InvalidInput(
            message='Specified snapshot %s is None or not the latest one '
                    'of volume %s.' % (exception.cut(snapshot_id),
                                       volume.id))
    if volume.size != latest.volume_size:
        raise exception.InvalidInput(
            message="Can't revert volume %s to its latest snapshot %s. The "
                    "volume size must be equal to the snapshot size." % (
                        volume.id, latest.id))
    volume_services.assert_not_frozen(context, volume)
    attached = [a.id for a in volume.volume_attachment
                if a.attach_status in vstatus.LIVE_ATTACH_STATUSES]
    if attached or volume.status != vstatus.AVAILABLE:
        raise exception.Conflict(
            message="Invalid volume: Can't revert volume %s to its latest "
                    "snapshot %s. Volume's status must be 'available'%s." % (
                        volume.id, latest.id,
                        ' and it must have no attachment (it has %s)' %
                        ', '.join(attached) if attached else ''))
    if latest.status != vstatus.SNAPSHOT_AVAILABLE:
        raise exception.Conflict(
            message="Invalid snapshot: Can't revert volume %s to its latest "
                    "snapshot %s. Snapshot's status must be 'available'." %
                    (volume.id, latest.id))
    snapshot = latest
    _check_backend(context, volume, 'snapshots', 'revert to snapshots')
    try:
        snapshot_db.revert_begin(context, volume.id, snapshot.id)
    except (exception.InvalidVolume, exception.InvalidSnapshot) as exc:
        raise exception.Conflict(message=str(exc)) from None
    LOG.info('Reverting volume %s to snapshot %s', volume.id, snapshot.id)
    notifications.notify(context, 'volume.revert.start',
                         {'volume_id': volume.id, 'snapshot_id': snapshot.id,
                          'project_id': volume.project_id})
    # TEST ONLY: a fault test kills this process here (recorded, not
    # yet cast).
    holds.hold('api_revert_volume')
    try:
        _rpc().revert_to_snapshot(context, volume.id, snapshot.id,
                                  volume.host)
    except Exception as exc:
        volume_api.cast_lost('revert', volume.id, volume.host, exc)
