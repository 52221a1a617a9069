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

"""Notifications: the oslo.messaging notifier and what it sends.

Configured by ``[oslo_messaging_notifications]``; the transport is
:mod:`cinder_ma.rpc`'s. Payloads of attach and detach carry the volume
id, attachment id, instance, host and mode, so that a consumer can follow
every attachment of a shared volume.
"""

import threading

from oslo_log import log as logging
import oslo_messaging as messaging

from cinder_ma import rpc

LOG = logging.getLogger(__name__)

PUBLISHER = 'volume'

#: Notification drivers that need no bus, usable with the local transport
#: ('test' keeps notifications in memory, for tests).
BUSLESS_DRIVERS = frozenset(('noop', 'log', 'test'))

_LOCK = threading.Lock()
# (transport, notifier): the notifier of the current transport.
_NOTIFIER = None


def get_notifier(publisher_id):
    """A notifier for ``publisher_id``.

    Without a bus (the local RPC transport and no notification
    transport_url), notifications can only go to drivers that send
    nothing over a bus: 'noop' unless 'log' or 'test'
    (:data:`BUSLESS_DRIVERS`) is configured.

    :raises RuntimeError: :func:`cinder_ma.rpc.init` has not been called.
    """
    global _NOTIFIER
    transport, has_bus = rpc.get_notification_transport()
    with _LOCK:
        # A new transport after rpc.cleanup() and init(): a new notifier.
        if _NOTIFIER is None or _NOTIFIER[0] is not transport:
            _NOTIFIER = (transport, _make_notifier(transport, has_bus))
        notifier = _NOTIFIER[1]
    return notifier.prepare(publisher_id=publisher_id)


def _make_notifier(transport, has_bus):
    driver = None
    drivers = transport.conf.oslo_messaging_notifications.driver
    if not has_bus and (not drivers or set(drivers) - BUSLESS_DRIVERS):
        if drivers:
            LOG.warning('Notification drivers %s need a '
                        '[oslo_messaging_notifications] transport_url; '
                        'notifications are dropped', ', '.join(drivers))
        driver = 'noop'
    return messaging.Notifier(transport,
                              serializer=rpc.RequestContextSerializer(),
                              driver=driver)


def _attachment_payload(volume, attachment_id, instance_uuid, host, mode):
    return {
        'volume_id': volume.id,
        'attachment_id': attachment_id,
        'instance_uuid': instance_uuid,
        'host': host,
        'mode': mode,
        'multiattach': volume.multiattach,
        'project_id': volume.project_id,
    }


def attachment_payload(volume, attachment):
    return _attachment_payload(
        volume, attachment.id, attachment.instance_uuid,
        attachment.attached_host or attachment.manager_host,
        attachment.attach_mode)


def enabled():
    """Whether notifications go anywhere (False with the 'noop' driver):
    callers skip the reads that only a payload needs."""
    try:
        return get_notifier(PUBLISHER).is_enabled()
    except Exception:
        LOG.exception('Cannot tell whether notifications are enabled')
        return True


def notify(context, event_type, payload, priority='info'):
    """Emit ``volume.<event_type>``; failures are logged, never raised.

    Nothing is done for the 'noop' driver: oslo.messaging would still
    serialize the context and the payload (three times per attach cycle).
    """
    try:
        notifier = get_notifier(PUBLISHER)
        if not notifier.is_enabled():
            return
        getattr(notifier, priority)(context, event_type, payload)
    except Exception:
        LOG.exception('Could not emit notification %s', event_type)


def notify_attach(context, event_type, volume, attachment):
    notify(context, 'volume.' + event_type,
           attachment_payload(volume, attachment))


def notify_attach_of(context, event_type, volume, attachment_id,
                     instance_uuid, host, attach_mode):
    """:func:`notify_attach` of an attachment known by its values (as a
    flow saw it: after a detach its row is deleted)."""
    notify(context, 'volume.' + event_type, _attachment_payload(
        volume, attachment_id, instance_uuid, host, attach_mode))


def notify_extend(context, volume, new_size, not_resized=None):
    """Tell every host with an attachment of the volume its new size.

    :param not_resized: {attachment id: reason} of the attachments made
        through a manager whose instance does not see the new size: they
        get ``volume.attachment.extend_failed`` (priority error, with the
        reason) instead of ``volume.attachment.extended``, and
        ``volume.extend.end`` lists them.
    """
    not_resized = not_resized or {}
    for attachment in volume.volume_attachment:
        payload = attachment_payload(volume, attachment)
        payload['new_size'] = new_size
        if attachment.id in not_resized:
            payload['reason'] = not_resized[attachment.id]
            notify(context, 'volume.attachment.extend_failed', payload,
                   priority='error')
        else:
            notify(context, 'volume.attachment.extended', payload)
    notify(context, 'volume.extend.end',
           {'volume_id': volume.id, 'new_size': new_size,
            'project_id': volume.project_id,
            'attachments_not_resized': sorted(not_resized)})


def notify_fencing(context, event, volume, attachment):
    """Emit ``volume.attachment.<event>`` of the extension
    ``cinder-ma-fencing`` (``fence``, ``reconnect``, ``promote.start``,
    ``promote.end``), with the attachment's generation and whether it is
    fenced: a cluster manager following them knows which node may write.
    """
    payload = attachment_payload(volume, attachment)
    payload.update(generation=attachment.generation,
                   fenced=attachment.fenced_at is not None)
    notify(context, 'volume.attachment.' + event, payload,
           priority='warn' if event == 'fence' else 'info')


def snapshot_payload(snapshot):
    """What a snapshot notification carries (Cinder's snapshot usage
    fields that cinder_ma has)."""
    return {
        'tenant_id': snapshot.project_id,
        'user_id': snapshot.user_id,
        'snapshot_id': snapshot.id,
        'volume_id': snapshot.volume_id,
        'volume_size': snapshot.volume_size,
        'display_name': snapshot.name,
        'status': snapshot.status,
        'created_at': str(snapshot.created_at),
        'metadata': dict(snapshot.metadata or {}),
    }


def notify_snapshot(context, event_type, snapshot, priority='info',
                    **extra):
    """Emit ``<event_type>`` (``snapshot.create.start``, ...) of a
    snapshot; ``extra`` adds to its payload (``paused_seconds`` and
    ``consistent`` at ``snapshot.create.end``: how long the driver held
    the writes of the volume's connections, and whether the snapshot is
    one point in time for all of them)."""
    payload = snapshot_payload(snapshot)
    payload.update(extra)
    notify(context, event_type, payload, priority=priority)
