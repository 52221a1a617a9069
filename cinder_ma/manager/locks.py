"""Host-local locks of the attach and detach flows.

A host's connections to one volume (and, when the backend has shared
targets, to every volume of that backend) change under one lock, from
"initialize connection" to "attachment recorded as attaching" and from
"disconnect" to "attachment deleted", so that deciding whether a
connection is still used (counting the attachments in the database) and
tearing it down happen as one step. Reverts of those steps run under the
same lock.
"""

from oslo_concurrency import lockutils
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

LOCK_PREFIX = 'cinder_ma-connect-'


def connection_lock_name(volume_id, shared_targets, service_uuid,
                         inter_process=False):
    """Name and kind of the lock guarding a volume's host connection.

    :param inter_process: several processes run managers of this host
        (the workers of cinder-ma-all): every lock must be external.
    :returns: ``(name, external)``: with shared targets, the external
        (inter-process) lock ``cinder_ma-connect-<service_uuid>`` of the
        backend, as os-brick's users take it; otherwise a lock of the
        volume, internal unless ``inter_process``.
    :raises ValueError: shared targets without a service uuid.
    """
    if shared_targets:
        if not service_uuid:
            raise ValueError('volume %s has shared targets but no '
                             'service_uuid' % volume_id)
        return LOCK_PREFIX + service_uuid, True
    return '%svolume-%s' % (LOCK_PREFIX, volume_id), inter_process


class ConnectionLock:
    """A lock one task of a flow takes and a later one releases.

    Both tasks get the same object from the flow factory. Tasks of a flow
    run one after the other on one thread (the serial engine), so the
    object needs no lock of its own. :meth:`acquire` and :meth:`release`
    are idempotent, so that reverts can call them whatever happened.
    """

    def __init__(self, name, external=False):
        self.name = name
        self.external = external
        self._held = None

    @classmethod
    def for_volume(cls, volume_id, shared_targets, service_uuid,
                   inter_process=False):
        """The lock of a volume's connections (see
        :func:`connection_lock_name`)."""
        return cls(*connection_lock_name(volume_id, shared_targets,
                                         service_uuid, inter_process))

    @property
    def held(self):
        return self._held is not None

    def acquire(self):
        if self._held is not None:
            return
        held = lockutils.lock(self.name, external=self.external)
        held.__enter__()
        self._held = held

    def release(self):
        held, self._held = self._held, None
        if held is not None:
            held.__exit__(None, None, None)

    def __repr__(self):
        return '<ConnectionLock %s%s%s>' % (
            self.name, ' external' if self.external else '',
            ' held' if self.held else '')


def inter_process_lock_of(volume):
    """The connection lock of ``volume``'s connections, held across the
    processes of this host (the API's workers, cinder-ma-all's workers,
    a manager's reconcile loop): whoever counts the users of a host's
    connection and tears it down holds it."""
    try:
        return ConnectionLock.for_volume(
            volume.id, volume.shared_targets, volume.service_uuid,
            inter_process=True)
    except ValueError:
        # Shared targets without a service uuid: the volume's own lock.
        return ConnectionLock.for_volume(volume.id, False, None,
                                         inter_process=True)
