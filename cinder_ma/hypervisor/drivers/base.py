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

"""The interface of hypervisor drivers, for vendors.

A hypervisor driver attaches a volume's connection to an instance running
on this host. It is registered as an entry point in the
``cinder_ma.hypervisor.drivers`` namespace of its package and chosen with
``[hypervisor] driver = <entry point name>``; its options are registered
in the ``[hypervisor]`` group.

The manager connects the host to the volume first (from the storage
driver's connection info) and serializes connections to shared targets;
the hypervisor driver only deals with the instance: adding the disk to
its definition and removing it.
"""

import abc
import dataclasses

from cinder_ma import exception


@dataclasses.dataclass(frozen=True)
class HypervisorCapabilities:
    """What a hypervisor driver can do; everything defaults to False.

    :ivar supports_multiattach: a disk can be attached to several
        instances at once (libvirt: ``<shareable/>`` with ``cache='none'``)
        and read-only attachments are honoured (``<readonly/>``). Shareable
        volumes are attached only on hosts whose driver says so.
    :ivar reports_instance_owner: :meth:`HypervisorDriver.get_instance_owner`
        tells which project owns an instance of this host. Projects
        attach through a manager only into their own instances, so on a
        host whose driver cannot tell, only administrators attach.
    :ivar supports_extend_volume: :meth:`HypervisorDriver.resize_volume`
        makes a running instance see the new size of an attached disk
        (libvirt: ``virDomainBlockResize``); Nova's capability of the same
        name. An in-use volume attached through the manager of a host
        whose driver does not declare it cannot be extended.
    :ivar supports_reconnect: :meth:`HypervisorDriver.reconnect_volume`
        switches an attached disk to a new connection of the same volume
        without the instance detaching it: a standby promoted to the
        writer (extension ``cinder-ma-fencing``) keeps its disk. Only
        attachments of hosts whose driver says so are promoted.
    """

    supports_multiattach: bool = False
    reports_instance_owner: bool = False
    supports_extend_volume: bool = False
    supports_reconnect: bool = False


class HypervisorDriver(abc.ABC):
    """Base class of hypervisor drivers.

    :cvar capabilities: the driver's :class:`HypervisorCapabilities`.
    :param conf: the global configuration; the driver's options are in
        ``conf.hypervisor``.
    """

    capabilities = HypervisorCapabilities()

    def __init__(self, conf):
        self.conf = conf

    @classmethod
    def get_driver_options(cls):
        """The driver's ``oslo_config.cfg.Opt`` objects, registered in the
        ``[hypervisor]`` group.
        """
        return []

    def init_host(self, host):
        """Called once when the manager of ``host`` starts."""

    def get_instance_owner(self, instance_uuid):
        """The project that owns an instance of this host.

        Only drivers that declare ``reports_instance_owner`` implement
        it. The owner must come from what the compute service that
        created the instance recorded with it (libvirt: the domain's
        metadata), never from the caller.

        :returns: the owner's project id, or None when this host has no
            such instance or its owner is not recorded.
        """
        return None

    @abc.abstractmethod
    def attach_volume(self, instance_uuid, connection_info, attachment_id,
                      mountpoint=None, mode='rw', shareable=False):
        """Add a connected volume to an instance as a disk.

        :param instance_uuid: the instance, which runs on this host.
        :param connection_info: the storage driver's connection info,
            completed by the host connection (``data['device_path']`` or
            ``data['path']``).
        :param attachment_id: the attachment's id; a driver uses it to name
            the disk (libvirt alias) so that detach finds it.
        :param mountpoint: requested device name ('/dev/vdb'), or None.
        :param mode: 'rw' or 'ro'; a 'ro' disk must refuse writes.
        :param shareable: the volume is multiattach: other instances may
            have it attached at the same time.
        :returns: the device name the instance sees ('/dev/vdb'), or None
            when the driver cannot tell (the manager then records the
            requested mountpoint).
        :raises DriverError: the disk could not be attached (nothing must
            be left attached then).
        """

    @abc.abstractmethod
    def detach_volume(self, instance_uuid, connection_info, attachment_id):
        """Remove the disk of ``attachment_id`` from an instance.

        Idempotent: a disk that is not attached is not an error.
        """

    def resize_volume(self, instance_uuid, attachment_id, new_size_bytes):
        """Make an instance see the new size of the disk of an attachment
        whose volume was grown on its backend (online extend).

        Only drivers that declare ``supports_extend_volume`` implement it;
        the manager does not call it on others. The storage is already
        ``new_size_bytes`` long; the driver tells the hypervisor, which
        tells the guest. Idempotent: a disk already that size is not an
        error, nor is an instance that is not running (it sees the size of
        its storage when it starts).

        :raises DriverError: the instance is not on this host, the disk of
            ``attachment_id`` is not attached to it, or the hypervisor
            refused (the instance then still sees the old size).
        """
        raise NotImplementedError(
            '%s does not declare supports_extend_volume' %
            type(self).__name__)
    def reconnect_volume(self, instance_uuid, connection_info,
                         attachment_id, mode='rw', shareable=False):
        """Switch the disk of ``attachment_id`` to ``connection_info`` (a
        new connection of the same volume, in ``mode``) in place: the
        instance keeps the disk, at the same device.

        Only drivers declaring ``supports_reconnect`` implement it. The
        previous connection is already gone when this is called (the
        target ended it): the disk's I/O fails until it is switched.

        :raises DriverError: the disk is not attached, or could not be
            switched (it then keeps its previous source).
        """
        raise exception.DriverError(
            reason='hypervisor driver %s cannot reconnect a disk in place'
                   % type(self).__name__)

    def list_attached_disks(self):
        """The volume disks attached to the host's instances, for audits
        (``cinder-ma-manage attachment audit``).

        :returns: a list of ``{'instance_uuid': ..., 'attachment_id':
            ...}`` (more keys allowed), or None when the driver cannot
            list them (the default).
        """
        return None
