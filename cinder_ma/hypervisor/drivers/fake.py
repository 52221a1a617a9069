"""An in-memory hypervisor driver for tests and the all-in-one service.

It attaches nothing: it records which attachment is attached to which
instance, with its mode, so that tests can check what a real hypervisor
would have been asked to do. The device it reports is the requested
mountpoint (None when none was requested).
"""

import copy
import threading

from oslo_log import log as logging

from cinder_ma import exception
from cinder_ma.hypervisor.drivers import base

LOG = logging.getLogger(__name__)


class FakeDriver(base.HypervisorDriver):
    """Records attachments in memory."""

    capabilities = base.HypervisorCapabilities(supports_multiattach=True)

    def __init__(self, conf):
        super().__init__(conf)
        self._lock = threading.Lock()
        self._attachments = {}

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
                  'shareable': bool(shareable)}
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

    def list_attachments(self, instance_uuid=None):
        """Copies of the recorded attachments (of one instance, or all)."""
        with self._lock:
            return [copy.deepcopy(r) for r in self._attachments.values()
                    if instance_uuid in (None, r['instance_uuid'])]
