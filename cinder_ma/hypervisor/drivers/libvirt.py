"""The libvirt hypervisor driver: attach volumes to libvirt domains.

A volume becomes a ``<disk>`` of the instance's domain, named by the
user alias ``ua-<attachment id>`` so that detach finds exactly that disk
even when the same volume is attached to the domain twice or to other
domains of the host. A multiattach volume is attached ``<shareable/>``
with ``cache='none'`` (the host page cache must not hide one guest's
writes from another), and a read-only attachment ``<readonly/>``.

Disks are hot-plugged into the running domain and, when the domain is
persistent and the hypervisor supports it, into its configuration too.
libvirt-python is imported lazily: the driver can be listed, and its
options generated, on a host without libvirt.
"""

import posixpath
import re
import threading
import time
import uuid
from xml.etree import ElementTree

from oslo_concurrency import lockutils
from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import importutils

from cinder_ma import exception
from cinder_ma.hypervisor.drivers import base

libvirt = importutils.try_import('libvirt')

LOG = logging.getLogger(__name__)

#: connection_info['driver_volume_type'] values attached as a file.
FILE_VOLUME_TYPES = ('file',)
#: Types the host connection turns into a block device
#: (``data['device_path']``), attached as ``<disk type='block'>``.
BLOCK_VOLUME_TYPES = ('local', 'block', 'iscsi', 'fibre_channel', 'nvmeof')

#: Target device name prefix of each disk bus.
BUS_PREFIXES = {'virtio': 'vd', 'scsi': 'sd', 'sata': 'sd', 'usb': 'sd'}

ALIAS_PREFIX = 'ua-'
_ALIAS_RE = re.compile(r'^[A-Za-z0-9_-]+$')
_DEV_RE = re.compile(r'^[a-z]+$')
# Device names tried for a free target: vda .. vdz, vdaa .. vdzz.
_MAX_DEVICES = 26 * 27
_DETACH_POLL_INTERVAL = 0.5

opts = [
    cfg.StrOpt('libvirt_uri',
               default='qemu:///system',
               help='libvirt connection URI of this host\'s hypervisor '
                    '(used by the libvirt hypervisor driver). '
                    '"test:///default" is libvirt\'s in-process test '
                    'driver.'),
    cfg.StrOpt('libvirt_disk_bus',
               default='virtio',
               choices=[('virtio', 'paravirtualized disks (/dev/vdX)'),
                        ('scsi', 'disks on the domain\'s SCSI controller '
                                 '(/dev/sdX)'),
                        ('sata', 'SATA disks (/dev/sdX)'),
                        ('usb', 'USB disks (/dev/sdX)')],
               help='Bus of the disks the libvirt hypervisor driver '
                    'attaches; it also decides the prefix of the device '
                    'names chosen when no mountpoint is requested.'),
    cfg.IntOpt('libvirt_detach_timeout',
               default=30,
               min=0,
               help='Seconds the libvirt hypervisor driver waits for a '
                    'guest to release a detached disk (hot-unplug is '
                    'asynchronous) before it reports the detach as '
                    'failed.'),
]

_error_handler_registered = False


def _driver_error(reason):
    return exception.DriverError(
        message='libvirt hypervisor driver: %s' % reason, reason=reason)


def alias_of(attachment_id):
    """The libvirt user alias naming the disk of ``attachment_id``."""
    if not attachment_id or not _ALIAS_RE.match(str(attachment_id)):
        raise _driver_error(
            'attachment id %r cannot name a libvirt device alias' % (
                attachment_id,))
    return '%s%s' % (ALIAS_PREFIX, attachment_id)


def device_name(prefix, index):
    """The ``index``-th device name of ``prefix``: vda, ..., vdz, vdaa."""
    letters = ''
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord('a') + rest) + letters
    return prefix + letters


