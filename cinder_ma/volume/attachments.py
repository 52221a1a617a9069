"""Attachments: the multi-attach rules, run in the API process.

Two ways lead to the same records and tasks:

* the Cinder attachments API, driven by an external consumer (a compute
  service of its own): create (reserve), update with a connector (the
  backend initializes the connection), complete, delete;
* attach/detach through a cinder_ma manager running the instance's host:
  the API reserves, checks that the backend and the host's hypervisor
  driver can do what is asked, and casts the attach (or detach) flow to
  that host's manager.
"""

from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_utils import excutils
from oslo_utils import timeutils

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma import exception
from cinder_ma.manager import rpcapi
from cinder_ma import notifications
from cinder_ma.policies import attachments as attachment_policies
from cinder_ma import policy
from cinder_ma.volume import api as volume_api
from cinder_ma.volume import scheduler
from cinder_ma.volume import status as vstatus

LOG = logging.getLogger(__name__)

MODES = ('rw', 'ro')
MAX_ATTACHMENTS_SPEC = 'multiattach:max_attachments'


def _rpc():
    return rpcapi.ManagerAPI()


def _target(volume):
    return {'project_id': volume.project_id, 'user_id': volume.user_id}


def _is_service(context):
    return policy.check_persona(context, 'service_api')


def _max_attachments(context, volume):
    """The multiattach:max_attachments cap of a shareable volume's type."""
    if not volume.multiattach:
        return None
    value = db_api.volume_type_extra_specs_get(
        context, volume.volume_type_id).get(MAX_ATTACHMENTS_SPEC)
    if value is None:
        return None
    try:
        limit = int(value)
    except ValueError:
        LOG.warning('Ignoring %s=%r of volume type %s: not an integer',
                    MAX_ATTACHMENTS_SPEC, value, volume.volume_type_id)
        return None
    return limit if limit > 0 else None


def connector_of(attachment):
    return jsonutils.loads(attachment.connector) if attachment.connector \
        else None


def connection_info_of(attachment):
    return jsonutils.loads(attachment.connection_info) \
        if attachment.connection_info else None


def check_backend_multiattach(context, volume):
    """Refuse early when a shareable volume's backend cannot share it."""
    if not volume.multiattach or volume.attach_count == 0:
        return
    caps = scheduler.backend_capabilities(context, volume.host)
    if not caps.get('multiattach'):
        raise exception.InvalidVolume(
            reason='volume %s is multiattach but its backend %s does not '
                   'report the multiattach capability; it cannot be '
                   'attached more than once' % (volume.id, volume.host))


def check_host_multiattach(context, volume, instance_host):
    """Refuse when a shareable volume meets a hypervisor that cannot share
    disks (nothing is reserved yet, no driver has been called)."""
    service = db_api.service_get_by_host_and_binary(
        context, instance_host, scheduler.MANAGER_BINARY)
    if service is None or not db_api.service_is_up(service):
        raise exception.InvalidInput(
            reason='host %s is not run by a cinder_ma manager that is up'
                   % instance_host)
    hypervisor = scheduler.capabilities_of(service).get('hypervisor')
    if not hypervisor:
        raise exception.InvalidInput(
            reason='the manager of host %s runs no hypervisor driver'
                   % instance_host)
    if volume.multiattach and not hypervisor.get('supports_multiattach'):
        raise exception.InvalidVolume(
            reason='volume %s is multiattach but the hypervisor driver %s '
                   'of host %s does not support multiattach' % (
                       volume.id, hypervisor.get('driver'), instance_host))


def _check_bootable(context, volume, instance_uuid):
    """A bootable shareable volume already held by another instance (or
    reservation) needs volume:multiattach_bootable_volume."""
    if not (volume.bootable and volume.multiattach):
        return
    volume = db_api.volume_get(context, volume.id)
    others = [a for a in volume.volume_attachment
              if a.attach_status in vstatus.LIVE_ATTACH_STATUSES and
              (instance_uuid is None or a.instance_uuid != instance_uuid)]
    if others:
        policy.authorize(context, attachment_policies.MULTIATTACH_BOOTABLE,
                         _target(volume))


def _attachment_and_volume(context, attachment_id, action):
    """An attachment the caller may act on, and its volume's row."""
    project_id = None if volume_api.is_admin(context) or _is_service(
        context) else context.project_id
    attachment, volume = attachment_db.attachment_and_volume_get(
        context, attachment_id, project_id)
    policy.authorize(context, action, _target(volume))
    return attachment, volume


def get_attachment(context, attachment_id,
                   action=attachment_policies.SHOW):
    return _attachment_and_volume(context, attachment_id, action)[0]


def list_attachments(context, filters=None, marker=None, limit=None,
                     sort_keys=None, sort_dirs=None, all_tenants=False):
    policy.authorize(context, attachment_policies.LIST)
    project_id = context.project_id
    if all_tenants and volume_api.is_admin(context):
        project_id = None
    return attachment_db.attachment_get_all(context, project_id, filters,
                                            marker, limit, sort_keys,
                                            sort_dirs)


