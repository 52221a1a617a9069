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

"""Volumes: the rules of the service, run in the API process.

Controllers call these functions; they enforce policy with the volume's
project as target, validate what the schema cannot, record state in the
database and cast to the manager that owns the volume's backend.
"""

from oslo_config import cfg
from oslo_log import log as logging

from cinder_ma.db import api as db_api
from cinder_ma.db import messages as message_db
from cinder_ma.db import quotas as quota_db
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager import rpcapi
from cinder_ma import message_field
from cinder_ma.policies import snapshots as snapshot_policies
from cinder_ma.policies import volumes as volume_policies
from cinder_ma import policy
from cinder_ma import status as vstatus
from cinder_ma.volume import quotas
from cinder_ma.volume import scheduler
from cinder_ma.volume import services as volume_services
from cinder_ma.volume import types as vtypes

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

UNSET = object()

# Statuses from which a user may delete a volume.
_DELETABLE = (vstatus.AVAILABLE, vstatus.ERROR, vstatus.ERROR_DELETING,
              vstatus.ERROR_EXTENDING)


def _is_admin(context):
    return policy.check_persona(context, 'context_is_admin')


def _target(volume):
    return {'project_id': volume.project_id, 'user_id': volume.user_id}


def _rpc():
    return rpcapi.ManagerAPI()


def get_volume(context, volume_id, action=volume_policies.GET,
               children=True):
    """A volume the caller may see; another project's is not found.

    :param children: False for the row alone (see volume_db.volume_get).
    """
    project_id = None if _is_admin(context) else context.project_id
    volume = volume_db.volume_get(context, volume_id, project_id, children)
    policy.authorize(context, action, _target(volume))
    return volume


def get_encryption_metadata(context, volume_id):
    """What a compute service needs to open an encrypted volume: its
    type's encryption (None for a volume of a type without one).

    :returns: (the volume, the encryption record of its type or None).
    """
    volume = get_volume(context, volume_id,
                        volume_policies.ENCRYPTION_METADATA, children=False)
    return volume, vtypes.encryption_of(context, volume.volume_type_id)


def list_scope(context, all_tenants, project_filter,
               action=volume_policies.GET_ALL, target=None):
    """The project whose volumes (or snapshots) a list shows (None: every
    project), once ``action`` authorizes the list (on ``target``).

    :param project_filter: the ``project_id`` filter of the request (with
        ``all_tenants``, as Cinder's admins list one project's volumes), or
        None.
    :returns: (project_id, empty): empty when the filter names another
        project than the caller's and the caller may not list all
        projects (Cinder filters the caller's own volumes by it).
    """
    policy.authorize(context, action, target)
    if all_tenants and policy.authorize(
            context, volume_policies.ALL_TENANTS, do_raise=False):
        return project_filter, False
    empty = (project_filter is not None and
             project_filter != context.project_id)
    return context.project_id, empty


def list_volumes(context, filters=None, marker=None, limit=None,
                 sort_keys=None, sort_dirs=None, all_tenants=False,
                 project_filter=None):
    project_id, empty = list_scope(context, all_tenants, project_filter)
    if empty:
        return []
    return volume_db.volume_get_all(context, project_id, filters, marker,
                                    limit, sort_keys, sort_dirs)


def count_volumes(context, filters=None, all_tenants=False,
                  project_filter=None):
    project_id, empty = list_scope(context, all_tenants, project_filter)
    if empty:
        return 0
    return volume_db.volume_count(context, project_id, filters)


def _source(context, snapshot_id, source_volid):
    """What a new volume is made from: (kind, snapshot or None, source
    volume or None) for 'snapshot', 'volume' or None (an empty volume).

    :raises SnapshotNotFound, VolumeNotFound: the caller cannot see it.
    :raises InvalidSnapshot, InvalidVolume: it is not in a status to copy
        from, or its backend cannot copy.
    """
    if snapshot_id is not None:
        project_id = None if _is_admin(context) else context.project_id
        snapshot = snapshot_db.snapshot_get(context, snapshot_id,
                                            project_id)
        policy.authorize(context, snapshot_policies.GET, _target(snapshot))
        if snapshot.status != vstatus.SNAPSHOT_AVAILABLE:
            raise exception.InvalidSnapshot(
                reason="Originating snapshot status must be one of "
                       "'available' values")
        volume = volume_db.volume_get(context, snapshot.volume_id,
                                      children=False)
        return 'snapshot', snapshot, volume
    if source_volid is not None:
        volume = get_volume(context, source_volid, children=False)
        if volume.status not in (vstatus.AVAILABLE, vstatus.IN_USE):
            raise exception.InvalidVolume(
                reason="Originating source volume status must be one of "
                       "'available, in-use' values")
        return 'volume', None, volume
    return None, None, None