def disk_xml(connection_info, target_dev, attachment_id, mode='rw',
             shareable=False, bus='virtio'):
    """The libvirt ``<disk>`` element of a volume attachment, as text.

    :param connection_info: the volume's connection info, connected on
        this host: ``driver_volume_type`` 'file' (``data['path']`` or
        ``data['device_path']``) or a block type (:data:`BLOCK_VOLUME_TYPES`,
        ``data['device_path']``).
    :param target_dev: the guest device name ('vdb').
    :param attachment_id: names the disk (alias ``ua-<attachment_id>``).
    :param mode: 'rw', or 'ro' for a ``<readonly/>`` disk.
    :param shareable: the volume is multiattach: ``<shareable/>`` and
        ``cache='none'``.
    :param bus: the target bus.
    :raises DriverError: unsupported volume type, missing path, bad mode.
    """
    if mode not in ('rw', 'ro'):
        raise _driver_error('access mode must be rw or ro, not %r' % (mode,))
    connection_info = connection_info or {}
    volume_type = connection_info.get('driver_volume_type')
    data = connection_info.get('data') or {}
    if volume_type in FILE_VOLUME_TYPES:
        disk_type, source_attr = 'file', 'file'
        path = data.get('device_path') or data.get('path')
    elif volume_type in BLOCK_VOLUME_TYPES:
        disk_type, source_attr = 'block', 'dev'
        path = data.get('device_path')
    else:
        raise _driver_error(
            'unsupported driver_volume_type %r; supported: %s' % (
                volume_type,
                ', '.join(FILE_VOLUME_TYPES + BLOCK_VOLUME_TYPES)))
    if not path:
        raise _driver_error(
            'connection info of driver_volume_type %s has no %s: the '
            'volume is not connected to this host' % (
                volume_type,
                'path' if disk_type == 'file' else 'device_path'))

    disk = ElementTree.Element('disk', type=disk_type, device='disk')
    driver = ElementTree.SubElement(disk, 'driver', name='qemu', type='raw')
    if shareable:
        driver.set('cache', 'none')
    ElementTree.SubElement(disk, 'source', {source_attr: path})
    ElementTree.SubElement(disk, 'target', dev=target_dev, bus=bus)
    if mode == 'ro':
        ElementTree.SubElement(disk, 'readonly')
    if shareable:
        ElementTree.SubElement(disk, 'shareable')
    volume_id = data.get('volume_id')
    if volume_id:
        ElementTree.SubElement(disk, 'serial').text = str(volume_id)
    ElementTree.SubElement(disk, 'alias', name=alias_of(attachment_id))
    return ElementTree.tostring(disk, encoding='unicode')


def _parse(xml_text):
    # The domain XML comes from the local libvirt daemon, not from users.
    return ElementTree.fromstring(xml_text)  # noqa: S314


def disk_aliases(domain_xml):
    """The aliases of the ``<disk>`` devices of a domain XML."""
    root = _parse(domain_xml)
    return {a.get('name') for a in root.findall('./devices/disk/alias')}


def disk_targets(domain_xml):
    """The target device names of the ``<disk>`` devices of a domain
    XML, by alias (None for a disk without one)."""
    root = _parse(domain_xml)
    targets = {}
    for disk in root.findall('./devices/disk'):
        target = disk.find('target')
        if target is None:
            continue
        alias = disk.find('alias')
        targets[target.get('dev')] = (None if alias is None
                                      else alias.get('name'))
    return targets


