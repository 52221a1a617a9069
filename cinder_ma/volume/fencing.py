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

"""Fencing and standby promotion (extension ``cinder-ma-fencing``): the
rules, run in the API process.

Fencing cuts one attachment off at the storage target: its connection
must be its own (its backend declares ``per_attachment_connections`` and
connected it through a manager of RPC API 1.5 or later), so that the
host's other attachments keep theirs. The decision is recorded first
(compare-and-swap, :mod:`cinder_ma.db.fencing`), then carried out by a
flow that the manager of the volume's backend runs (or, for an
attachment made through a manager, the manager of its host); both are
idempotent, so repeating an action whose flow failed finishes it.

* :func:`fence_attachment`: the attachment is fenced, its connection
  ended at once. It stays fenced until its consumer connects it again
  with a new connector (:func:`reconnect_attachment`, reached through
  ``PUT /attachments/{id}``: new credentials, the next generation) or it
  is deleted.
* :func:`promote_attachment`: on a volume whose type allows one writer,
  a connected read-only attachment becomes the writer: in one
  transaction the writer is made read-only and fenced and the standby
  made the writer at the next generation; then the old writer's
  connection is ended before the standby's read-write one is made. An
  attachment made through a manager is switched on its host by that
  manager, without the instance detaching the disk.
"""

from oslo_log import log as logging

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import fencing as fencing_db
from cinder_ma.db import messages as message_db
from cinder_ma.db import services as service_db
from cinder_ma import exception
from cinder_ma.manager import rpcapi
from cinder_ma import message_field
from cinder_ma import notifications
from cinder_ma.policies import attachments as attachment_policies
from cinder_ma import status as vstatus
from cinder_ma.volume import attachments
from cinder_ma.volume import scheduler

LOG = logging.getLogger(__name__)


def _check_own_connection(attachment, volume, what):
    """409 unless the attachment's recorded connection is its own."""
    if not rpcapi.is_attachment_scoped(
            attachment.connection_info):
        raise exception.Conflict(
            reason='the connection of attachment %s is not its own: it is '
                   'shared by the attachments of volume %s on its host '
                   '(its backend does not make connections per '
                   'attachment, or it was connected by a manager older '
                   'than RPC API 1.5); it cannot be %s alone: delete the '
                   'attachment (os-force_detach) instead' % (
                       attachment.id, volume.id, what))


def _check_managers(context, api, volume, attachment=None):
    """Refuse before anything is recorded when the pin, or the manager of
    the volume's backend, cannot run the flow that ends one attachment's
    connection (RPC API 1.8), or the manager of the attachment's host,
    for one made through a manager, cannot switch its disk (1.5)."""
    what = 'end the connection of one attachment'
    if not api.can_send_version('1.8'):
        raise exception.ServiceTooOld(
            what=what, host=volume.host, version='1.8',
            cap=rpcapi.version_cap())
    rpcapi.require_reported(context, rpcapi.server_for(volume.host), '1.8',
                            what)
    if attachment is not None and attachment.manager_host:
        rpcapi.require_reported(context, attachment.manager_host, '1.5',
                                'promote attachment %s' % attachment.id)


def _revoke_item(attachment):
    return {'attachment_id': attachment.id,
            'connector': attachment.connector}


def _tell_user(context, volume):
    """The user message of an attachment of ``volume`` fenced: its
    instance lost its access until it is connected again."""
    message_db.record(context, volume.project_id,
                      message_field.Action.FENCE_ATTACHMENT,
                      resource_uuid=volume.id,
                      detail=message_field.Detail.ATTACHMENT_FENCED,
                      level='WARNING')