def _copy_placement(context, kind, source, vtype, shareable,
                    availability_zone):
    """Where a copy of ``source`` goes: its backend, which copies it (the
    new volume's type must suit that backend)."""
    volume_services.assert_not_frozen(context, source)
    capability = 'snapshots' if kind == 'snapshot' else 'clone'
    caps = scheduler.backend_capabilities(context, source.host)
    if not caps.get(capability):
        raise exception.InvalidVolume(
            reason='the backend of volume %s cannot copy it into a new '
                   'volume (its driver does not declare the capability '
                   '%s)' % (source.id, capability))
    why = scheduler.capability_mismatch(caps, vtype.extra_specs, shareable)
    if why:
        raise exception.InvalidVolume(
            reason='the backend of volume %s, which makes the copy, %s, as '
                   'volume type %s needs' % (source.id, why, vtype.name))
    if availability_zone and availability_zone != source.availability_zone:
        raise exception.InvalidInput(
            reason='the new volume is made in the availability zone of its '
                   'source, %s, not %s' % (source.availability_zone,
                                           availability_zone))
    _rpc().require_snapshots(context, source.host)
    return scheduler.Placement(
        host=source.host, service_uuid=source.service_uuid,
        shared_targets=source.shared_targets,
        availability_zone=source.availability_zone)


