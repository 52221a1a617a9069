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

"""Tasks on this host's hypervisor: adding a connected volume to an
instance as a disk, and removing it.
"""

from oslo_log import log as logging
from taskflow import task
from taskflow.types import failure as tf_failure

from cinder_ma import exception
from cinder_ma.manager import connector as host_connector

LOG = logging.getLogger(__name__)


def _error(reason):
    return exception.DriverError(message=reason, reason=reason)


class _HypervisorTask(task.Task):

    def __init__(self, driver, **kwargs):
        super().__init__(**kwargs)
        self.driver = driver


class CheckHypervisor(_HypervisorTask):
    """Refuse, before any driver is called, what this host cannot do: it
    runs no hypervisor driver, or the volume is shareable and its driver
    does not declare ``supports_multiattach`` (the API checks the same
    from the services table; this host knows for sure).
    """

    def execute(self, host, shareable=False):
        if self.driver is None:
            raise _error('the manager of host %s runs no hypervisor driver '
                         '([hypervisor] driver)' % host)
        if shareable and not self.driver.capabilities.supports_multiattach:
            raise _error('the hypervisor driver of host %s (%s) does not '
                         'support multiattach; it cannot attach a '
                         'shareable volume' % (host,
                                               type(self.driver).__name__))


class AttachOnHypervisor(_HypervisorTask):
    """Add the connected volume to the instance; revert: remove it.

    Provides the device the instance got: the one the driver reports, else
    the requested mountpoint (None when neither is known).
    """

    default_provides = 'device'

    def execute(self, instance_uuid, connection_info, device_info,
                attachment_id, attach_mode, shareable, mountpoint=None):
        device = self.driver.attach_volume(
            instance_uuid,
            host_connector.with_device(connection_info, device_info),
            attachment_id, mountpoint=mountpoint, mode=attach_mode,
            shareable=shareable)
        return device or mountpoint

    def revert(self, instance_uuid, connection_info, device_info,
               attachment_id, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            # A failed attach leaves nothing attached (driver contract).
            return
        try:
            self.driver.detach_volume(
                instance_uuid,
                host_connector.with_device(connection_info, device_info),
                attachment_id)
        except Exception:
            LOG.exception('Could not detach attachment %s from instance %s '
                          'while reverting its attach; the disk may be left '
                          'on the instance', attachment_id, instance_uuid)
            return
        LOG.info('Detached attachment %s from instance %s (attach '
                 'reverted)', attachment_id, instance_uuid)


class DetachFromHypervisor(_HypervisorTask):
    """Remove the attachment's disk from the instance (idempotent).

    Not undone: reattaching a disk the user asked to detach is not a
    repair. Its revert only logs; detaching again finishes the detach.
    """

    def execute(self, instance_uuid, connection_info, attachment_id):
        self.driver.detach_volume(instance_uuid, connection_info,
                                  attachment_id)
        LOG.info('Detached attachment %s from instance %s', attachment_id,
                 instance_uuid)

    def revert(self, instance_uuid, attachment_id, result, *args,
               **kwargs):
        if not isinstance(result, tf_failure.Failure):
            LOG.warning('Attachment %s is detached from instance %s but its '
                        'detach did not complete; detaching again finishes '
                        'it', attachment_id, instance_uuid)


class ReconnectOnHypervisor(_HypervisorTask):
    """Switch the instance's disk of the attachment to its new connection
    in place (a promoted standby: read-write now).

    Not undone: the previous connection is gone at the target, so the
    disk's old source works no more; its revert only logs, and promoting
    again switches it.
    """

    def execute(self, instance_uuid, connection_info, device_info,
                attachment_id, attach_mode, shareable):
        self.driver.reconnect_volume(
            instance_uuid,
            host_connector.with_device(connection_info, device_info),
            attachment_id, mode=attach_mode, shareable=shareable)
        LOG.info('Reconnected attachment %s of instance %s (%s)',
                 attachment_id, instance_uuid, attach_mode)

    def revert(self, instance_uuid, attachment_id, result, *args,
               **kwargs):
        if not isinstance(result, tf_failure.Failure):
            LOG.warning('The disk of attachment %s of instance %s is '
                        'switched to its new connection although the '
                        'promotion failed', attachment_id, instance_uuid)
