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

"""The libvirt hypervisor driver: attach volumes to libvirt domains.

A volume becomes a ``<disk>`` of the instance's domain, named by the
user alias ``ua-<attachment id>`` so that detach finds exactly that disk
even when the same volume is attached to the domain twice or to other
domains of the host. A multiattach volume is attached ``<shareable/>``
with ``cache='none'`` (the host page cache must not hide one guest's
writes from another), and a read-only attachment ``<readonly/>``.

Disks are hot-plugged into the running domain and, when the domain is
persistent and the hypervisor supports it, into its configuration too.
After an online extend, :meth:`LibvirtDriver.resize_volume` tells the
running domain the disk's new size (``virDomainBlockResize``).
libvirt-python is imported lazily: the driver can be listed, and its
options generated, on a host without libvirt.

NBD volumes (``driver_volume_type`` 'nbd') are network disks QEMU
connects to itself. libvirt's QEMU cannot present a TLS pre-shared key,
so a host running this driver asks nbd backends for exports that take
its X.509 certificate (:func:`cinder_ma.manager.connector.
get_connector_properties`), and such connection info (``tls_x509``)
becomes ``<source protocol='nbd' tls='yes'>``: QEMU presents the
certificate of qemu.conf's ``nbd_tls_x509_cert_dir``.
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

#: Name of the per-instance lock, and the prefix of its file.
INSTANCE_LOCK = 'libvirt-instance-%s'
LOCK_FILE_PREFIX = 'cinder_ma-'

#: connection_info['driver_volume_type'] values attached as a file.
FILE_VOLUME_TYPES = ('file',)
#: Types the host connection turns into a block device
#: (``data['device_path']``), attached as ``<disk type='block'>``.
BLOCK_VOLUME_TYPES = ('local', 'block', 'iscsi', 'fibre_channel', 'nvmeof')
#: Types QEMU connects to itself, attached as ``<disk type='network'>``
#: (``data['host']``, ``data['port']``, ``data['export']``).
NETWORK_VOLUME_TYPES = ('nbd',)

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


#: QoS spec keys applied as ``<iotune>`` settings of the disk (Nova's
#: mapping of a connection's ``qos_specs``).
IOTUNE_KEYS = (
    'total_bytes_sec', 'read_bytes_sec', 'write_bytes_sec',
    'total_iops_sec', 'read_iops_sec', 'write_iops_sec',
    'total_bytes_sec_max', 'read_bytes_sec_max', 'write_bytes_sec_max',
    'total_iops_sec_max', 'read_iops_sec_max', 'write_iops_sec_max',
    'size_iops_sec')


def iotune_settings(qos_specs):
    """[(key, value)] of the ``<iotune>`` of a connection's front-end
    ``qos_specs``, in :data:`IOTUNE_KEYS` order: other keys and values
    that are not non-negative integers are left out (with a warning)."""
    settings = []
    for key in IOTUNE_KEYS:
        value = (qos_specs or {}).get(key)
        if value is None:
            continue
        try:
            number = int(str(value).strip())
        except ValueError:
            number = -1
        if number < 0:
            LOG.warning('QoS spec %s=%r is not a non-negative integer; '
                        'not applied', key, value)
            continue
        settings.append((key, str(number)))
    return settings


def disk_xml(connection_info, target_dev, attachment_id, mode='rw',
             shareable=False, bus='virtio'):
    """The libvirt ``<disk>`` element of a volume attachment, as text.

    :param connection_info: the volume's connection info, connected on
        this host: ``driver_volume_type`` 'file' (``data['path']`` or
        ``data['device_path']``) or a block type (:data:`BLOCK_VOLUME_TYPES`,
        ``data['device_path']``) or a network type
        (:data:`NETWORK_VOLUME_TYPES`: 'nbd' with ``host``, ``port`` and
        ``export``, and ``tls_x509`` for an export requiring the host's
        X.509 certificate, ``<source tls='yes'>``; libvirt's NBD client
        knows no TLS-PSK, so connection info carrying only PSK
        credentials is refused).
    :param target_dev: the guest device name ('vdb').
    :param attachment_id: names the disk (alias ``ua-<attachment_id>``).
    :param mode: 'rw', or 'ro' for a ``<readonly/>`` disk.
    :param shareable: the volume is multiattach: ``<shareable/>`` and
        ``cache='none'``.
    :param bus: the target bus.

    The front-end QoS specs of the connection (``data['qos_specs']``)
    become the disk's ``<iotune>`` (see :func:`iotune_settings`).
    :raises DriverError: unsupported volume type, missing path, bad mode.
    """
    if mode not in ('rw', 'ro'):
        raise _driver_error('access mode must be rw or ro, not %r' % (mode,))
    connection_info = connection_info or {}
    volume_type = connection_info.get('driver_volume_type')
    data = connection_info.get('data') or {}
    if volume_type in NETWORK_VOLUME_TYPES:
        disk = _network_disk(volume_type, data)
    else:
        disk = _local_disk(volume_type, data)
    # libvirt's order: driver, source, target, ...
    source = disk.find('source')
    disk.remove(source)
    driver = ElementTree.SubElement(disk, 'driver', name='qemu', type='raw')
    if shareable:
        driver.set('cache', 'none')
    disk.append(source)
    ElementTree.SubElement(disk, 'target', dev=target_dev, bus=bus)
    settings = iotune_settings(data.get('qos_specs'))
    if settings:
        iotune = ElementTree.SubElement(disk, 'iotune')
        for key, value in settings:
            ElementTree.SubElement(iotune, key).text = value
    if mode == 'ro':
        ElementTree.SubElement(disk, 'readonly')
    if shareable:
        ElementTree.SubElement(disk, 'shareable')
    volume_id = data.get('volume_id')
    if volume_id:
        ElementTree.SubElement(disk, 'serial').text = str(volume_id)
    ElementTree.SubElement(disk, 'alias', name=alias_of(attachment_id))
    return ElementTree.tostring(disk, encoding='unicode')


def _network_disk(volume_type, data):
    """A ``<disk type='network'>`` with its ``<source>`` only."""
    missing = [k for k in ('host', 'port', 'export') if not data.get(k)]
    if missing:
        raise _driver_error(
            'connection info of driver_volume_type %s has no %s' % (
                volume_type, ', '.join(missing)))
    tls = data.get('tls_x509') is True
    if not tls and (data.get('tls_psk_identity') or
                    data.get('tls_psk_secret')):
        raise _driver_error(
            'the %s export requires TLS-PSK credentials, which libvirt '
            'cannot present (its NBD TLS uses X.509 certificates: the '
            'connector of a host running this driver asks for them)' % (
                volume_type,))
    disk = ElementTree.Element('disk', type='network', device='disk')
    source = ElementTree.SubElement(disk, 'source', protocol=volume_type,
                                    name=str(data['export']))
    if tls:
        # QEMU presents the host's client certificate from qemu.conf's
        # nbd_tls_x509_cert_dir (default_tls_x509_cert_dir when unset)
        # and checks the server's against its ca-cert.pem.
        source.set('tls', 'yes')
    ElementTree.SubElement(source, 'host', name=str(data['host']),
                           port=str(int(data['port'])))
    return disk


def _local_disk(volume_type, data):
    """A ``<disk type='file'|'block'>`` with its ``<source>`` only."""
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
                ', '.join(FILE_VOLUME_TYPES + BLOCK_VOLUME_TYPES +
                          NETWORK_VOLUME_TYPES)))
    if not path:
        raise _driver_error(
            'connection info of driver_volume_type %s has no %s: the '
            'volume is not connected to this host' % (
                volume_type,
                'path' if disk_type == 'file' else 'device_path'))
    disk = ElementTree.Element('disk', type=disk_type, device='disk')
    ElementTree.SubElement(disk, 'source', {source_attr: path})
    return disk


def _parse(xml_text):
    # The domain XML comes from the local libvirt daemon, not from users.
    return ElementTree.fromstring(xml_text)  # noqa: S314


def disk_aliases(domain_xml):
    """The aliases of the ``<disk>`` devices of a domain XML."""
    root = _parse(domain_xml)
    return {a.get('name') for a in root.findall('./devices/disk/alias')}


#: The namespace of the metadata Nova's libvirt driver records with a
#: domain (``<nova:instance>``, whose ``<nova:owner><nova:project
#: uuid=...>`` names the project owning the instance).
NOVA_METADATA_NS = 'http://openstack.org/xmlns/libvirt/nova/1.1'


def instance_owner(domain_xml):
    """The project owning a domain, as the compute service that created
    it recorded it in the domain's metadata
    (``<metadata><nova:instance><nova:owner><nova:project uuid=...>``),
    or None when it recorded none."""
    root = _parse(domain_xml)
    project = root.find('./metadata/{%s}instance/{%s}owner/{%s}project' % (
        (NOVA_METADATA_NS,) * 3))
    if project is None:
        return None
    return project.get('uuid') or None


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

    capabilities = base.HypervisorCapabilities(
        supports_multiattach=True, reports_instance_owner=True,
        supports_extend_volume=True, supports_reconnect=True)

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

    def _domain(self, instance_uuid):
        """The domain of an instance.

        :raises DriverError: this host has no such domain.
        """
        dom = self._lookup(instance_uuid)
        if dom is None:
            raise _driver_error(
                'instance %s is not a domain of %s on this host' % (
                    instance_uuid, self.uri))
        return dom

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

    def get_instance_owner(self, instance_uuid):
        """The project recorded as the domain's owner in its metadata by
        the compute service that created it (Nova's ``<nova:owner>``),
        or None (no such domain, or no owner recorded)."""
        dom = self._lookup(instance_uuid)
        if dom is None:
            return None
        try:
            return instance_owner(dom.XMLDesc(0))
        except libvirt.libvirtError as exc:
            if exc.get_error_code() == libvirt.VIR_ERR_NO_DOMAIN:
                return None
            raise _driver_error('cannot read instance %s: %s' % (
                instance_uuid, exc.get_error_message()))

    @staticmethod
    def _instance_lock(instance_uuid):
        """The lock under which a domain's disks are read and changed
        (choosing a free target name, then plugging the disk), held
        across the processes of this host that drive its libvirt (the
        workers of cinder-ma-all, a manager and cinder-ma-manage): a file
        lock in ``[oslo_concurrency] lock_path``. The domain is this
        host's, so the lock needs no other host."""
        return lockutils.lock(INSTANCE_LOCK % instance_uuid,
                              lock_file_prefix=LOCK_FILE_PREFIX,
                              external=True)

    # -- attach ------------------------------------------------------------

    def attach_volume(self, instance_uuid, connection_info, attachment_id,
                      mountpoint=None, mode='rw', shareable=False):
        """Hot-plug the volume as a disk named ``ua-<attachment_id>``.

        :returns: the guest device path ('/dev/vdb').
        :raises DriverError: the instance is not a domain of this host, or
            the disk could not be attached (then nothing is attached).
        """
        alias = alias_of(attachment_id)
        dom = self._domain(instance_uuid)
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

    # -- reconnect ---------------------------------------------------------

    def reconnect_volume(self, instance_uuid, connection_info,
                         attachment_id, mode='rw', shareable=False):
        """Switch the disk ``ua-<attachment_id>`` to ``connection_info``
        at the same target device: ``updateDeviceFlags`` where the
        hypervisor can change a disk's source in place (libvirt's test
        driver can); QEMU changes the source of removable media only, so
        there the disk is detached and attached again at the same target
        (the guest sees it unplugged and plugged back).

        :raises DriverError: the disk is not attached to the instance, or
            could not be switched.
        """
        alias = alias_of(attachment_id)
        dom = self._domain(instance_uuid)
        with self._instance_lock(instance_uuid):
            try:
                targets = disk_targets(dom.XMLDesc(0))
                target_dev = next((dev for dev, dev_alias in targets.items()
                                   if dev_alias == alias), None)
                if target_dev is None:
                    raise _driver_error(
                        'attachment %s is not attached to instance %s' % (
                            attachment_id, instance_uuid))
                xml = disk_xml(connection_info, target_dev, attachment_id,
                               mode=mode, shareable=shareable,
                               bus=self.disk_bus)
                how = self._update_or_replug(dom, alias, xml)
            except libvirt.libvirtError as exc:
                raise _driver_error(
                    'cannot reconnect attachment %s of instance %s: %s' % (
                        attachment_id, instance_uuid,
                        exc.get_error_message()))
        LOG.info('Reconnected attachment %(attachment)s of instance '
                 '%(instance)s as %(dev)s (%(mode)s, %(how)s)',
                 {'attachment': attachment_id, 'instance': instance_uuid,
                  'dev': target_dev, 'mode': mode, 'how': how})

    def _update_or_replug(self, dom, alias, xml):
        flags = self._places(dom, alias)
        try:
            dom.updateDeviceFlags(xml, flags)
            return 'updated in place'
        except libvirt.libvirtError as exc:
            if not _unsupported(exc):
                raise
            LOG.info('The hypervisor cannot change the source of disk %s '
                     'in place (%s); detaching and attaching it again at '
                     'the same target', alias, exc.get_error_message())
        self._detach(dom, alias)
        self._attach(dom, xml, dom.UUIDString())
        return 'detached and attached again'

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

    # -- resize ------------------------------------------------------------

    def resize_volume(self, instance_uuid, attachment_id, new_size_bytes):
        """Tell the running domain that the disk ``ua-<attachment_id>`` is
        now ``new_size_bytes`` long: ``virDomainBlockResize`` on its
        target device, in bytes (``VIR_DOMAIN_BLOCK_RESIZE_BYTES``).

        QEMU then reports the new capacity to the guest. The storage must
        already have that size: for a file, QEMU grows it to that size (a
        no-op after the backend's extend); for an NBD network disk QEMU's
        client cannot grow a connected export ("Cannot grow NBD nodes"),
        which is reported as this driver's error. A domain that is not
        running has nothing to resize: it reads the size when it starts.

        :raises DriverError: no such instance on this host, the disk is
            not attached to the running domain, or libvirt refused
            (libvirt's test driver does not implement blockResize).
        """
        alias = alias_of(attachment_id)
        dom = self._domain(instance_uuid)
        with self._instance_lock(instance_uuid):
            try:
                if not dom.isActive():
                    LOG.info('Instance %s is not running: disk %s gets its '
                             'new size when it starts', instance_uuid, alias)
                    return
                targets = disk_targets(dom.XMLDesc(0))
                target = next((dev for dev, dev_alias in targets.items()
                               if dev_alias == alias), None)
                if target is None:
                    raise _driver_error(
                        'attachment %s has no disk in instance %s' % (
                            attachment_id, instance_uuid))
                dom.blockResize(target, int(new_size_bytes),
                                libvirt.VIR_DOMAIN_BLOCK_RESIZE_BYTES)
            except libvirt.libvirtError as exc:
                raise _driver_error(
                    'cannot resize disk %s of instance %s to %d bytes: %s' %
                    (alias, instance_uuid, new_size_bytes,
                     exc.get_error_message()))
        LOG.info('Resized disk %(dev)s (%(alias)s) of instance %(instance)s '
                 'to %(size)d bytes',
                 {'dev': target, 'alias': alias, 'instance': instance_uuid,
                  'size': new_size_bytes})

    def list_attached_disks(self):
        """The disks this driver attached (alias ``ua-<attachment id>``)
        to any domain of the host.

        :raises DriverError: libvirt cannot list its domains.
        """
        try:
            return _list_attached_disks(self._get_connection())
        except libvirt.libvirtError as exc:
            raise _driver_error('cannot list the disks of the host\'s '
                                'instances: %s' % exc.get_error_message())

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


def _list_attached_disks(conn):
    """``{'instance_uuid', 'instance_name', 'attachment_id', 'target'}``
    of every disk named ``ua-<attachment id>`` of the domains of ``conn``
    (running or defined)."""
    found = []
    for dom in conn.listAllDomains(0):
        try:
            targets = disk_targets(dom.XMLDesc(0))
        except libvirt.libvirtError as exc:
            if exc.get_error_code() == libvirt.VIR_ERR_NO_DOMAIN:
                continue  # gone meanwhile
            raise
        for target, alias in sorted(targets.items()):
            if alias and alias.startswith(ALIAS_PREFIX):
                found.append({'instance_uuid': dom.UUIDString(),
                              'instance_name': dom.name(),
                              'attachment_id': alias[len(ALIAS_PREFIX):],
                              'target': target})
    return found


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