def create_volume(context, size, name=None, description=None,
                  volume_type=None, metadata=None, availability_zone=None,
                  multiattach=False, snapshot_id=None, source_volid=None):
    """Record a volume, place it on a backend and have its manager make it.

    :param snapshot_id: make it from this snapshot, on its volume's
        backend: ``size`` (None: the snapshot's) at least the snapshot's,
        its type the snapshot's unless ``volume_type`` names one.
    :param source_volid: make it a copy of this volume (available or
        in-use, shareable or not), likewise.

    :param volume_type: name or id of a type; None for the default type.
    :param multiattach: the legacy flag of the create request (below
        microversion 3.50), allowed by its own policy
        (``volume:multiattach_legacy_flag``, admins by default); a type
        with ``multiattach`` needs ``volume:multiattach``.
    No backend that can hold the volume is not an error of the request
    (as in Cinder): the volume is recorded in ``error`` (charged to the
    quota until it is deleted, as any volume), its ``error_reason`` says
    why for administrators, and its project gets a user message
    (``VOLUME_VOLUME_001_003``, "schedule allocate volume:Could not find
    any available weighted backend.").
    """
    target = {'project_id': context.project_id, 'user_id': context.user_id}
    policy.authorize(context, volume_policies.CREATE, target)
    kind, snapshot, source = _source(context, snapshot_id, source_volid)
    if size is None and source is not None:
        size = snapshot.volume_size if snapshot else source.size
    if not isinstance(size, int) or size <= 0:
        raise exception.InvalidInput(
            reason='size must be a positive integer of GiB')
    if snapshot is not None and size < snapshot.volume_size:
        raise exception.InvalidInput(
            reason="Volume size '%s'GB cannot be smaller than the snapshot "
                   "size %sGB. They must be >= original snapshot size." % (
                       size, snapshot.volume_size))
    if kind == 'volume' and size < source.size:
        raise exception.InvalidInput(
            reason="Volume size '%s'GB cannot be smaller than original "
                   "volume size  %sGB. They must be >= original volume "
                   "size." % (size, source.size))
    if volume_type is None and source is not None:
        # The source's type, unless another is given.
        volume_type = (snapshot or source).volume_type_id
    # What the create decides from is read in one transaction.
    with db_api.reading(context):
        vtype = vtypes.find_type(context, volume_type)
        extra_specs = vtype.extra_specs
        shareable = bool(multiattach) or vtypes.is_multiattach(extra_specs)
        if multiattach:
            policy.authorize(context,
                             volume_policies.MULTIATTACH_LEGACY_FLAG, target)
        if vtypes.is_multiattach(extra_specs):
            policy.authorize(context, volume_policies.MULTIATTACH, target)
        if shareable and vtype.encrypted:
            raise exception.InvalidVolume(
                reason='volume type %s is encrypted; a multiattach volume '
                       'cannot be encrypted' % vtype.name)
        charge = quotas.charge_create(context, context.project_id, size,
                                      vtype.id)
        try:
            if source is not None:
                placement = _copy_placement(context, kind, source, vtype,
                                            shareable, availability_zone)
            else:
                placement = scheduler.select_backend(
                    context, size, extra_specs, multiattach=shareable,
                    availability_zone=availability_zone)
        except exception.NoValidBackend as exc:
            placement, no_backend = None, exc
    if placement is None:
        where = {'status': vstatus.ERROR, 'host': None,
                 'service_uuid': None, 'shared_targets': False,
                 'availability_zone': (availability_zone or
                                       CONF.storage_availability_zone),
                 'error_reason': getattr(no_backend, 'full_reason',
                                         no_backend.msg)}
    else:
        where = {'status': vstatus.CREATING, 'host': placement.host,
                 'service_uuid': placement.service_uuid,
                 'shared_targets': placement.shared_targets,
                 'availability_zone': placement.availability_zone}
    volume = quotas.run_charged(context, volume_db.volume_create, context, {
        'project_id': context.project_id,
        'user_id': context.user_id,
        'name': name,
        'description': description,
        'size': size,
        **where,
        'volume_type_id': vtype.id,
        'multiattach': shareable,
        'encrypted': vtype.encrypted,
        'metadata': metadata or {},
        'snapshot_id': snapshot.id if snapshot is not None else None,
        'source_volid': source.id if kind == 'volume' else None,
    }, quota=charge, volume_type=vtype)
    if placement is None:
        LOG.warning('Volume %(id)s (%(size)s GiB, type %(type)s) is in '
                    'error: %(reason)s',
                    {'id': volume.id, 'size': size, 'type': vtype.name,
                     'reason': no_backend.msg})
        message_db.record(
            context, volume.project_id,
            message_field.Action.SCHEDULE_ALLOCATE_VOLUME,
            resource_uuid=volume.id, exception=no_backend)
        return volume
    LOG.info('Creating volume %(id)s (%(size)s GiB, type %(type)s, '
             'multiattach %(ma)s) on %(host)s%(from)s',
             {'id': volume.id, 'size': size, 'type': vtype.name,
              'ma': shareable, 'host': placement.host,
              'from': ' from %s %s' % (kind, (snapshot or source).id)
              if kind else ''})
    try:
        _rpc().create_volume(context, volume.id, placement.host)
    except Exception as exc:
        cast_lost('create', volume.id, placement.host, exc)
    return volume


def cast_lost(operation, resource_id, host, exc, kind='volume'):
    """A cast the broker did not take: the request stands, recorded in
    the database, and the reconcile loop of the manager of ``host`` runs
    it (within ``[manager] work_lease_time + reconcile_interval``).

    :param kind: what ``resource_id`` names (``volume``, ``snapshot``).
    """
    LOG.warning('Could not ask the manager of %s to %s %s %s (%s); the '
                'request is recorded and its manager\'s reconcile loop '
                'will run it', host, operation, kind, resource_id, exc)


def update_volume(context, volume_id, name=UNSET, description=UNSET,
                  metadata=None):
    volume = get_volume(context, volume_id, volume_policies.UPDATE)
    values = {}
    if name is not UNSET:
        values['name'] = name
    if description is not UNSET:
        values['description'] = description
    return volume_db.volume_update(context, volume.id, values,
                                   metadata=metadata)


def _live_attachment_ids(volume):
    return [a.id for a in volume.volume_attachment
            if a.attach_status in vstatus.LIVE_ATTACH_STATUSES]


