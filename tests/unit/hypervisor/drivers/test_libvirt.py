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

"""Tests of the libvirt hypervisor driver.

The XML tests need nothing. The driver tests run against libvirt's own
test driver (``test:///default``): real domains in this process, real
hot-plug of a sparse file, and the live domain XML read back. Its state
is shared by every connection of the process, so each test makes its
own transient domains (unique names) and destroys them.
"""

import concurrent.futures
import copy
import os
from unittest import mock
import uuid
from xml.etree import ElementTree

import fixtures
from oslo_config import fixture as config_fixture

from cinder_ma import exception
from cinder_ma.hypervisor.drivers import base as hv_base
from cinder_ma.hypervisor.drivers import libvirt as libvirt_driver
from tests import base
from tests import fixtures as cm_fixtures

TEST_URI = 'test:///default'
# Debian bookworm's libvirt 9.0 test driver cannot hot-plug disks; the
# 11.x of bookworm-backports can (live only; detach by alias).
MIN_LIBVIRT_VERSION = 11000000


def _parse(xml_text):
    return ElementTree.fromstring(xml_text)


def _file_info(path, volume_id=None):
    data = {'path': path, 'access_mode': 'rw'}
    if volume_id:
        data['volume_id'] = volume_id
    return {'driver_volume_type': 'file', 'data': data}


def _nbd_info(volume_id='vol-1', **extra):
    data = dict({'host': '192.0.2.10', 'port': 10811,
                 'export': 'volume-%s' % volume_id, 'access_mode': 'rw',
                 'volume_id': volume_id}, **extra)
    return {'driver_volume_type': 'nbd', 'data': data}


