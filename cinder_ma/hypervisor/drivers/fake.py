"""An in-memory hypervisor driver for tests and the all-in-one service.

It attaches nothing: it records which attachment is attached to which
instance, with its mode, so that tests can check what a real hypervisor
would have been asked to do. It knows the owners of the instances added
with :meth:`FakeDriver.add_instance` only: through it, projects cannot
attach into any other instance. The device it reports is the requested
mountpoint (None when none was requested). A resize (online extend) is
recorded as the disk's ``size`` in bytes, and in :attr:`FakeDriver.resizes`.
"""

import copy
import threading

from oslo_log import log as logging

from cinder_ma import exception
from cinder_ma.hypervisor.drivers import base

LOG = logging.getLogger(__name__)


class FakeDriver(base.HypervisorDriver):
    """Records attachments in memory."""

    capabilities = base.HypervisorCapabilities(
        supports_multiattach=True, reports_instance_owner=True,
        supports_extend_volume=True)

    #: The owner of instances that were not added (None: unknown).
    default_owner = None

    def __init__(self, conf):
        super().__init__(conf)
        self._lock = threading.Lock()
        self._attachments = {}
        self._owners = {}
        #: (instance_uuid, attachment_id, new_size_bytes) of every resize.
        self.resizes = []

    def add_instance(self, instance_uuid, project_id):
        """Record an instance of this host and its owner, as a compute
        service records them when it creates the instance."""
        with self._lock:
            self._owners[instance_uuid] = project_id

    def get_instance_owner(self, instance_uuid):
        with self._lock:
            return self._owners.get(instance_uuid, self.default_owner)

    def attach_volume(self, instance_uuid, connection_info, attachment_id,
                      mountpoint=None, mode='rw', shareable=False):
        if mode not in ('rw', 'ro'):
            raise exception.DriverError(
                reason='access mode must be rw or ro, not %r' % mode)
        record = {'instance_uuid': instance_uuid,
                  'attachment_id': attachment_id,
                  'connection_info': copy.deepcopy(connection_info),
                  'mountpoint': mountpoint,
                  'mode': mode,
                  'shareable': bool(shareable),
                  'size': None}
        with self._lock:
            existing = self._attachments.get(attachment_id)
            if existing is not None:
                if existing['instance_uuid'] != instance_uuid:
                    raise exception.DriverError(
                        reason='attachment %s is attached to instance %s' % (
                            attachment_id, existing['instance_uuid']))
                return existing['mountpoint']
            self._attachments[attachment_id] = record
        LOG.info('Fake hypervisor: attached %s to instance %s (%s%s)',
                 attachment_id, instance_uuid, mode,
                 ', shareable' if shareable else '')
        return mountpoint

    def detach_volume(self, instance_uuid, connection_info, attachment_id):
        with self._lock:
            record = self._attachments.get(attachment_id)
            if record is None or record['instance_uuid'] != instance_uuid:
                return
            del self._attachments[attachment_id]
        LOG.info('Fake hypervisor: detached %s from instance %s',
                 attachment_id, instance_uuid)

    def resize_volume(self, instance_uuid, attachment_id, new_size_bytes):
        """Record the disk's new size; a disk that is not attached to the
        instance is a DriverError, as with a real hypervisor."""
        with self._lock:
            record = self._attachments.get(attachment_id)
            if record is None or record['instance_uuid'] != instance_uuid:
                raise exception.DriverError(
                    reason='attachment %s is not attached to instance %s' %
                    (attachment_id, instance_uuid))
            record['size'] = int(new_size_bytes)
            self.resizes.append((instance_uuid, attachment_id,
                                 int(new_size_bytes)))
        LOG.info('Fake hypervisor: resized %s of instance %s to %d bytes',
                 attachment_id, instance_uuid, new_size_bytes)

    def list_attachments(self, instance_uuid=None):
        """Copies of the recorded attachments (of one instance, or all)."""
        with self._lock:
            return [copy.deepcopy(r) for r in self._attachments.values()
                    if instance_uuid in (None, r['instance_uuid'])]

    def list_attached_disks(self):
        """The recorded attachments, as audits read them."""
        return [{'instance_uuid': r['instance_uuid'],
                 'attachment_id': r['attachment_id'],
                 'target': r['mountpoint']}
                for r in self.list_attachments()]