#: Cinder's refusal of a volume delete, after the statuses it needed.
_DELETE_REFUSED = ('must not be migrating, attached, belong to a group, '
                   'have snapshots, awaiting a transfer, or be '
                   'disassociated from snapshots after volume transfer.')
#: Statuses of its snapshots from which a volume's cascade deletes them.
_CASCADE_SNAPSHOT_STATUSES = (vstatus.SNAPSHOT_AVAILABLE,
                              vstatus.SNAPSHOT_ERROR,
                              vstatus.SNAPSHOT_DELETING,
                              vstatus.SNAPSHOT_ERROR_DELETING)


def _delete_refused(statuses):
    return exception.InvalidVolume(
        reason='Volume status must be %s and %s' % (
            ' or '.join(statuses), _DELETE_REFUSED))


def delete_volume(context, volume_id, cascade=False, force=False):
    """Delete a volume that has no live attachment and, unless
    ``cascade``, no snapshot (with ``cascade``, its snapshots with it:
    each available or in error, any status with ``force``).

    :param force: admins may delete a volume in any status except while
        it is attached.
    """
    volume = get_volume(context, volume_id, volume_policies.DELETE)
    volume_services.assert_not_frozen(context, volume)
    if force:
        policy.authorize(context, volume_policies.FORCE_DELETE,
                         _target(volume))
    attached = _live_attachment_ids(volume)
    if attached:
        raise exception.InvalidVolume(
            reason='volume %s still has attachments %s; detach them '
                   'first' % (volume.id, ', '.join(attached)))
    if not force and volume.status not in _DELETABLE:
        raise exception.InvalidVolume(
            reason='volume status must be one of %s, not %s' % (
                ', '.join(_DELETABLE), volume.status))
    statuses = (volume.status,) if force else _DELETABLE
    snapshots = snapshot_db.snapshots_of_volume(context, volume.id)
    snapshot_statuses = None if force else _CASCADE_SNAPSHOT_STATUSES
    undeletable = [s.id for s in snapshots
                   if snapshot_statuses is not None and
                   s.status not in snapshot_statuses]
    if snapshots and (not cascade or undeletable):
        raise _delete_refused(statuses)
    if snapshots and not _is_admin(context) and any(
            s.project_id != context.project_id for s in snapshots):
        raise _delete_refused(statuses)
    copying = snapshot_db.volumes_copying(context, volume.id)
    if copying:
        raise exception.InvalidVolume(
            reason='volume %s is the source of volume(s) %s, which are '
                   'being created; delete it once they are available' % (
                       volume.id, ', '.join(copying)))
    if not volume.host:
        quota_db.retrying(context, volume_db.volume_destroy, context,
                          volume.id, quota=quota_db.release_volume)
        LOG.info('Deleted volume %s, which was never placed', volume.id)
        return
    # The attachment check above is repeated inside the compare-and-swap
    # (on the volume's own live-attachment count), and so is the snapshot
    # check, so that an attachment reserved or a snapshot taken meanwhile
    # makes this a 409.
    expected = {'status': statuses, 'attach_count': 0}
    if not snapshot_db.volume_delete_begin_checked(
            context, volume.id,
            {'status': vstatus.DELETING, 'error_reason': None}, expected,
            cascade=cascade, snapshot_statuses=snapshot_statuses):
        current = volume_db.volume_get(context, volume.id, children=False)
        raise exception.Conflict(
            reason='volume %s is in status %s (attachments %d), expected '
                   'status in (%s) with no attachment%s' % (
                       volume.id, current.status, current.attach_count,
                       ', '.join(statuses),
                       '' if cascade else ' and no snapshot'))
    LOG.info('Deleting volume %s on %s%s', volume.id, volume.host,
             ' with its %d snapshot(s)' % len(snapshots) if snapshots
             else '')
    try:
        _rpc().delete_volume(context, volume.id, volume.host)
    except Exception as exc:
        cast_lost('delete', volume.id, volume.host, exc)


def is_admin(context):
    """Whether the caller is an administrator (views show more to them)."""
    return _is_admin(context)


def set_bootable(context, volume_id, bootable):
    """os-set_bootable."""
    volume = get_volume(context, volume_id, volume_policies.SET_BOOTABLE)
    return volume_db.volume_update(context, volume.id,
                                   {'bootable': bool(bootable)})


