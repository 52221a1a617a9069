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

"""Legacy volume actions of attaching (before the attachments API).

os-reserve, os-unreserve, os-initialize_connection, os-attach,
os-begin_detaching, os-roll_detaching, os-terminate_connection and
os-detach work on the same attachment records as the attachments API, so
that the volume's status stays derived from them, and connect and
disconnect through the same flows, run by the manager of the volume's
backend (:mod:`cinder_ma.manager.flows.connect_attachment`,
:mod:`~cinder_ma.manager.flows.disconnect_attachment`).

The pre-3.27 flow of a consumer: reserve, initialize the connection (the
reservation becomes 'attaching' with the consumer's connector), attach
(it becomes 'attached'); then begin detaching (the volume shows
'detaching', its attachment stays 'attached'), terminate the connection
(ended when no other attachment on that host uses it; the record stays
without its connection) and detach (the record is deleted).
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager import rpcapi
from cinder_ma.policies import attachments as attachment_policies
from cinder_ma.policies import volumes as volume_policies
from cinder_ma import status as vstatus
from cinder_ma.volume import api as volume_api
from cinder_ma.volume import attachments
from cinder_ma.volume import scheduler

LOG = logging.getLogger(__name__)


def _volume(context, volume_id, action):
    return volume_api.get_volume(context, volume_id, action)


def _with_status(volume, *statuses):
    return [a for a in volume.volume_attachment
            if a.attach_status in statuses]


def reserve(context, volume_id):
    """os-reserve: hold the volume for an attach to come.

    As in Cinder, an available volume, or an in-use shareable one (under
    the rules of every reservation: caps, writers, bootable volumes); a
    volume that is not shareable and is attached or reserved is refused
    (400). The reservation names no instance until os-attach names it.
    """
    volume = _volume(context, volume_id, attachment_policies.CREATE)
    return attachments.reserve(context, volume, None)


def unreserve(context, volume_id):
    """os-unreserve: drop the reservations of os-reserve that were never
    connected or attached.

    Only those: a reservation of the attachments API (it names its
    instance) or of a cinder_ma manager is its owner's to delete. As in
    Cinder, a volume with nothing to drop is left as it is (no error).
    """
    volume = _volume(context, volume_id, attachment_policies.DELETE)
    for attachment in _with_status(volume, vstatus.ATTACH_RESERVED):
        if attachment.instance_uuid is None and not attachment.manager_host:
            attachment_db.attachment_destroy(
                context, attachment.id,
                expected_status=vstatus.ATTACH_RESERVED)


def initialize_connection(context, volume_id, connector):
    """os-initialize_connection: connect the volume to the connector's
    host for the attach to come.

    Connects the reservation of os-reserve (reserving now when there is
    none), through the connect flow.

    :returns: the connection info, ``{'driver_volume_type': ...,
        'data': {..., 'access_mode': ...}}``.
    """
    attachments.check_connector(connector)
    with db_api.reading(context):
        volume = _volume(context, volume_id, attachment_policies.UPDATE)
        reserved = _with_status(volume, vstatus.ATTACH_RESERVED)
        # A reservation of os-reserve first (it names no instance).
        reserved.sort(key=lambda a: a.instance_uuid is not None)
        attachments.check_backend_multiattach(context, volume)
    if reserved:
        attachment = reserved[0]
        attachment_db.check_connectable(context, attachment.id,
                                        connector['host'])
    else:
        attachment = attachments.reserve(context, volume, None)
    attachment = attachments.connect(context, attachment, volume, connector,
                                     'legacy' if reserved else 'create')
    info = attachment.connection_info
    return {key: value for key, value in info.items()
            if key not in ('attachment_id', rpcapi.SCOPE_KEY)}


def terminate_connection(context, volume_id, connector):
    """os-terminate_connection: end the connection of the connector's
    host, unless another attachment on that host still uses it.

    The attachment connected to that host (preferably one detaching) keeps
    its record, without its connection, until os-detach deletes it.
    """
    attachments.check_connector(connector)
    volume = _volume(context, volume_id, attachment_policies.DELETE)
    host = connector['host']
    connected = [a for a in volume.volume_attachment
                 if a.connector and a.attached_host == host and
                 a.attach_status in vstatus.LIVE_ATTACH_STATUSES and
                 not a.manager_host]
    if not connected:
        LOG.info('os-terminate_connection: volume %s has no connection '
                 'to host %s', volume.id, host)
        return
    # The one being detached first (os-begin_detaching marked it), then
    # the oldest.
    connected.sort(key=lambda a: (
        a.attach_status != vstatus.ATTACH_DETACHING and
        a.detach_begun_at is None, a.created_at))
    attachment = connected[0]
    if (attachment.attach_status == vstatus.ATTACH_ATTACHED and
            attachment.detach_begun_at is not None):
        # Its consumer is detaching it: from here cinder_ma tears its
        # connection down ('detaching', 'error_detaching' if that fails),
        # and os-detach deletes it.
        attachment = attachment_db.attachment_update(
            context, attachment.id,
            {'attach_status': vstatus.ATTACH_DETACHING},
            expected_status=vstatus.ATTACH_ATTACHED)
    attachments.disconnect(context, volume, attachment, terminate=True)


def attach(context, volume_id, instance_uuid=None, host_name=None,
           mountpoint=None, mode='rw'):
    """os-attach: record that a consumer attached the volume.

    Uses the reservation of os-reserve, connected by
    os-initialize_connection or not (or one of the same instance) when
    there is one, else reserves now.
    """
    if mode not in attachments.MODES:
        raise exception.InvalidInput(
            reason='mode must be one of %s' % ', '.join(attachments.MODES))
    if not instance_uuid and not host_name:
        raise exception.InvalidInput(
            reason='os-attach needs instance_uuid or host_name')
    volume = _volume(context, volume_id, attachment_policies.COMPLETE)
    reserved = [a for a in _with_status(volume, vstatus.ATTACH_RESERVED,
                                        vstatus.ATTACH_ATTACHING)
                if a.instance_uuid in (None, instance_uuid) and
                not a.manager_host]
    # One connected to the named host first, then any reservation.
    reserved.sort(key=lambda a: (
        not (a.attach_status == vstatus.ATTACH_ATTACHING and
             (host_name is None or a.attached_host == host_name)),
        a.created_at))
    if reserved:
        attachment = reserved[0]
    else:
        attachment = attachments.reserve(context, volume, instance_uuid,
                                         attach_mode=mode)
    values = {'attach_status': vstatus.ATTACH_ATTACHED,
              'instance_uuid': instance_uuid, 'mountpoint': mountpoint,
              'attach_time': timeutils.utcnow()}
    if not attachment.connector:
        # Connected by os-initialize_connection, its host and mode are
        # those of the connection. A read-only volume's are 'ro'.
        values.update(attached_host=host_name,
                      attach_mode='ro' if volume.readonly else mode)
    return attachment_db.attachment_update(
        context, attachment.id, values,
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
    """os-begin_detaching: the consumer is about to detach the volume.

    As in Cinder, it acts on the volume, which must be ``in-use`` (400
    otherwise), and changes no attachment's status: the attachment being
    detached is told by its delete (``DELETE /attachments/{id}``, or
    os-detach), which follows. The volume shows ``detaching`` meanwhile
    when that attachment is its only attached one, which is then marked
    (:func:`cinder_ma.db.attachments.attachment_begin_detaching`); a
    shareable volume with other attached attachments stays ``in-use``,
    as :func:`cinder_ma.status.derive` keeps it (so two instances can
    detach it at once, which Cinder refuses). ``attachment_id`` (the
    extension's) narrows it to that attachment.

    :returns: the id of the attachment marked, or None.
    """
    volume = _volume(context, volume_id, attachment_policies.DELETE)
    marked = attachment_db.attachment_begin_detaching(
        context, volume.id, attachment_id)
    LOG.info('os-begin_detaching of volume %s: %s', volume.id,
             'attachment %s is detaching' % marked if marked else
             'it has several attachments, none named')
    return marked


def roll_detaching(context, volume_id, attachment_id=None):
    """os-roll_detaching: the consumer's detach did not happen.

    As in Cinder, it never fails for the volume's status: the marks of
    os-begin_detaching on the volume's attachments (on ``attachment_id``
    only, when given) are dropped, which gives a volume ``detaching``
    its ``in-use`` back; a volume with none is left as it is.
    """
    volume = _volume(context, volume_id, attachment_policies.DELETE)
    rolled = attachment_db.attachment_roll_detaching(context, volume.id,
                                                     attachment_id)
    LOG.info('os-roll_detaching of volume %s: %d attachment(s) attached '
             'again', volume.id, rolled)
    return rolled


def detach(context, volume_id, attachment_id=None):
    """os-detach: detach one attachment (named, or the only one)."""
    volume = _volume(context, volume_id, attachment_policies.DELETE)
    attachment = _only(volume, attachment_id,
                       vstatus.LIVE_ATTACH_STATUSES, 'os-detach')
    attachments.delete_attachment(context, attachment.id)
    LOG.info('Detached attachment %s of volume %s (os-detach)',
             attachment.id, volume.id)


def update_readonly_flag(context, volume_id, readonly):
    """os-update_readonly_flag: make a volume read-only (its attachments
    are then 'ro' whatever mode is asked, and their connection info says
    so) or not. As in Cinder, only while the volume is available."""
    volume = _volume(context, volume_id, volume_policies.UPDATE_READONLY)
    try:
        volume_db.volume_update(context, volume.id,
                                {'readonly': bool(readonly)},
                                expected={'status': vstatus.AVAILABLE})
    except exception.Conflict:
        raise exception.InvalidVolume(
            reason='volume %s is %s; its read-only flag can be changed '
                   'only while it is available' % (
                       volume.id, _volume(context, volume.id,
                                          volume_policies.UPDATE_READONLY
                                          ).status))
    LOG.info('Volume %s is now %s', volume.id,
             'read-only' if readonly else 'read-write')


def force_delete(context, volume_id):
    """os-force_delete (admin): detach every attachment, then delete.

    Attachments made through a cinder_ma manager go through that host's
    detach flow (waited for); those of external consumers have their
    connections terminated. Any failure stops here, before the delete,
    with the attachment in error_detaching.

    :raises ManagerUnavailable: the manager of an attachment's host is
        down (nothing is detached: the disk must leave the instance
        first).
    """
    volume = _volume(context, volume_id, volume_policies.FORCE_DELETE)
    live = [a for a in volume.volume_attachment
            if a.attach_status in vstatus.LIVE_ATTACH_STATUSES +
            (vstatus.ATTACH_ERROR_ATTACHING,)]
    for attachment in live:
        if (attachment.manager_host and
                not scheduler.manager_is_up(context,
                                            attachment.manager_host)):
            raise exception.ManagerUnavailable(
                host=attachment.manager_host,
                reason='it is down and holds attachment %s of volume %s; '
                       'nothing was detached or deleted' % (attachment.id,
                                                            volume.id))
    for attachment in live:
        LOG.warning('Force-delete of volume %s: detaching attachment %s '
                    '(instance %s)', volume.id, attachment.id,
                    attachment.instance_uuid)
        attachments.delete_attachment(context, attachment.id, force=True,
                                      wait=True)
    volume_api.delete_volume(context, volume.id, force=True)