def create_attachment(context, volume_id, instance_uuid, connector=None,
                      mode='rw', instance_host=None):
    """Reserve an attachment; with a connector, also connect it.

    :param instance_host: a host run by a cinder_ma manager: its attach
        flow then connects the volume and attaches it to the instance.
    :raises InvalidVolume: the volume cannot take this attachment (the
        message says why).
    """
    if mode not in MODES:
        raise exception.InvalidInput(
            reason='mode must be one of %s' % ', '.join(MODES))
    with db_api.reading(context):
        volume = volume_api.get_volume(context, volume_id,
                                       attachment_policies.CREATE,
                                       children=False)
        if instance_host:
            policy.authorize(context, attachment_policies.ATTACH_TO_HOST,
                             _target(volume))
            check_host_multiattach(context, volume, instance_host)
        check_backend_multiattach(context, volume)
        _check_bootable(context, volume, instance_uuid)
        max_attachments = _max_attachments(context, volume)
    attachment = attachment_db.attachment_reserve(
        context, volume.id, instance_uuid, attach_mode=mode,
        manager_host=instance_host,
        max_attachments=max_attachments)
    LOG.info('Reserved attachment %(att)s of volume %(vol)s for instance '
             '%(inst)s (%(mode)s)', {'att': attachment.id, 'vol': volume.id,
                                      'inst': instance_uuid, 'mode': mode})
    if instance_host:
        notifications.notify_attach(context, 'attach.start', volume,
                                    attachment)
        try:
            _rpc().attach_volume(context, attachment.id, instance_host)
        except Exception as exc:
            LOG.exception('Could not ask the manager of %s to attach %s',
                          instance_host, attachment.id)
            attachment_db.attachment_update(
                context, attachment.id,
                {'attach_status': vstatus.ATTACH_ERROR_ATTACHING},
                expected_status=vstatus.ATTACH_RESERVED)
            raise exception.ManagerUnavailable(host=instance_host,
                                               reason=str(exc))
        # The manager's flow may have moved it on already.
        return attachment_db.attachment_get(context, attachment.id)
    if connector:
        try:
            attachment = update_attachment(context, attachment.id,
                                           connector)
        except Exception:
            # Nothing half-done: the reservation goes with the failure.
            with excutils.save_and_reraise_exception():
                LOG.warning('Connecting attachment %s failed; releasing '
                            'its reservation', attachment.id)
                attachment_db.attachment_destroy(context, attachment.id)
    return attachment


def update_attachment(context, attachment_id, connector):
    """Have the backend connect a reserved attachment to a host.

    :returns: the attachment, now ``attaching`` with its connection_info.
    """
    if not isinstance(connector, dict) or not connector.get('host'):
        raise exception.InvalidInput(
            reason='connector must be an object with at least "host"')
    with db_api.reading(context):
        attachment, volume = _attachment_and_volume(
            context, attachment_id, attachment_policies.UPDATE)
        check_backend_multiattach(context, volume)
    notifications.notify_attach(context, 'attach.start', volume, attachment)
    connection_info = _rpc().initialize_connection(
        context, volume.id, volume.host, connector, attachment.attach_mode)
    connection_info.setdefault('data', {})['access_mode'] = \
        attachment.attach_mode
    connection_info['attachment_id'] = attachment.id
    try:
        return attachment_db.attachment_update(
            context, attachment.id,
            {'attach_status': vstatus.ATTACH_ATTACHING,
             'connector': connector, 'attached_host': connector['host'],
             'mountpoint': connector.get('mountpoint'),
             'connection_info': connection_info},
            expected_status=(vstatus.ATTACH_RESERVED,
                             vstatus.ATTACH_ATTACHING),
            not_connected_elsewhere=connector['host'], current=attachment)
    except exception.CinderMAException:
        LOG.warning('Attachment %s changed while its connection was made; '
                    'terminating that connection', attachment.id)
        _terminate(context, volume, attachment.id, connector)
        raise


def complete_attachment(context, attachment_id):
    attachment, volume = _attachment_and_volume(
        context, attachment_id, attachment_policies.COMPLETE)
    attachment = attachment_db.attachment_update(
        context, attachment.id,
        {'attach_status': vstatus.ATTACH_ATTACHED,
         'attach_time': timeutils.utcnow()},
        expected_status=(vstatus.ATTACH_ATTACHING, vstatus.ATTACH_ATTACHED),
        current=attachment)
    LOG.info('Attachment %s of volume %s is attached', attachment.id,
             attachment.volume_id)
    notifications.notify_attach(context, 'attach.end', volume, attachment)
    return attachment


def _terminate(context, volume, attachment_id, connector):
    """Terminate a connection unless another attachment on the same host
    still uses it (the service counts, not each driver)."""
    if not connector or not volume.host:
        return
    still_used = attachment_db.attachment_count_sharing_connection(
        context, volume.id, connector.get('host'), attachment_id)
    if still_used:
        LOG.info('Keeping the connection of volume %s to host %s: %d other '
                 'attachment(s) use it', volume.id, connector.get('host'),
                 still_used)
        return
    _rpc().terminate_connection(context, volume.id, volume.host, connector)