def fence_attachment(context, attachment_id):
    """Fence an attachment: revoke its access at the target at once.

    :raises Conflict: it holds no connection, or its connection is its
        host's (shared with other attachments).
    :raises ServiceTooOld: ``[upgrade_levels] manager`` is below 1.5.
    :returns: the attachment, fenced.
    """
    attachment, volume = attachments.attachment_and_volume(
        context, attachment_id, attachment_policies.FENCE)
    if not fencing_db.is_connected(attachment):
        raise fencing_db.not_connected_error(attachment)
    _check_own_connection(attachment, volume, 'fenced')
    _check_managers(context, attachments.manager_api(), volume)
    fenced, newly = fencing_db.attachment_fence(context, attachment.id)
    if newly:
        LOG.warning('Fencing attachment %s of volume %s (generation %d) at '
                    'the request of %s', fenced.id, volume.id,
                    fenced.generation, context.user_id)
        notifications.notify_fencing(context, 'fence', volume, fenced)
        _tell_user(context, volume)
    else:
        LOG.info('Attachment %s of volume %s is fenced already; revoking '
                 'its connection again', fenced.id, volume.id)
    attachments.manager_api().fence_attachment(context, volume.host,
                                               fenced.id)
    return attachment_db.attachment_get(context, fenced.id)


def reconnect_attachment(context, attachment, volume, connector):
    """Connect a fenced attachment again with its consumer's new
    connector (``PUT /attachments/{id}``): a new connection with new
    credentials, the next generation, 'attaching' until ``os-complete``.

    :raises Conflict: it was made through a manager, or is in a status
        that cannot be connected again, or changed meanwhile.
    """
    if attachment.manager_host:
        raise exception.Conflict(
            reason='attachment %s is fenced and was made through the '
                   'manager of %s: delete it to detach it from its '
                   'instance, then attach again' % (
                       attachment.id, attachment.manager_host))
    if attachment.attach_status not in fencing_db.RECONNECTABLE_STATUSES:
        raise exception.Conflict(
            reason='attachment %s is fenced and %s: only an attaching or '
                   'attached one can be connected again' % (
                       attachment.id, attachment.attach_status))
    attachments.check_backend_multiattach(context, volume)
    host = connector['host']
    attachments.manager_api().reconnect_attachment(
        context, volume.host, attachment.id, connector)
    reconnected = attachment_db.attachment_get(context, attachment.id)
    LOG.info('Attachment %s of volume %s is connected again (generation '
             '%d, host %s)', attachment.id, volume.id,
             reconnected.generation, host)
    notifications.notify_fencing(context, 'reconnect', volume, reconnected)
    return reconnected


def _writers_of(volume, others):
    return [a for a in others if a.attach_mode == 'rw' and
            a.attach_status in vstatus.LIVE_ATTACH_STATUSES]


def _promotion_unfinished(attachment):
    """Whether ``attachment`` is the writer of a promotion whose work at
    the target did not finish: recorded read-write, connected read-only.
    """
    info = attachment.connection_info or {}
    return (attachment.attach_mode == 'rw' and
            attachment.fenced_at is None and
            (info.get('data') or {}).get('access_mode') == 'ro')


def _check_promotable(context, attachment, volume, specs):
    if attachments.writer_policy(volume, specs) != 'one':
        raise exception.InvalidVolume(
            reason='volume %s has no one-writer policy (its type does not '
                   'set multiattach:writers = one): every attachment of it '
                   'may write already; promotion is for one-writer '
                   'volumes' % volume.id)
    if volume.readonly:
        raise exception.InvalidVolume(
            reason='volume %s is read-only: it has no writer' % volume.id)
    if attachment.fenced_at is not None:
        raise exception.Conflict(
            reason='attachment %s is fenced: connect it again with a new '
                   'connector (PUT) before promoting it' % attachment.id)
    if attachment.attach_mode != 'ro' and \
            not _promotion_unfinished(attachment):
        raise exception.Conflict(
            reason='attachment %s is the writer of volume %s already; '
                   'only a read-only attachment can be promoted' % (
                       attachment.id, volume.id))
    if attachment.attach_status not in fencing_db.PROMOTABLE_STATUSES or \
            not attachment.connection_info:
        raise exception.Conflict(
            reason='attachment %s is %s: only a connected (attaching or '
                   'attached) read-only attachment can be promoted' % (
                       attachment.id, attachment.attach_status))
    _check_own_connection(attachment, volume, 'promoted')
    if attachment.manager_host:
        _check_host_can_reconnect(context, attachment)