class LibvirtDriver(base.HypervisorDriver):
    """Attaches volumes to the domains of one libvirt connection.

    One connection per driver, opened on first use and reopened when it
    is lost; libvirt connections are safe to share between threads.
    Attach and detach of one instance are serialized, so that two
    attachments never pick the same device name.
    """

    capabilities = base.HypervisorCapabilities(supports_multiattach=True)

    def __init__(self, conf):
        super().__init__(conf)
        self._conn = None
        self._conn_lock = threading.Lock()

    @classmethod
    def get_driver_options(cls):
        return opts

    @property
    def uri(self):
        return self.conf.hypervisor.libvirt_uri

    @property
    def disk_bus(self):
        return self.conf.hypervisor.libvirt_disk_bus

    # -- connection --------------------------------------------------------

    def init_host(self, host):
        conn = self._get_connection()
        LOG.info('libvirt hypervisor driver: connected to %(uri)s '
                 '(%(type)s, libvirt %(version)s) for host %(host)s',
                 {'uri': self.uri, 'type': conn.getType(),
                  'version': conn.getLibVersion(), 'host': host})

    def _get_connection(self):
        if libvirt is None:
            raise _driver_error(
                'libvirt-python is not installed (pip install '
                'libvirt-python, built against the host\'s libvirt)')
        with self._conn_lock:
            if self._conn is not None:
                try:
                    alive = self._conn.isAlive()
                except libvirt.libvirtError:
                    alive = False
                if alive:
                    return self._conn
                LOG.warning('Connection to libvirt at %s was lost; '
                            'reconnecting', self.uri)
                self._close_locked()
            _register_error_handler()
            try:
                self._conn = libvirt.open(self.uri)
            except libvirt.libvirtError as exc:
                raise _driver_error('cannot connect to %s: %s' % (
                    self.uri, exc.get_error_message()))
            return self._conn

    def close(self):
        """Close the libvirt connection (reopened on next use)."""
        with self._conn_lock:
            self._close_locked()

    def _close_locked(self):
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except libvirt.libvirtError as exc:
                LOG.debug('Closing the libvirt connection failed: %s', exc)

    def _lookup(self, instance_uuid):
        """The domain of an instance, by UUID or else by name; None when
        this host has no such domain."""
        conn = self._get_connection()
        lookups = [conn.lookupByName]
        try:
            uuid.UUID(str(instance_uuid))
        except ValueError:
            pass
        else:
            lookups.insert(0, conn.lookupByUUIDString)
        for lookup in lookups:
            try:
                return lookup(str(instance_uuid))
            except libvirt.libvirtError as exc:
                if exc.get_error_code() != libvirt.VIR_ERR_NO_DOMAIN:
                    raise _driver_error('cannot look up instance %s: %s' % (
                        instance_uuid, exc.get_error_message()))
        return None

    @staticmethod
    def _instance_lock(instance_uuid):
        return lockutils.lock('libvirt-instance-%s' % instance_uuid)

    # -- attach ------------------------------------------------------------

    def attach_volume(self, instance_uuid, connection_info, attachment_id,
                      mountpoint=None, mode='rw', shareable=False):
        """Hot-plug the volume as a disk named ``ua-<attachment_id>``.

        :returns: the guest device path ('/dev/vdb').
        :raises DriverError: the instance is not a domain of this host, or
            the disk could not be attached (then nothing is attached).
        """
        alias = alias_of(attachment_id)
        dom = self._lookup(instance_uuid)
        if dom is None:
            raise _driver_error(
                'instance %s is not a domain of %s on this host' % (
                    instance_uuid, self.uri))
        with self._instance_lock(instance_uuid):
            try:
                targets = disk_targets(dom.XMLDesc(0))
                for dev, dev_alias in targets.items():
                    if dev_alias == alias:
                        LOG.info('Attachment %s is already attached to '
                                 'instance %s as %s', attachment_id,
                                 instance_uuid, dev)
                        return '/dev/%s' % dev
                target_dev = self._target_dev(mountpoint, targets)
                xml = disk_xml(connection_info, target_dev, attachment_id,
                               mode=mode, shareable=shareable,
                               bus=self.disk_bus)
                self._attach(dom, xml, instance_uuid)
            except libvirt.libvirtError as exc:
                raise _driver_error(
                    'cannot attach a disk to instance %s: %s' % (
                        instance_uuid, exc.get_error_message()))
        LOG.info('Attached %(attachment)s to instance %(instance)s as '
                 '%(dev)s (%(mode)s%(shared)s)',
                 {'attachment': attachment_id, 'instance': instance_uuid,
                  'dev': target_dev, 'mode': mode,
                  'shared': ', shareable' if shareable else ''})
        return '/dev/%s' % target_dev

    def _target_dev(self, mountpoint, targets):
        if mountpoint:
            dev = posixpath.basename(mountpoint.rstrip('/'))
            if not _DEV_RE.match(dev):
                raise _driver_error(
                    'mountpoint %r is not a disk device name like '
                    '/dev/vdb' % (mountpoint,))
            if dev in targets:
                raise _driver_error(
                    'mountpoint %s is already used by another disk of the '
                    'instance' % mountpoint)
            return dev
        prefix = BUS_PREFIXES.get(self.disk_bus, 'vd')
        for index in range(_MAX_DEVICES):
            dev = device_name(prefix, index)
            if dev not in targets:
                return dev
        raise _driver_error('the instance has no free %s* device name' %
                            prefix)

    def _attach(self, dom, xml, instance_uuid):
        live = libvirt.VIR_DOMAIN_AFFECT_LIVE
        config = libvirt.VIR_DOMAIN_AFFECT_CONFIG
        if dom.isActive():
            # Keep the disk across a restart of a persistent domain where
            # the hypervisor can; some (libvirt's test driver) change only
            # the running domain.
            attempts = [live | config, live] if dom.isPersistent() else [
                live]
        elif dom.isPersistent():
            attempts = [config]
        else:
            raise _driver_error(
                'instance %s is neither running nor defined' % instance_uuid)
        for flags in attempts:
            try:
                dom.attachDeviceFlags(xml, flags)
                return
            except libvirt.libvirtError as exc:
                if flags == attempts[-1] or not _unsupported(exc):
                    raise
                LOG.debug('Attach with flags %s unsupported (%s); '
                          'attaching to the running domain only', flags,
                          exc.get_error_message())

    # -- detach ------------------------------------------------------------

    def detach_volume(self, instance_uuid, connection_info, attachment_id):
        """Remove the disk named ``ua-<attachment_id>``, waiting for the
        guest to release it. A disk or instance that is gone is not an
        error.

        :raises DriverError: the disk could not be detached.
        """
        alias = alias_of(attachment_id)
        dom = self._lookup(instance_uuid)
        if dom is None:
            LOG.warning('Instance %s is gone; attachment %s is not attached',
                        instance_uuid, attachment_id)
            return
        with self._instance_lock(instance_uuid):
            try:
                self._detach(dom, alias)
            except libvirt.libvirtError as exc:
                if exc.get_error_code() == libvirt.VIR_ERR_NO_DOMAIN:
                    LOG.warning('Instance %s vanished while detaching %s',
                                instance_uuid, attachment_id)
                    return
                raise _driver_error(
                    'cannot detach attachment %s from instance %s: %s' % (
                        attachment_id, instance_uuid,
                        exc.get_error_message()))

    def _places(self, dom, alias):
        """The libvirt flags of the definitions (running, persistent)
        that still hold the disk ``alias``."""
        flags = 0
        if dom.isActive() and alias in disk_aliases(dom.XMLDesc(0)):
            flags |= libvirt.VIR_DOMAIN_AFFECT_LIVE
        if dom.isPersistent() and alias in disk_aliases(
                dom.XMLDesc(libvirt.VIR_DOMAIN_XML_INACTIVE)):
            flags |= libvirt.VIR_DOMAIN_AFFECT_CONFIG
        return flags

    def _detach(self, dom, alias):
        flags = self._places(dom, alias)
        if not flags:
            LOG.info('Disk %s is not attached to instance %s', alias,
                     dom.UUIDString())
            return
        try:
            dom.detachDeviceAlias(alias, flags)
        except libvirt.libvirtError:
            # Gone meanwhile (another detach, the guest): done.
            if self._places(dom, alias):
                raise
        if flags & libvirt.VIR_DOMAIN_AFFECT_LIVE:
            self._wait_for_removal(dom, alias)
        LOG.info('Detached disk %s from instance %s', alias,
                 dom.UUIDString())

    def _wait_for_removal(self, dom, alias):
        # QEMU removes a disk when the guest has released it; the call
        # above only asked for it.
        timeout = self.conf.hypervisor.libvirt_detach_timeout
        deadline = time.monotonic() + timeout
        while self._places(dom, alias) & libvirt.VIR_DOMAIN_AFFECT_LIVE:
            if time.monotonic() >= deadline:
                raise _driver_error(
                    'the guest of instance %s did not release disk %s '
                    'within %d seconds' % (dom.UUIDString(), alias, timeout))
            time.sleep(_DETACH_POLL_INTERVAL)


def _unsupported(exc):
    return exc.get_error_code() in (
        libvirt.VIR_ERR_INVALID_ARG, libvirt.VIR_ERR_NO_SUPPORT,
        libvirt.VIR_ERR_ARGUMENT_UNSUPPORTED,
        libvirt.VIR_ERR_OPERATION_UNSUPPORTED)


def _register_error_handler():
    """Keep libvirt from printing every error on stderr; errors reach us
    as exceptions."""
    global _error_handler_registered
    if not _error_handler_registered:
        libvirt.registerErrorHandler(lambda _ctx, _err: None, None)
        _error_handler_registered = True
