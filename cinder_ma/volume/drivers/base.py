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

"""The interface of storage drivers, for vendors.

A storage driver is a Python class registered as an entry point in the
``cinder_ma.volume.drivers`` namespace of its own package::

    [project.entry-points."cinder_ma.volume.drivers"]
    acme = "acme_cinder_ma.driver:AcmeDriver"

An operator enables it by naming the entry point in a backend section::

    [DEFAULT]
    enabled_backends = fast

    [fast]
    volume_driver = acme
    acme_api_url = https://array.example.com

The manager of each host loads the drivers of its enabled backends with
stevedore, registers their options in the backend's section (and in
``[backend_defaults]``), creates one instance per backend and calls
:meth:`VolumeDriver.do_setup` once before any other method.

Drivers never see database models: they receive :class:`VolumeRef`
values, and report what they can do with a typed :class:`Capabilities`
declaration (every capability defaults to False) plus the capacity figures
of :meth:`VolumeDriver.get_stats`. The manager publishes both in the
services table, where the scheduler reads them.

Calls happen on the manager's threads, possibly several at once for
different volumes: a driver protects its own shared state. Errors are
raised as :class:`cinder_ma.exception.DriverError` (or a subclass) with a
reason an operator can act on; the manager records it on the volume.
"""

import abc
import dataclasses

from cinder_ma import connection_info
from cinder_ma import exception

#: Access modes of a connection: read-write and read-only.
ACCESS_MODES = ('rw', 'ro')

#: The key of ``connection_info['data']`` that holds the volume's size in
#: GiB (:data:`cinder_ma.connection_info.SIZE_KEY`).
SIZE_KEY = connection_info.SIZE_KEY

GiB = 1024 ** 3


@dataclasses.dataclass(frozen=True)
class Capabilities:
    """What a driver's backend can do; everything defaults to False.

    :ivar multiattach: a volume can be connected to several hosts (and
        attached to several instances) at the same time.
    :ivar shared_targets: several volumes share one target on a host (an
        iSCSI target with many LUNs, say), so the host's connection to it
        must be serialized and torn down only by its last user. The
        manager of a host then connects and disconnects every volume of
        the backend under one lock, and logs the host out of the target
        only when no volume of the backend is connected to it any more;
        :meth:`VolumeDriver.terminate_connection` of one volume must keep
        the host's access to the target for the others.
    :ivar online_extend: a volume can be extended while it is attached.
    :ivar per_attachment_connections: every attachment gets a connection
        of its own (its own export and credentials), which can be ended
        alone: :meth:`VolumeDriver.initialize_connection` and
        :meth:`VolumeDriver.terminate_connection` then take the
        attachment's id as the keyword argument ``attachment_id``. The
        manager no longer counts the users of a host's connection for
        such connections, and an attachment can be fenced (its access
        revoked at the target) and promoted (its connection made again in
        another mode). A driver without it keeps one connection per
        volume, host and mode, shared by the attachments of that host.
    :ivar snapshots: the driver takes and deletes snapshots
        (:meth:`VolumeDriver.create_snapshot`,
        :meth:`VolumeDriver.delete_snapshot`), makes volumes from them
        (:meth:`VolumeDriver.create_volume_from_snapshot`) and reverts a
        volume to one (:meth:`VolumeDriver.revert_to_snapshot`).
    :ivar clone: the driver copies a volume into a new one
        (:meth:`VolumeDriver.create_cloned_volume`), also while it is
        attached.
    :ivar consistent_snapshots: a snapshot of an attached volume holds
        every write its connections completed before it and none they
        started after it, across all of them (the driver quiesces its
        exports while it copies). Without it, the snapshot of an
        attached volume is crash-consistent for one writer only: with
        several writers, one's write may land in it and another's,
        completed earlier, not.
    """

    multiattach: bool = False
    shared_targets: bool = False
    online_extend: bool = False
    per_attachment_connections: bool = False
    snapshots: bool = False
    clone: bool = False
    consistent_snapshots: bool = False