def _check_host_can_reconnect(context, attachment):
    host = attachment.manager_host
    service = service_db.service_get_by_host_and_binary(
        context, host, scheduler.MANAGER_BINARY)
    if service is None or not service_db.service_is_up(service):
        raise exception.ManagerUnavailable(
            host=host, reason='it is down; attachment %s made through it '
                              'cannot be promoted now' % attachment.id)
    hypervisor = scheduler.capabilities_of(service).get('hypervisor') or {}
    if not hypervisor.get('supports_reconnect'):
        raise exception.Conflict(
            reason='the hypervisor driver of host %s cannot switch a disk '
                   'to a new connection in place; attachment %s made '
                   'through it cannot be promoted' % (host, attachment.id))


def promote_attachment(context, attachment_id):
    """Make a read-only attachment of a one-writer volume its writer.

    Promoting the writer of a promotion that did not finish at the target
    finishes it.

    :raises InvalidVolume: the volume has no one-writer policy, or is
        read-only.
    :raises Conflict: the attachment is not a connected, unfenced,
        read-only one with its own connection; the writer's connection is
        not its own; or a concurrent promotion won.
    :raises ManagerUnavailable: the manager of the attachment's host (for
        one made through a manager) is down.
    :returns: the attachment, the writer now.
    """
    with db_api.reading(context):
        attachment, volume = attachments.attachment_and_volume(
            context, attachment_id, attachment_policies.PROMOTE)
        specs = attachments.shareable_specs(context, volume)
        others = attachment_db.attachment_get_others(
            context, volume.id, attachment.id)
    _check_promotable(context, attachment, volume, specs)
    _check_managers(context, attachments.manager_api(), volume, attachment)
    writers = _writers_of(volume, others)
    for writer in writers:
        if fencing_db.is_connected(writer) and not \
                rpcapi.is_attachment_scoped(
                    writer.connection_info):
            raise exception.Conflict(
                reason='the connection of writer %s of volume %s is shared '
                       'by the attachments of its host: it cannot be '
                       'revoked alone, so attachment %s cannot be '
                       'promoted; force-detach the writer first' % (
                           writer.id, volume.id, attachment.id))
    if attachment.attach_mode == 'ro':
        # A writer fenced before was told of then; its demotion is not a
        # second fence.
        fenced_before = {w.id for w in writers if w.fenced_at is not None}
        promoted, demoted = fencing_db.attachment_promote(
            context, attachment.id, attachment.generation,
            [w.id for w in writers])
        for writer in demoted:
            if (writer.fenced_at is not None and
                    writer.id not in fenced_before):
                notifications.notify_fencing(context, 'fence', volume,
                                             writer)
                _tell_user(context, volume)
        LOG.warning('Promoted attachment %s of volume %s to writer '
                    '(generation %d) at the request of %s; demoted and '
                    'fenced: %s', promoted.id, volume.id,
                    promoted.generation, context.user_id,
                    ', '.join(w.id for w in demoted) or 'none')
        revoke = [_revoke_item(w) for w in demoted
                  if w.fenced_at is not None]
    else:
        # Finishing a promotion: whatever is fenced must stay cut off.
        promoted = attachment
        revoke = [{'attachment_id': item.id, 'connector': item.connector}
                  for item in fencing_db.fenced_connections(context,
                                                            volume.id)
                  if item.connector and
                  rpcapi.is_attachment_scoped(item.connection_info)]
        LOG.info('Finishing the promotion of attachment %s of volume %s '
                 '(generation %d)', promoted.id, volume.id,
                 promoted.generation)
    notifications.notify_fencing(context, 'promote.start', volume, promoted)
    if promoted.manager_host:
        attachments.manager_api().promote_attachment(
            context, promoted.id, promoted.manager_host,
            [item['attachment_id'] for item in revoke])
    else:
        attachments.manager_api().promote_consumer_attachment(
            context, volume.host, promoted.id,
            [item['attachment_id'] for item in revoke])
    done = attachment_db.attachment_get(context, promoted.id)
    notifications.notify_fencing(context, 'promote.end', volume, done)
    return done