def retype(context, volume_id, new_type, migration_policy='never'):
    """os-retype: give a volume another type its backend can serve.

    Moving between a shareable and a non-shareable type is allowed only
    while the volume is available (and has no attachment); the multiattach
    flag follows the new type. cinder_ma does not migrate volumes, so the
    new type must fit the volume's current backend.
    """
    volume = get_volume(context, volume_id, volume_policies.RETYPE)
    volume_services.assert_not_frozen(context, volume)
    vtype = vtypes.find_type(context, new_type)
    if vtype.id == volume.volume_type_id:
        raise exception.InvalidInput(
            reason='volume %s already has type %s' % (volume.id,
                                                      vtype.name))
    specs = vtype.extra_specs
    shareable = vtypes.is_multiattach(specs)
    target = _target(volume)
    if shareable:
        policy.authorize(context, volume_policies.MULTIATTACH, target)
    if vtype.encrypted != bool(volume.encrypted):
        raise exception.InvalidVolume(
            reason='retyping between encrypted and unencrypted types needs '
                   'a migration, which cinder_ma does not do')
    if shareable and vtype.encrypted:
        raise exception.InvalidVolume(
            reason='volume type %s is encrypted and multiattach' %
                   vtype.name)
    caps = scheduler.backend_capabilities(context, volume.host)
    why = scheduler.capability_mismatch(caps, specs, shareable)
    if why:
        raise exception.InvalidVolume(
            reason='the backend of volume %s %s, as volume type %s needs; '
                   'cinder_ma does not migrate volumes (migration_policy '
                   '%s)' % (volume.id, why, vtype.name, migration_policy))
    expected = {'volume_type_id': volume.volume_type_id}
    if shareable != volume.multiattach:
        if volume.status != vstatus.AVAILABLE:
            raise exception.InvalidVolume(
                reason='volume %s is %s; it can move between a shareable '
                       'and a non-shareable type only while available' % (
                           volume.id, volume.status))
        expected.update({'status': vstatus.AVAILABLE, 'attach_count': 0})
    else:
        expected['status'] = (vstatus.AVAILABLE, vstatus.IN_USE)
    volume = quotas.run_charged(
        context, volume_db.volume_update, context, volume.id,
        {'volume_type_id': vtype.id, 'multiattach': shareable},
        expected=expected,
        quota=quotas.charge_retype(context, volume, vtype.id))
    LOG.info('Retyped volume %s to %s (multiattach %s)', volume.id,
             vtype.name, shareable)
    return volume


def _check_free_space(context, volume, new_size):
    """Refuse an extend the volume's pool has no room for, before
    anything changes.

    :raises NotEnoughSpace: a 400 naming what is free.
    """
    free = scheduler.pool_free_space(context, volume.host)
    needed = new_size - volume.size
    if free is not None and needed > free:
        # Where the volume lives is for administrators (and the log).
        where = ' %s' % volume.host if is_admin(context) else ''
        LOG.info('Extend of volume %s to %s GiB refused: pool %s has %s '
                 'GiB free', volume.id, new_size, volume.host, _gib(free))
        raise exception.NotEnoughSpace(
            reason='extending volume %s to %s GiB needs %s GiB more in its '
                   'pool%s, which has %s GiB free' % (
                       volume.id, new_size, needed, where, _gib(free)))


def _gib(value):
    return int(value) if float(value).is_integer() else round(value, 2)


def _check_hosts_resize(context, volume):
    """Refuse the online extend of a volume attached through the manager
    of a host whose hypervisor driver cannot show its instance the new
    size (``supports_extend_volume``; a manager that does not report it
    is older than 1.6 and cannot either).

    :raises InvalidVolume: a 400 naming the attachments and hosts.
    """
    unable = []
    for attachment in volume.volume_attachment:
        if not attachment.manager_host or \
                attachment.attach_status != vstatus.ATTACH_ATTACHED:
            continue
        caps = scheduler.hypervisor_capabilities(context,
                                                 attachment.manager_host)
        if not (caps and caps.get('supports_extend_volume')):
            unable.append('attachment %s on host %s' % (
                attachment.id, attachment.manager_host))
    if unable:
        LOG.info('Extend of in-use volume %s refused: hosts cannot resize '
                 'attached disks: %s', volume.id, ', '.join(unable))
        raise exception.InvalidVolume(
            reason='volume %s is in use and the hypervisor driver of the '
                   'host of %s cannot resize attached disks '
                   '(supports_extend_volume); detach it there first' % (
                       volume.id, ', '.join(unable)))


