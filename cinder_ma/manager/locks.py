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

"""The connection locks of the attach and detach flows.

A host's connections to one volume (and, when the backend has shared
targets, to every volume of that backend) change under one lock, from
"initialize connection" to "attachment recorded as attaching" and from
"disconnect" to "attachment deleted", so that deciding whether a
connection is still used (counting the attachments in the database) and
tearing it down happen as one step. Reverts of those steps run under the
same lock.

Every connection lock is a lock of the coordination backend
(:mod:`cinder_ma.coordination`), whoever takes it: a manager's flows, the
API's flows of the attachments API and the legacy actions, the reconcile
loop. So it serializes the threads of a process, the processes of a host
(the API's workers, cinder-ma-all's workers) and, with a shared
``[coordination] backend_url``, the API and manager processes of every
host.
"""

from oslo_log import log as logging

from cinder_ma import coordination

LOG = logging.getLogger(__name__)

LOCK_PREFIX = 'cinder_ma-connect-'


def connection_lock_name(volume_id, shared_targets, service_uuid):
    """Name of the lock guarding a volume's host connections.

    :returns: with shared targets, ``cinder_ma-connect-<service_uuid>``,
        the lock of every volume of the backend (as os-brick's users take
        it); otherwise ``cinder_ma-connect-volume-<volume_id>``.
    :raises ValueError: shared targets without a service uuid.
    """
    if shared_targets:
        if not service_uuid:
            raise ValueError('volume %s has shared targets but no '
                             'service_uuid' % volume_id)
        return LOCK_PREFIX + service_uuid
    return '%svolume-%s' % (LOCK_PREFIX, volume_id)


class ConnectionLock:
    """A lock one task of a flow takes and a later one, or whoever ran
    the flow, releases.

    The tasks get the same object from the flow's store
    (``connection_lock``). The flows that take it run on TaskFlow's serial
    engine, whose tasks run one after the other on the caller's thread
    (:func:`cinder_ma.manager.flows.run`), so the object needs no lock of
    its own. :meth:`acquire` and :meth:`release` are idempotent, so that
    reverts and the caller can call them whatever happened.

    :param coordinator: the :class:`~cinder_ma.coordination.Coordinator`
        whose lock it is (default: the process's).
    """

    def __init__(self, name, coordinator=None):
        self.name = name
        self.coordinator = coordinator or coordination.COORDINATOR
        self._held = None

    @classmethod
    def for_volume(cls, volume_id, shared_targets, service_uuid):
        """The lock of a volume's connections (see
        :func:`connection_lock_name`)."""
        return cls(connection_lock_name(volume_id, shared_targets,
                                        service_uuid))

    @property
    def held(self):
        return self._held is not None

    def acquire(self):
        """Take the lock, waiting for any other holder.

        :raises CoordinationUnavailable: the coordination backend failed;
            the lock is not held.
        """
        if self._held is not None:
            return
        self._held = self.coordinator.acquire(self.name)

    def release(self):
        """Release the lock if held; never raises."""
        held, self._held = self._held, None
        if held is not None:
            self.coordinator.release(held)

    def __repr__(self):
        return '<ConnectionLock %s%s>' % (self.name,
                                          ' held' if self.held else '')


def inter_process_lock_of(volume):
    """The lock of ``volume``'s connections, for those who count the
    users of a host's connection and tear it down outside a manager's
    flows (the API's flows, the reconcile loop). The same lock as
    :meth:`ConnectionLock.for_volume`, held across threads, processes and
    (with a shared coordination backend) hosts."""
    try:
        return ConnectionLock.for_volume(
            volume.id, volume.shared_targets, volume.service_uuid)
    except ValueError:
        # Shared targets without a service uuid: the volume's own lock.
        return ConnectionLock.for_volume(volume.id, False, None)