class DiskXmlTestCase(base.TestCase):
    """disk_xml() and the other pure helpers."""

    def _disk(self, mode='rw', shareable=False, info=None, **kw):
        info = info or _file_info('/vols/volume-1', volume_id='vol-1')
        return _parse(libvirt_driver.disk_xml(
            info, 'vdb', 'att-1', mode=mode, shareable=shareable, **kw))

    def test_shareable_rw(self):
        disk = self._disk(shareable=True)
        self.assertEqual({'type': 'file', 'device': 'disk'}, disk.attrib)
        self.assertEqual({'name': 'qemu', 'type': 'raw', 'cache': 'none'},
                         disk.find('driver').attrib)
        self.assertEqual({'file': '/vols/volume-1'},
                         disk.find('source').attrib)
        self.assertEqual({'dev': 'vdb', 'bus': 'virtio'},
                         disk.find('target').attrib)
        self.assertIsNotNone(disk.find('shareable'))
        self.assertIsNone(disk.find('readonly'))
        self.assertEqual('ua-att-1', disk.find('alias').get('name'))
        self.assertEqual('vol-1', disk.find('serial').text)

    def test_front_end_qos_specs_become_iotune(self):
        info = _file_info('/vols/volume-1')
        info['data']['qos_specs'] = {
            'read_iops_sec': '2000', 'total_bytes_sec': 1048576,
            'write_iops_sec_max': '300', 'size_iops_sec': '4096',
            'vendor:key': 'x', 'read_bytes_sec': 'fast',
            'write_bytes_sec': '-1'}
        iotune = self._disk(info=info).find('iotune')
        self.assertEqual(
            [('total_bytes_sec', '1048576'), ('read_iops_sec', '2000'),
             ('write_iops_sec_max', '300'), ('size_iops_sec', '4096')],
            [(e.tag, e.text) for e in iotune])

    def test_no_qos_specs_no_iotune(self):
        for specs in (None, {}, {'vendor:key': '1'}):
            info = _file_info('/vols/volume-1')
            info['data']['qos_specs'] = specs
            self.assertIsNone(self._disk(info=info).find('iotune'))

    def test_readonly(self):
        disk = self._disk(mode='ro', shareable=True)
        self.assertIsNotNone(disk.find('readonly'))
        self.assertIsNotNone(disk.find('shareable'))

    def test_not_shareable_keeps_default_cache(self):
        disk = self._disk()
        self.assertNotIn('cache', disk.find('driver').attrib)
        self.assertIsNone(disk.find('shareable'))
        self.assertIsNone(disk.find('readonly'))

    def test_readonly_not_shareable(self):
        disk = self._disk(mode='ro')
        self.assertIsNotNone(disk.find('readonly'))
        self.assertIsNone(disk.find('shareable'))

    def test_nbd_network_disk(self):
        disk = self._disk(mode='ro', shareable=True, info=_nbd_info())
        self.assertEqual({'type': 'network', 'device': 'disk'}, disk.attrib)
        self.assertEqual(['driver', 'source', 'target', 'readonly',
                          'shareable', 'serial', 'alias'],
                         [child.tag for child in disk])
        self.assertEqual('none', disk.find('driver').get('cache'))
        source = disk.find('source')
        self.assertEqual({'protocol': 'nbd', 'name': 'volume-vol-1'},
                         source.attrib)
        self.assertEqual({'name': '192.0.2.10', 'port': '10811'},
                         source.find('host').attrib)

    def test_nbd_incomplete(self):
        info = _nbd_info()
        del info['data']['port']
        exc = self.assertRaises(exception.DriverError,
                                libvirt_driver.disk_xml, info, 'vdb', 'a')
        self.assertIn('port', str(exc))

    def test_nbd_with_x509(self):
        info = _nbd_info(tls_x509=True)
        source = self._disk(info=info).find('source')
        self.assertEqual({'protocol': 'nbd', 'name': 'volume-vol-1',
                          'tls': 'yes'}, source.attrib)
        self.assertEqual({'name': '192.0.2.10', 'port': '10811'},
                         source.find('host').attrib)
        # Only the boolean true asks for TLS.
        info = _nbd_info(tls_x509='yes')
        self.assertIsNone(self._disk(info=info).find('source').get('tls'))

    def test_nbd_with_psk_refused(self):
        info = _nbd_info(tls_psk_identity='cinder-ma-1',
                         tls_psk_secret='00ff')
        exc = self.assertRaises(exception.DriverError,
                                libvirt_driver.disk_xml, info, 'vdb', 'a')
        self.assertIn('X.509', str(exc))
        self.assertNotIn('00ff', str(exc))

    def test_device_path_wins_for_file(self):
        info = _file_info('/vols/volume-1')
        info['data']['device_path'] = '/dev/loop3'
        disk = self._disk(info=info)
        self.assertEqual('/dev/loop3', disk.find('source').get('file'))
        self.assertIsNone(disk.find('serial'))

    def test_block_device(self):
        info = {'driver_volume_type': 'iscsi',
                'data': {'device_path': '/dev/sdx', 'target_lun': 1}}
        disk = self._disk(info=info, bus='scsi')
        self.assertEqual('block', disk.get('type'))
        self.assertEqual({'dev': '/dev/sdx'}, disk.find('source').attrib)
        self.assertEqual('scsi', disk.find('target').get('bus'))

    def test_block_device_not_connected(self):
        info = {'driver_volume_type': 'iscsi', 'data': {'target_lun': 1}}
        exc = self.assertRaises(exception.DriverError, self._disk, info=info)
        self.assertIn('device_path', str(exc))
        self.assertIn('not connected', str(exc))

    def test_file_without_path(self):
        exc = self.assertRaises(
            exception.DriverError, self._disk,
            info={'driver_volume_type': 'file', 'data': {}})
        self.assertIn('no path', str(exc))

    def test_unsupported_volume_type(self):
        exc = self.assertRaises(
            exception.DriverError, self._disk,
            info={'driver_volume_type': 'rbd', 'data': {'name': 'p/v'}})
        self.assertIn("unsupported driver_volume_type 'rbd'", str(exc))
        self.assertIn('file', str(exc))

    def test_bad_mode(self):
        exc = self.assertRaises(exception.DriverError, self._disk,
                                mode='wo')
        self.assertIn('rw or ro', str(exc))

    def test_path_is_escaped(self):
        info = _file_info("/vols/a'b<c>&d")
        disk = self._disk(info=info)
        self.assertEqual("/vols/a'b<c>&d", disk.find('source').get('file'))

    def test_alias_rejects_unsafe_attachment_ids(self):
        for bad in ('', None, "x'/><shareable", 'a b', 'a/b'):
            self.assertRaises(exception.DriverError,
                              libvirt_driver.alias_of, bad)
        attachment_id = str(uuid.uuid4())
        self.assertEqual('ua-' + attachment_id,
                         libvirt_driver.alias_of(attachment_id))

    def test_device_name(self):
        self.assertEqual('vda', libvirt_driver.device_name('vd', 0))
        self.assertEqual('vdz', libvirt_driver.device_name('vd', 25))
        self.assertEqual('sdaa', libvirt_driver.device_name('sd', 26))
        self.assertEqual('vdzz', libvirt_driver.device_name('vd', 26 * 27 - 1))

    def test_instance_owner(self):
        xml = ("<domain><metadata><nova:instance xmlns:nova='%s'>"
               "<nova:owner><nova:project uuid='p-1'>p</nova:project>"
               "</nova:owner></nova:instance>"
               "<other xmlns='urn:x'><owner><project uuid='p-2'/></owner>"
               "</other></metadata></domain>"
               % libvirt_driver.NOVA_METADATA_NS)
        self.assertEqual('p-1', libvirt_driver.instance_owner(xml))
        # Only Nova's namespace counts.
        self.assertIsNone(libvirt_driver.instance_owner(
            "<domain><metadata><instance><owner><project uuid='p-2'/>"
            "</owner></instance></metadata></domain>"))
        self.assertIsNone(libvirt_driver.instance_owner('<domain/>'))

    def test_disk_targets(self):
        xml = ("<domain><devices>"
               "<disk><target dev='vda'/></disk>"
               "<disk><target dev='vdb'/><alias name='ua-x'/></disk>"
               "<disk/>"
               "</devices></domain>")
        self.assertEqual({'vda': None, 'vdb': 'ua-x'},
                         libvirt_driver.disk_targets(xml))
        self.assertEqual({'ua-x'}, libvirt_driver.disk_aliases(xml))