def _is_connected(attachment):
    return attachment.attach_status in (
        vstatus.ATTACH_ATTACHED, vstatus.ATTACH_ATTACHING,
        vstatus.ATTACH_DETACHING) and attachment.connection_info


def delete_attachment(context, attachment_id, force=False, wait=False):
    """Terminate an attachment's connection and delete it.

    An attachment connected to an instance can only be deleted by a
    service (the lesson of CVE-2023-2088: a user deleting it would leave
    the host connected to a volume it no longer controls); others get 409.
    Administrators use :func:`force_detach`.

    :returns: the volume's other attachments (Cinder's delete answers
        them).
    """
    attachment, volume = _attachment_and_volume(
        context, attachment_id, attachment_policies.DELETE)
    if (_is_connected(attachment) and not force and
            not _is_service(context)):
        raise exception.Conflict(
            reason='attachment %s is connected to instance %s; only the '
                   'service that attached it can delete it (an '
                   'administrator can use os-force_detach)' % (
                       attachment.id, attachment.instance_uuid))
    if attachment.manager_host and attachment.attach_status in (
            vstatus.ATTACH_ATTACHED, vstatus.ATTACH_ERROR_DETACHING):
        _detach_through_host(context, volume, attachment, wait)
        return _others(context, attachment)
    detaching = attachment_db.attachment_update(
        context, attachment.id, {'attach_status': vstatus.ATTACH_DETACHING},
        expected_status=vstatus.LIVE_ATTACH_STATUSES +
        (vstatus.ATTACH_ERROR_ATTACHING,), current=attachment)
    notifications.notify_attach(context, 'detach.start', volume, attachment)
    try:
        _terminate(context, volume, attachment.id, connector_of(attachment))
    except Exception:
        LOG.exception('Terminating the connection of attachment %s failed',
                      attachment.id)
        attachment_db.attachment_update(
            context, attachment.id,
            {'attach_status': vstatus.ATTACH_ERROR_DETACHING})
        raise
    attachment_db.attachment_destroy(
        context, attachment.id, expected_status=vstatus.ATTACH_DETACHING,
        current=detaching)
    LOG.info('Deleted attachment %s of volume %s', attachment.id, volume.id)
    notifications.notify_attach(context, 'detach.end', volume, attachment)
    return _others(context, attachment)


def _others(context, attachment):
    """The other (not deleted) attachments of an attachment's volume."""
    return attachment_db.attachment_get_others(context, attachment.volume_id,
                                               attachment.id)


def _detach_through_host(context, volume, attachment, wait=False):
    attachment_db.attachment_update(
        context, attachment.id, {'attach_status': vstatus.ATTACH_DETACHING},
        expected_status=(vstatus.ATTACH_ATTACHED,
                         vstatus.ATTACH_ERROR_DETACHING,
                         vstatus.ATTACH_DETACHING))
    notifications.notify_attach(context, 'detach.start', volume, attachment)
    try:
        _rpc().detach_volume(context, attachment.id,
                             attachment.manager_host, wait=wait)
    except exception.CinderMAException:
        # The manager ran the flow, which failed and recorded
        # error_detaching itself: its error is the answer.
        LOG.warning('The detach flow of attachment %s failed on %s',
                    attachment.id, attachment.manager_host)
        raise
    except Exception as exc:
        LOG.exception('Could not ask the manager of %s to detach %s',
                      attachment.manager_host, attachment.id)
        attachment_db.attachment_update(
            context, attachment.id,
            {'attach_status': vstatus.ATTACH_ERROR_DETACHING})
        raise exception.ManagerUnavailable(host=attachment.manager_host,
                                           reason=str(exc))


def force_detach(context, volume_id, attachment_id=None):
    """Admin: detach an attachment whose consumer is gone."""
    volume = volume_api.get_volume(context, volume_id,
                                   attachment_policies.FORCE_DETACH)
    live = [a for a in volume.volume_attachment
            if a.attach_status in vstatus.LIVE_ATTACH_STATUSES +
            (vstatus.ATTACH_ERROR_ATTACHING,)]
    if attachment_id is None:
        if len(live) != 1:
            raise exception.InvalidVolume(
                reason='volume %s has %d attachments; name the one to '
                       'detach with attachment_id' % (volume.id, len(live)))
        attachment_id = live[0].id
    elif attachment_id not in [a.id for a in volume.volume_attachment]:
        raise exception.VolumeAttachmentNotFound(
            filter='attachment_id = %s, volume_id = %s' % (attachment_id,
                                                           volume.id))
    LOG.warning('Force-detaching attachment %s of volume %s at the request '
                'of %s', attachment_id, volume.id, context.user_id)
    delete_attachment(context, attachment_id, force=True)
    notifications.notify(context, 'volume.force_detach',
                         {'volume_id': volume.id,
                          'attachment_id': attachment_id})