@dataclasses.dataclass(frozen=True)
class VolumeRef:
    """The volume as a driver sees it.

    :ivar id: the volume's UUID.
    :ivar size: size in GiB.
    :ivar name: the storage name of the volume, ``volume-<id>``; drivers
        name their objects after it (it is not the user's display name).
    :ivar multiattach: the volume is shareable: it may be connected to
        several hosts at once.
    :ivar host: where the volume lives, ``node@backend#pool``.
    :ivar qos_specs: the back-end QoS specs of the volume's type (consumer
        ``back-end`` or ``both``) as a dict of strings, or None. Given to
        :meth:`VolumeDriver.create_volume` and
        :meth:`VolumeDriver.initialize_connection`; a driver that can
        limit a volume's I/O applies the keys it knows (Cinder's names:
        ``total_iops_sec``, ``read_bytes_sec``, ..., or its vendor's) and
        ignores the others. Drivers that predate it need not change.
    """

    id: str
    size: int
    name: str
    multiattach: bool = False
    host: str | None = None
    qos_specs: dict | None = dataclasses.field(default=None, hash=False)

    @classmethod
    def for_volume(cls, volume_id, size, multiattach=False, host=None,
                   qos_specs=None):
        """A reference with the storage name derived from the id."""
        return cls(id=volume_id, size=size, name='volume-%s' % volume_id,
                   multiattach=bool(multiattach), host=host,
                   qos_specs=dict(qos_specs) if qos_specs else None)

    @property
    def pool(self):
        """The pool part of ``host`` (after '#'), or None."""
        if self.host and '#' in self.host:
            return self.host.split('#', 1)[1]
        return None


@dataclasses.dataclass(frozen=True)
class SnapshotRef:
    """A snapshot as a driver sees it.

    :ivar id: the snapshot's UUID.
    :ivar volume: the :class:`VolumeRef` of its volume.
    :ivar size: the volume's size when it was taken, in GiB.
    :ivar name: the storage name of the snapshot, ``snapshot-<id>``.
    """

    id: str
    volume: VolumeRef
    size: int
    name: str

    @classmethod
    def for_snapshot(cls, snapshot_id, volume, size):
        return cls(id=snapshot_id, volume=volume, size=size,
                   name='snapshot-%s' % snapshot_id)