class DriverDeclarationTestCase(base.TestCase):
    """What the manager reads without connecting to libvirt."""

    def test_declaration(self):
        cls = libvirt_driver.LibvirtDriver
        self.assertTrue(issubclass(cls, hv_base.HypervisorDriver))
        self.assertIsInstance(cls.capabilities, hv_base.HypervisorCapabilities)
        self.assertTrue(cls.capabilities.supports_multiattach)
        self.assertTrue(cls.capabilities.supports_extend_volume)

    def test_options(self):
        opts = {o.name: o for o in
                libvirt_driver.LibvirtDriver.get_driver_options()}
        self.assertEqual(
            {'libvirt_uri', 'libvirt_disk_bus', 'libvirt_detach_timeout'},
            set(opts))
        self.assertEqual('qemu:///system', opts['libvirt_uri'].default)
        self.assertEqual('virtio', opts['libvirt_disk_bus'].default)
        for opt in opts.values():
            self.assertTrue(opt.help)
        fixture = self.useFixture(config_fixture.Config(self.conf))
        fixture.register_opts(list(opts.values()), group='hypervisor')
        self.assertEqual('qemu:///system',
                         self.conf.hypervisor.libvirt_uri)

    def test_without_libvirt_python(self):
        self.useFixture(fixtures.MonkeyPatch(
            'cinder_ma.hypervisor.drivers.libvirt.libvirt', None))
        fixture = self.useFixture(config_fixture.Config(self.conf))
        fixture.register_opts(
            libvirt_driver.LibvirtDriver.get_driver_options(),
            group='hypervisor')
        driver = libvirt_driver.LibvirtDriver(self.conf)
        exc = self.assertRaises(
            exception.DriverError, driver.attach_volume, str(uuid.uuid4()),
            _file_info('/vols/v'), str(uuid.uuid4()))
        self.assertIn('libvirt-python is not installed', str(exc))