def extend(context, volume_id, new_size):
    """os-extend: grow a volume.

    An in-use volume grows only where its backend declares online extend
    and the hypervisor driver of every host holding an attachment made
    through its manager can resize the disk; the manager of the backend
    has those hosts resize it, and the consumers of the other attachments
    are told through the connection info and a notification (and Nova,
    with ``[nova]`` configured, by its ``volume-extended`` event).
    """
    volume = get_volume(context, volume_id, volume_policies.EXTEND)
    volume_services.assert_not_frozen(context, volume)
    if not isinstance(new_size, int) or new_size <= volume.size:
        raise exception.InvalidInput(
            reason='new size must be an integer greater than the current '
                   'size, %s GiB' % volume.size)
    if volume.status == vstatus.IN_USE:
        policy.authorize(context, volume_policies.EXTEND_ATTACHED,
                         _target(volume))
        caps = scheduler.backend_capabilities(context, volume.host)
        if not caps.get('online_extend'):
            raise exception.InvalidVolume(
                reason='volume %s is in use and its backend does not '
                       'support extending attached volumes' % volume.id)
        _check_hosts_resize(context, volume)
    elif volume.status != vstatus.AVAILABLE:
        raise exception.InvalidVolume(
            reason='volume %s is %s; only available or in-use volumes can '
                   'be extended' % (volume.id, volume.status))
    _check_free_space(context, volume, new_size)
    previous = volume.status
    # The size is recorded with the status: an extend interrupted after
    # this answer is finished by the reconcile loop (whose flow gives the
    # quota back if the extend fails).
    volume = quotas.run_charged(
        context, volume_db.volume_update, context, volume.id,
        {'status': vstatus.EXTENDING, 'target_size': new_size},
        expected={'status': previous},
        quota=quotas.charge_extend(context, volume, new_size))
    try:
        _rpc().extend_volume(context, volume.id, volume.host, new_size)
    except Exception as exc:
        cast_lost('extend', volume.id, volume.host, exc)
    return volume


def extend_volume_completion(context, volume_id, error=False):
    """os-extend_volume_completion (3.71): a compute service finished (or
    failed) an online extend that the volume service left waiting for it.

    cinder_ma never waits for a compute service, as Cinder's own manager
    does not: the manager of the backend finishes the extend, then has
    the hosts of the attachments made through a cinder_ma manager resize
    their disks (RPC, see
    :class:`cinder_ma.manager.tasks.volume.ResizeAttachedDisk`), sends
    Nova ``volume-extended`` for its instances (see
    :class:`cinder_ma.manager.tasks.nova.TellNovaVolumeExtended`; Nova
    reads the new size then, and does not call this action) and tells
    other external consumers through the connection info and a
    notification. So no volume is ever waiting: like Cinder for a volume
    that is not waiting, this is a 400 once the caller is allowed.
    """
    volume = get_volume(context, volume_id, volume_policies.GET)
    policy.authorize(context, volume_policies.EXTEND_COMPLETION,
                     _target(volume))
    if volume.status == vstatus.EXTENDING:
        # Its manager's extend flow is running; it finishes by itself.
        detail = ('its backend is growing it and will finish the extend '
                  'without waiting for the compute service')
    else:
        detail = ('its backend extends attached volumes without waiting '
                  'for the compute service')
    raise exception.InvalidVolume(
        reason='volume %s is not being extended: %s (status %s)' % (
            volume.id, detail, volume.status))


def summarize_volumes(context, filters=None, all_tenants=False):
    """Count and total size of the caller's volumes (everyone's for an
    admin asking for all_tenants), with their metadata."""
    policy.authorize(context, volume_policies.GET_ALL)
    project_id = context.project_id
    if all_tenants and policy.authorize(
            context, volume_policies.ALL_TENANTS, do_raise=False):
        project_id = None
    return volume_db.volume_summary(context, project_id, filters)