class VolumeDriver(abc.ABC):
    """Base class of storage drivers.

    Class attributes a driver sets:

    :cvar capabilities: the :class:`Capabilities` of the backend.
    :cvar vendor_name: reported to the scheduler and to operators.
    :cvar driver_version: the driver's own version string.
    :cvar storage_protocol: how hosts reach volumes ('file', 'iSCSI',
        'NVMe-oF', ...); the ``driver_volume_type`` of the connections.

    :param configuration: the backend's configuration: attribute access
        to its section's options (``configuration.my_option``), falling
        back to ``[backend_defaults]``; ``configuration.name`` is the
        section name and ``configuration.backend_name`` the backend name
        reported to the scheduler.
    :param host: the backend's host, ``node@backend``.
    """

    capabilities = Capabilities()
    vendor_name = 'Open Source'
    driver_version = '1.0.0'
    storage_protocol = 'unknown'

    def __init__(self, configuration, host):
        self.configuration = configuration
        self.host = host

    @classmethod
    def get_driver_options(cls):
        """The driver's own ``oslo_config.cfg.Opt`` objects.

        They are registered in every backend section that uses the driver
        and in ``[backend_defaults]``, and appear in the sample config.
        """
        return []

    def do_setup(self):
        """Check the configuration and prepare the backend.

        Called once when the manager starts, before any other method. Raise
        :class:`~cinder_ma.exception.DriverError` when the backend cannot
        be used; the manager then refuses to start.
        """

    def validate_attach_mode(self, attach_mode):
        """Raise DriverError unless ``attach_mode`` is 'rw' or 'ro'."""
        if attach_mode not in ACCESS_MODES:
            raise exception.DriverError(
                reason='access mode must be one of %s, not %r' % (
                    ', '.join(ACCESS_MODES), attach_mode))

    @abc.abstractmethod
    def create_volume(self, volume):
        """Create the storage of a new, empty volume of ``volume.size`` GiB.

        When this raises, it must leave nothing behind: the manager does
        not call :meth:`delete_volume` for a create that failed.

        :param volume: a :class:`VolumeRef`.
        :returns: None.
        """

    @abc.abstractmethod
    def delete_volume(self, volume):
        """Delete a volume's storage.

        Idempotent: a volume that does not exist (never created, or already
        deleted) is not an error.

        :param volume: a :class:`VolumeRef`.
        """

    @abc.abstractmethod
    def extend_volume(self, volume, new_size):
        """Grow a volume to ``new_size`` GiB (larger than ``volume.size``).

        Called only on volumes that are not attached, unless the driver
        declares ``online_extend``: then the connections of the volume
        stay up and must reach the grown volume (new connections, at
        least); the manager then has the hosts of the attachments resize
        their disks. Idempotent: an interrupted extend is run again.
        """

    @abc.abstractmethod
    def initialize_connection(self, volume, connector, attach_mode):
        """Make the volume reachable from the host described by
        ``connector`` and say how to connect to it.

        For a volume that is not ``multiattach`` this is only called while
        no other connection exists; for a shareable one, once per host and
        attachment, possibly concurrently.

        :param volume: a :class:`VolumeRef`.
        :param connector: dict describing the host (``host``, ``ip``,
            ``initiator``, ``nqn``, ... as os-brick reports them).
        :param attach_mode: 'rw' or 'ro'. For 'ro' the backend refuses
            writes on this connection when it can.

        A driver declaring ``per_attachment_connections`` takes a fourth,
        keyword argument ``attachment_id`` (None from managers older than
        RPC API 1.5: make the connection per host then, as other
        drivers do). With it, the connection is that attachment's alone;
        called again for the same attachment (in the same or another
        mode), the driver ends the attachment's earlier connection and
        makes a new one with new credentials: a reconnection after
        fencing, or a standby becoming the writer, never keeps the old
        access.

        :returns: connection info, a JSON-serializable dict::

            {'driver_volume_type': <storage_protocol>,
             'data': {..., 'access_mode': 'rw' | 'ro'}}

            The manager sets ``access_mode``, ``qos_specs`` and
            :data:`SIZE_KEY` in ``data`` itself.
        """

    @abc.abstractmethod
    def terminate_connection(self, volume, connector):
        """Undo :meth:`initialize_connection` for the host of
        ``connector``.

        The manager counts the attachments: it calls this only when no
        other attachment of the volume on that host uses the connection
        (for a shareable volume, several instances of one host share it),
        so a driver need not count them itself.

        A driver declaring ``per_attachment_connections`` takes the
        keyword argument ``attachment_id``: given, end that attachment's
        connection only, at once (open sessions dropped, its credentials
        refused from then on: this is how an attachment is fenced); None,
        end the host's connections made without an attachment id.

        Idempotent: a connection that does not exist is not an error.
        """

    @abc.abstractmethod
    def get_stats(self):
        """Capacity of the backend, refreshed at every report.

        :returns: a dict with at least ``pools``, a list of dicts with
            ``pool_name``, ``total_capacity_gb`` and ``free_capacity_gb``
            (floats; 'infinite' and 'unknown' are allowed too). Optional
            keys: ``reserved_percentage`` (default: the backend's option),
            ``provisioned_capacity_gb``, ``thin_provisioning_support``, and
            per-pool capabilities a volume type can ask for.
        """

    # Snapshots and clones: drivers declaring ``snapshots`` (and
    # ``clone``) implement these; the service refuses the requests for a
    # backend that does not declare them, so the defaults are never
    # called there.

    def _unsupported(self, what):
        raise exception.DriverError(
            reason='the %s driver of backend %s cannot %s' % (
                type(self).__name__, self.host, what))

    def create_snapshot(self, snapshot):
        """Take a snapshot of ``snapshot.volume`` (a :class:`SnapshotRef`),
        attached or not.

        When this raises, it must leave nothing behind. A driver declaring
        ``consistent_snapshots`` holds the writes of every connection of
        the volume while it copies, and returns how long it held them, in
        seconds (0.0 with no connection); it returns None when the
        snapshot is crash-consistent only (the default), which the
        ``snapshot.create.end`` notification reports.
        """
        self._unsupported('take snapshots')

    def delete_snapshot(self, snapshot):
        """Delete a snapshot's storage. Idempotent."""
        self._unsupported('delete snapshots')

    def create_volume_from_snapshot(self, volume, snapshot):
        """Create the storage of the new ``volume`` (of ``volume.size``
        GiB, at least the snapshot's size) with the snapshot's data.

        When this raises, it must leave nothing behind.
        """
        self._unsupported('create volumes from snapshots')

    def create_cloned_volume(self, volume, source):
        """Create the storage of the new ``volume`` (at least the size of
        ``source``, a :class:`VolumeRef`) with ``source``'s data, which
        may be attached (a crash-consistent copy).

        When this raises, it must leave nothing behind.
        """
        self._unsupported('clone volumes')

    def revert_to_snapshot(self, volume, snapshot):
        """Make ``volume``'s data the snapshot's again (the volume is not
        attached; its size stays ``volume.size``). Idempotent."""
        self._unsupported('revert volumes to snapshots')

    def list_connections(self):
        """The connections the backend holds, for audits
        (``cinder-ma-manage attachment audit``).

        :returns: a list of ``{'volume_id': ..., 'host': <connector
            host>}`` (more keys allowed), or None when the driver cannot
            list them (the default): the audit then says so instead of
            guessing.
        """
        return None