class LibvirtDriverTestCase(base.TestCase):
    """The driver against libvirt's test:///default driver."""

    def setUp(self):
        super().setUp()
        self.libvirt = libvirt_driver.libvirt
        if self.libvirt is None:
            cm_fixtures.skip_or_fail(
                self, 'libvirt-python is not installed '
                      '(tools/install-libvirt.sh, then pip install '
                      'libvirt-python)')
        if self.libvirt.getVersion() < MIN_LIBVIRT_VERSION:
            cm_fixtures.skip_or_fail(
                self, 'libvirt %d is too old: its test driver cannot '
                      'hot-plug disks (tools/install-libvirt.sh installs '
                      'libvirt 11 from bookworm-backports)' %
                      self.libvirt.getVersion())
        fixture = self.useFixture(config_fixture.Config(self.conf))
        fixture.register_opts(
            libvirt_driver.LibvirtDriver.get_driver_options(),
            group='hypervisor')
        self.flags(group='hypervisor', libvirt_uri=TEST_URI)
        # Every connection to test:///default of this process sees the
        # same domains: this one makes them, the driver's attaches.
        self.conn = self.libvirt.open(TEST_URI)
        self.addCleanup(self.conn.close)
        self.driver = libvirt_driver.LibvirtDriver(self.conf)
        self.addCleanup(self.driver.close)
        self.volumes_dir = self.useFixture(fixtures.TempDir()).path

    # -- helpers -----------------------------------------------------------

    def _domain_xml(self, name, dom_uuid, owner=None):
        # The metadata a compute service records (Nova's namespace).
        metadata = '' if owner is None else (
            "<metadata><nova:instance xmlns:nova='%s'><nova:owner>"
            "<nova:user uuid='u-1'>user</nova:user>"
            "<nova:project uuid='%s'>project</nova:project>"
            "</nova:owner></nova:instance></metadata>" % (
                libvirt_driver.NOVA_METADATA_NS, owner))
        return ("<domain type='test'><name>%s</name><uuid>%s</uuid>"
                "%s<memory>1024</memory><os><type>hvm</type></os>"
                "<devices><disk type='file' device='disk'>"
                "<source file='/guest/root-%s'/>"
                "<target dev='vda' bus='virtio'/></disk></devices>"
                "</domain>" % (name, dom_uuid, metadata, name))

    def _destroy(self, dom):
        try:
            if dom.isActive():
                dom.destroy()
            if dom.isPersistent():
                dom.undefine()
        except self.libvirt.libvirtError:
            pass

    def make_instance(self, persistent=False, owner=None):
        """A running domain with a root disk vda (and the metadata of a
        compute service naming ``owner``); returns its UUID."""
        dom_uuid = str(uuid.uuid4())
        xml = self._domain_xml('cm-test-%s' % dom_uuid[:8], dom_uuid,
                               owner)
        if persistent:
            dom = self.conn.defineXML(xml)
            self.addCleanup(self._destroy, dom)
            dom.create()
        else:
            dom = self.conn.createXML(xml, 0)
            self.addCleanup(self._destroy, dom)
        return dom_uuid

    def make_volume(self, size=1024 ** 3):
        """A sparse raw file, as the file storage driver makes them."""
        volume_id = str(uuid.uuid4())
        path = os.path.join(self.volumes_dir, 'volume-%s' % volume_id)
        with open(path, 'wb') as f:
            f.truncate(size)
        return _file_info(path, volume_id=volume_id)

    def live_disks(self, instance_uuid, inactive=False):
        """The disks of the domain's live (or persistent) XML by alias."""
        dom = self.conn.lookupByUUIDString(instance_uuid)
        flags = self.libvirt.VIR_DOMAIN_XML_INACTIVE if inactive else 0
        root = _parse(dom.XMLDesc(flags))
        disks = {}
        for disk in root.findall('./devices/disk'):
            alias = disk.find('alias')
            disks[None if alias is None else alias.get('name')] = disk
        return disks

    def assert_disk(self, disk, path, dev, mode, shareable):
        self.assertEqual(path, disk.find('source').get('file'))
        self.assertEqual(dev, disk.find('target').get('dev'))
        self.assertEqual('virtio', disk.find('target').get('bus'))
        driver = disk.find('driver')
        if shareable:
            self.assertIsNotNone(disk.find('shareable'))
            self.assertEqual('none', driver.get('cache'))
        else:
            self.assertIsNone(disk.find('shareable'))
            self.assertIsNone(driver.get('cache'))
        if mode == 'ro':
            self.assertIsNotNone(disk.find('readonly'))
        else:
            self.assertIsNone(disk.find('readonly'))

    # -- attach ------------------------------------------------------------

    def test_instance_owner_from_the_domain_metadata(self):
        self.assertTrue(self.driver.capabilities.reports_instance_owner)
        owned = self.make_instance(owner='project-a')
        self.assertEqual('project-a', self.driver.get_instance_owner(owned))
        persistent = self.make_instance(persistent=True, owner='project-b')
        self.assertEqual('project-b',
                         self.driver.get_instance_owner(persistent))
        # No metadata, no owner; no domain, no owner.
        self.assertIsNone(self.driver.get_instance_owner(
            self.make_instance()))
        self.assertIsNone(self.driver.get_instance_owner(
            str(uuid.uuid4())))

    def test_attach_shareable_rw(self):
        instance = self.make_instance()
        volume = self.make_volume()
        attachment_id = str(uuid.uuid4())
        dev = self.driver.attach_volume(instance, volume, attachment_id,
                                        mode='rw', shareable=True)
        self.assertEqual('/dev/vdb', dev)
        disks = self.live_disks(instance)
        self.assert_disk(disks['ua-' + attachment_id],
                         volume['data']['path'], 'vdb', 'rw', True)
        self.assertEqual(volume['data']['volume_id'],
                         disks['ua-' + attachment_id].find('serial').text)

    def test_attach_nbd_network_disks(self):
        first, second = self.make_instance(), self.make_instance()
        info = _nbd_info(volume_id=str(uuid.uuid4()))
        rw, ro = str(uuid.uuid4()), str(uuid.uuid4())
        self.driver.attach_volume(first, info, rw, mode='rw',
                                  shareable=True)
        self.driver.attach_volume(second, info, ro, mode='ro',
                                  shareable=True)
        for instance, attachment_id, mode in ((first, rw, 'rw'),
                                              (second, ro, 'ro')):
            disk = self.live_disks(instance)['ua-' + attachment_id]
            self.assertEqual('network', disk.get('type'))
            source = disk.find('source')
            self.assertEqual('nbd', source.get('protocol'))
            self.assertEqual(info['data']['export'], source.get('name'))
            self.assertEqual('10811', source.find('host').get('port'))
            self.assertIsNotNone(disk.find('shareable'))
            self.assertEqual('none', disk.find('driver').get('cache'))
            self.assertEqual(mode == 'ro',
                             disk.find('readonly') is not None)
        self.driver.detach_volume(first, info, rw)
        self.assertNotIn('ua-' + rw, self.live_disks(first))

    def test_attach_nbd_disk_with_x509(self):
        instance = self.make_instance()
        info = _nbd_info(volume_id=str(uuid.uuid4()), tls_x509=True)
        attachment_id = str(uuid.uuid4())
        self.driver.attach_volume(instance, info, attachment_id, mode='rw',
                                  shareable=True)
        # libvirt keeps tls='yes': QEMU gets tls-creds-x509 from
        # nbd_tls_x509_cert_dir for this disk.
        source = self.live_disks(instance)['ua-' + attachment_id].find(
            'source')
        self.assertEqual('yes', source.get('tls'))
        self.assertEqual(info['data']['export'], source.get('name'))
        self.assertEqual({'name': '192.0.2.10', 'port': '10811'},
                         source.find('host').attrib)

    # -- reconnect ---------------------------------------------------------

    def test_reconnect_switches_the_disk_in_place(self):
        self.assertTrue(self.driver.capabilities.supports_reconnect)
        instance = self.make_instance()
        old = _nbd_info(volume_id=str(uuid.uuid4()))
        attachment_id = str(uuid.uuid4())
        self.driver.attach_volume(instance, old, attachment_id, mode='ro',
                                  shareable=True)
        new = copy.deepcopy(old)
        new['data'].update(port=10812, access_mode='rw')
        self.driver.reconnect_volume(instance, new, attachment_id,
                                     mode='rw', shareable=True)
        disk = self.live_disks(instance)['ua-' + attachment_id]
        # The same disk at the same device, now read-write on the new
        # export.
        self.assertEqual('vdb', disk.find('target').get('dev'))
        self.assertEqual('10812',
                         disk.find('source').find('host').get('port'))
        self.assertIsNone(disk.find('readonly'))
        self.assertIsNotNone(disk.find('shareable'))

    def test_reconnect_falls_back_to_replugging_at_the_same_target(self):
        instance = self.make_instance()
        old = self.make_volume()
        attachment_id = str(uuid.uuid4())
        self.driver.attach_volume(instance, old, attachment_id, mode='ro',
                                  shareable=True, mountpoint='/dev/vdc')
        dom = self.conn.lookupByUUIDString(instance)
        refused = self.libvirt.libvirtError('unsupported')
        refused.err = (self.libvirt.VIR_ERR_OPERATION_UNSUPPORTED,) + (
            None,) * 8
        calls = []

        def update(xml, flags):
            calls.append(flags)
            raise refused

        new = self.make_volume()
        with mock.patch.object(self.libvirt.virDomain, 'updateDeviceFlags',
                               side_effect=update):
            self.driver.reconnect_volume(instance, new, attachment_id,
                                         mode='rw', shareable=True)
        self.assertEqual(1, len(calls))
        disk = self.live_disks(instance)['ua-' + attachment_id]
        self.assert_disk(disk, new['data']['path'], 'vdc', 'rw', True)
        self.assertEqual(1, len([d for d in dom.XMLDesc(0).split('<disk')
                                 if "dev='vdc'" in d]))

    def test_reconnect_of_a_disk_not_attached(self):
        instance = self.make_instance()
        exc = self.assertRaises(
            exception.DriverError, self.driver.reconnect_volume, instance,
            self.make_volume(), str(uuid.uuid4()))
        self.assertIn('is not attached', str(exc))
        self.assertRaises(exception.DriverError,
                          self.driver.reconnect_volume, str(uuid.uuid4()),
                          self.make_volume(), str(uuid.uuid4()))

    def test_attach_applies_qos_specs(self):
        # Every attachment of a shared volume gets the type's front-end
        # specs on its own disk.
        volume = self.make_volume()
        volume['data']['qos_specs'] = {'total_bytes_sec': '1048576',
                                       'read_iops_sec': '2000'}
        for _ in range(2):
            instance = self.make_instance()
            attachment_id = str(uuid.uuid4())
            self.driver.attach_volume(instance, volume, attachment_id,
                                      mode='rw', shareable=True)
            iotune = self.live_disks(instance)['ua-' + attachment_id].find(
                'iotune')
            self.assertEqual({'total_bytes_sec': '1048576',
                              'read_iops_sec': '2000'},
                             {e.tag: e.text for e in iotune})

    def test_list_attached_disks(self):
        instance = self.make_instance()
        attachment_id = str(uuid.uuid4())
        self.driver.attach_volume(instance, self.make_volume(),
                                  attachment_id, mode='rw', shareable=True)
        # Domains of other tests may be there too (one test driver per
        # process): look at this instance's.
        mine = [d for d in self.driver.list_attached_disks()
                if d['instance_uuid'] == instance]
        self.assertEqual([attachment_id], [d['attachment_id'] for d in mine])
        self.assertEqual('vdb', mine[0]['target'])
        self.driver.detach_volume(instance, None, attachment_id)
        self.assertEqual([], [d for d in self.driver.list_attached_disks()
                              if d['instance_uuid'] == instance])

    def test_attach_shareable_ro(self):
        instance = self.make_instance()
        volume = self.make_volume()
        attachment_id = str(uuid.uuid4())
        self.driver.attach_volume(instance, volume, attachment_id,
                                  mode='ro', shareable=True)
        self.assert_disk(self.live_disks(instance)['ua-' + attachment_id],
                         volume['data']['path'], 'vdb', 'ro', True)

    def test_attach_not_shareable(self):
        instance = self.make_instance()
        volume = self.make_volume()
        attachment_id = str(uuid.uuid4())
        self.driver.attach_volume(instance, volume, attachment_id)
        self.assert_disk(self.live_disks(instance)['ua-' + attachment_id],
                         volume['data']['path'], 'vdb', 'rw', False)

    def test_multiattach_two_instances(self):
        first, second = self.make_instance(), self.make_instance()
        volume = self.make_volume()
        rw_id, ro_id = str(uuid.uuid4()), str(uuid.uuid4())
        self.driver.attach_volume(first, volume, rw_id, mode='rw',
                                  shareable=True)
        self.driver.attach_volume(second, volume, ro_id, mode='ro',
                                  shareable=True)
        path = volume['data']['path']
        self.assert_disk(self.live_disks(first)['ua-' + rw_id], path,
                         'vdb', 'rw', True)
        self.assert_disk(self.live_disks(second)['ua-' + ro_id], path,
                         'vdb', 'ro', True)
        self.assertNotIn('ua-' + ro_id, self.live_disks(first))
        self.assertNotIn('ua-' + rw_id, self.live_disks(second))

    def test_next_free_device_and_mountpoint(self):
        instance = self.make_instance()
        ids = [str(uuid.uuid4()) for _ in range(3)]
        self.assertEqual('/dev/vdd', self.driver.attach_volume(
            instance, self.make_volume(), ids[0], mountpoint='/dev/vdd'))
        self.assertEqual('/dev/vdb', self.driver.attach_volume(
            instance, self.make_volume(), ids[1]))
        self.assertEqual('/dev/vdc', self.driver.attach_volume(
            instance, self.make_volume(), ids[2]))
        disks = self.live_disks(instance)
        self.assertEqual(
            ['vdd', 'vdb', 'vdc'],
            [disks['ua-' + i].find('target').get('dev') for i in ids])

    def test_mountpoint_in_use(self):
        instance = self.make_instance()
        exc = self.assertRaises(
            exception.DriverError, self.driver.attach_volume, instance,
            self.make_volume(), str(uuid.uuid4()), mountpoint='/dev/vda')
        self.assertIn('/dev/vda is already used', str(exc))
        self.assertEqual([None], list(self.live_disks(instance)))

    def test_bad_mountpoint(self):
        instance = self.make_instance()
        self.assertRaises(
            exception.DriverError, self.driver.attach_volume, instance,
            self.make_volume(), str(uuid.uuid4()), mountpoint='/dev/vd1')

    def test_attach_again_is_a_no_op(self):
        instance = self.make_instance()
        volume = self.make_volume()
        attachment_id = str(uuid.uuid4())
        for _ in range(2):
            self.assertEqual('/dev/vdb', self.driver.attach_volume(
                instance, volume, attachment_id, shareable=True))
        self.assertEqual({None, 'ua-' + attachment_id},
                         set(self.live_disks(instance)))

    def test_attach_by_domain_name(self):
        instance = self.make_instance()
        name = self.conn.lookupByUUIDString(instance).name()
        attachment_id = str(uuid.uuid4())
        self.driver.attach_volume(name, self.make_volume(), attachment_id)
        self.assertIn('ua-' + attachment_id, self.live_disks(instance))

    def test_attach_unknown_instance(self):
        missing = str(uuid.uuid4())
        exc = self.assertRaises(
            exception.DriverError, self.driver.attach_volume, missing,
            self.make_volume(), str(uuid.uuid4()))
        self.assertIn('instance %s is not a domain of %s' % (
            missing, TEST_URI), str(exc))

    def test_unsupported_volume_type_attaches_nothing(self):
        instance = self.make_instance()
        exc = self.assertRaises(
            exception.DriverError, self.driver.attach_volume, instance,
            {'driver_volume_type': 'rbd', 'data': {'name': 'pool/v'}},
            str(uuid.uuid4()))
        self.assertIn('unsupported driver_volume_type', str(exc))
        self.assertEqual([None], list(self.live_disks(instance)))

    def test_libvirt_refusal_is_a_driver_error(self):
        # The test driver hot-plugs virtio disks only.
        self.flags(group='hypervisor', libvirt_disk_bus='scsi')
        instance = self.make_instance()
        exc = self.assertRaises(
            exception.DriverError, self.driver.attach_volume, instance,
            self.make_volume(), str(uuid.uuid4()))
        self.assertIn('cannot attach a disk to instance %s' % instance,
                      str(exc))
        self.assertIn("disk bus 'scsi' cannot be hotplugged", str(exc))
        self.assertEqual([None], list(self.live_disks(instance)))

    def test_concurrent_attaches_get_distinct_devices(self):
        instance = self.make_instance()
        volume = self.make_volume()
        ids = [str(uuid.uuid4()) for _ in range(8)]
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            devs = list(pool.map(
                lambda i: self.driver.attach_volume(
                    instance, volume, i, shareable=True), ids))
        self.assertEqual(8, len(set(devs)))
        disks = self.live_disks(instance)
        self.assertEqual(sorted(d[len('/dev/'):] for d in devs),
                         sorted(disks['ua-' + i].find('target').get('dev')
                                for i in ids))

    def test_persistent_instance(self):
        # test:///default changes only the running domain (live|config
        # is refused), so the driver falls back to a live attach.
        instance = self.make_instance(persistent=True)
        attachment_id = str(uuid.uuid4())
        self.driver.attach_volume(instance, self.make_volume(),
                                  attachment_id, shareable=True)
        self.assertIn('ua-' + attachment_id, self.live_disks(instance))
        self.driver.detach_volume(instance, None, attachment_id)
        self.assertNotIn('ua-' + attachment_id, self.live_disks(instance))

    def test_reconnects_after_close(self):
        self.driver.init_host('testhost')
        instance = self.make_instance()
        self.driver.close()
        attachment_id = str(uuid.uuid4())
        self.driver.attach_volume(instance, self.make_volume(),
                                  attachment_id)
        self.assertIn('ua-' + attachment_id, self.live_disks(instance))

    def test_bad_uri(self):
        self.flags(group='hypervisor', libvirt_uri='bogus:///nowhere')
        driver = libvirt_driver.LibvirtDriver(self.conf)
        exc = self.assertRaises(exception.DriverError, driver.init_host,
                                'testhost')
        self.assertIn('cannot connect to bogus:///nowhere', str(exc))

    # -- detach ------------------------------------------------------------

    def test_detach_removes_only_that_attachment(self):
        first, second = self.make_instance(), self.make_instance()
        shared, other = self.make_volume(), self.make_volume()
        a1, a2, a3 = (str(uuid.uuid4()) for _ in range(3))
        self.driver.attach_volume(first, shared, a1, shareable=True)
        self.driver.attach_volume(first, other, a2)
        self.driver.attach_volume(second, shared, a3, mode='ro',
                                  shareable=True)

        self.driver.detach_volume(first, shared, a1)

        self.assertEqual({None, 'ua-' + a2}, set(self.live_disks(first)))
        self.assertEqual({None, 'ua-' + a3}, set(self.live_disks(second)))
        self.assert_disk(self.live_disks(second)['ua-' + a3],
                         shared['data']['path'], 'vdb', 'ro', True)
        # The device name is free again.
        self.assertEqual('/dev/vdb', self.driver.attach_volume(
            first, shared, str(uuid.uuid4()), shareable=True))

    def test_detach_is_idempotent(self):
        instance = self.make_instance()
        volume = self.make_volume()
        attachment_id = str(uuid.uuid4())
        self.driver.attach_volume(instance, volume, attachment_id)
        self.driver.detach_volume(instance, volume, attachment_id)
        self.driver.detach_volume(instance, volume, attachment_id)
        self.driver.detach_volume(instance, volume, str(uuid.uuid4()))
        self.assertEqual([None], list(self.live_disks(instance)))

    def test_detach_from_missing_instance(self):
        self.driver.detach_volume(str(uuid.uuid4()), self.make_volume(),
                                  str(uuid.uuid4()))

    def test_detach_times_out_when_the_guest_holds_the_disk(self):
        instance = self.make_instance()
        attachment_id = str(uuid.uuid4())
        self.driver.attach_volume(instance, self.make_volume(),
                                  attachment_id)
        self.flags(group='hypervisor', libvirt_detach_timeout=0)
        dom = self.conn.lookupByUUIDString(instance)
        # A guest that ignores the unplug request: the disk stays.
        self.useFixture(fixtures.MockPatchObject(
            self.driver, '_lookup', lambda _uuid: _DeafDomain(dom)))
        exc = self.assertRaises(
            exception.DriverError, self.driver.detach_volume, instance,
            None, attachment_id)
        self.assertIn('did not release disk ua-%s' % attachment_id,
                      str(exc))
        self.assertIn('ua-' + attachment_id, self.live_disks(instance))


    # -- resize ------------------------------------------------------------

    def test_resize_is_unsupported_by_the_test_driver(self):
        # libvirt's test driver (libvirt 11) does not implement
        # virDomainBlockResize: the driver reports it as its error, and
        # the disk stays attached.
        instance = self.make_instance()
        attachment_id = str(uuid.uuid4())
        self.driver.attach_volume(instance, self.make_volume(),
                                  attachment_id, shareable=True)
        exc = self.assertRaises(exception.DriverError,
                                self.driver.resize_volume, instance,
                                attachment_id, 2 * 1024 ** 3)
        self.assertIn('cannot resize disk ua-%s of instance %s to %d '
                      'bytes' % (attachment_id, instance, 2 * 1024 ** 3),
                      str(exc))
        self.assertIn('virDomainBlockResize', str(exc))
        self.assertIn('ua-' + attachment_id, self.live_disks(instance))

    def _resizing(self, instance):
        dom = _ResizingDomain(self.conn.lookupByUUIDString(instance))
        self.useFixture(fixtures.MockPatchObject(
            self.driver, '_lookup', lambda _uuid: dom))
        return dom

    def test_resize_names_the_disk_of_the_attachment(self):
        # What the driver asks libvirt, on a domain of the test driver
        # whose blockResize records the call.
        instance = self.make_instance()
        first, second = str(uuid.uuid4()), str(uuid.uuid4())
        volume = self.make_volume()
        self.driver.attach_volume(instance, volume, first, shareable=True)
        self.driver.attach_volume(instance, self.make_volume(), second)
        dom = self._resizing(instance)
        self.driver.resize_volume(instance, second, 3 * 1024 ** 3)
        self.driver.resize_volume(instance, first, 2 * 1024 ** 3)
        flag = self.libvirt.VIR_DOMAIN_BLOCK_RESIZE_BYTES
        self.assertEqual([('vdc', 3 * 1024 ** 3, flag),
                          ('vdb', 2 * 1024 ** 3, flag)], dom.resized)

    def test_resize_of_a_disk_that_is_not_attached(self):
        instance = self.make_instance()
        dom = self._resizing(instance)
        attachment_id = str(uuid.uuid4())
        exc = self.assertRaises(exception.DriverError,
                                self.driver.resize_volume, instance,
                                attachment_id, 1024 ** 3)
        self.assertIn('attachment %s has no disk in instance %s' % (
            attachment_id, instance), str(exc))
        self.assertEqual([], dom.resized)

    def test_resize_for_an_unknown_instance(self):
        instance = str(uuid.uuid4())
        exc = self.assertRaises(exception.DriverError,
                                self.driver.resize_volume, instance,
                                str(uuid.uuid4()), 1024 ** 3)
        self.assertIn('instance %s is not a domain' % instance, str(exc))

    def test_resize_of_a_stopped_instance_is_nothing_to_do(self):
        dom_uuid = str(uuid.uuid4())
        dom = self.conn.defineXML(self._domain_xml(
            'cm-test-%s' % dom_uuid[:8], dom_uuid))
        self.addCleanup(self._destroy, dom)
        resizing = self._resizing(dom_uuid)
        self.driver.resize_volume(dom_uuid, str(uuid.uuid4()), 1024 ** 3)
        self.assertEqual([], resizing.resized)


class _ResizingDomain:
    """A real domain of the test driver whose blockResize, which the test
    driver does not implement, records its arguments."""

    def __init__(self, dom):
        self._dom = dom
        self.resized = []

    def __getattr__(self, name):
        return getattr(self._dom, name)

    def blockResize(self, disk, size, flags=0):  # noqa: N802  libvirt name
        self.resized.append((disk, size, flags))
        return 0


class _DeafDomain:
    """A real domain whose guest never releases a detached device."""

    def __init__(self, dom):
        self._dom = dom

    def __getattr__(self, name):
        return getattr(self._dom, name)

    def detachDeviceAlias(self, alias, flags):  # noqa: N802  libvirt name
        return 0
