"""Tests of the in-memory hypervisor driver."""

from cinder_ma import exception
from cinder_ma.hypervisor.drivers import fake
from tests import base

INFO = {'driver_volume_type': 'file',
        'data': {'path': '/v/volume-1', 'access_mode': 'ro'}}


class FakeDriverTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.driver = fake.FakeDriver(self.conf)
        self.driver.init_host('testhost')

    def test_capabilities(self):
        self.assertTrue(fake.FakeDriver.capabilities.supports_multiattach)
        self.assertTrue(fake.FakeDriver.capabilities.supports_extend_volume)

    def test_attach_records_and_detach_forgets(self):
        self.driver.attach_volume('i1', INFO, 'a1', '/dev/vdb', mode='ro',
                                  shareable=True)
        self.driver.attach_volume('i2', INFO, 'a2', mode='rw',
                                  shareable=True)
        record, = self.driver.list_attachments('i1')
        self.assertEqual({'instance_uuid': 'i1', 'attachment_id': 'a1',
                          'connection_info': INFO, 'mountpoint': '/dev/vdb',
                          'mode': 'ro', 'shareable': True, 'size': None},
                         record)
        self.assertEqual(2, len(self.driver.list_attachments()))
        self.driver.detach_volume('i1', INFO, 'a1')
        self.assertEqual([], self.driver.list_attachments('i1'))
        self.assertEqual(1, len(self.driver.list_attachments()))

    def test_resize_records_the_size(self):
        self.driver.attach_volume('i1', INFO, 'a1')
        self.driver.resize_volume('i1', 'a1', 2 * 1024 ** 3)
        self.driver.resize_volume('i1', 'a1', 2 * 1024 ** 3)
        record, = self.driver.list_attachments('i1')
        self.assertEqual(2 * 1024 ** 3, record['size'])
        self.assertEqual([('i1', 'a1', 2 * 1024 ** 3)] * 2,
                         self.driver.resizes)

    def test_resize_of_a_disk_not_attached(self):
        self.driver.attach_volume('i1', INFO, 'a1')
        for instance, attachment in (('i2', 'a1'), ('i1', 'a2')):
            exc = self.assertRaises(exception.DriverError,
                                    self.driver.resize_volume, instance,
                                    attachment, 1024)
            self.assertIn('is not attached to instance', str(exc))
        self.assertEqual([], self.driver.resizes)

    def test_device_is_the_requested_mountpoint(self):
        self.assertEqual('/dev/vdc', self.driver.attach_volume(
            'i1', INFO, 'a1', '/dev/vdc'))
        self.assertEqual('/dev/vdc', self.driver.attach_volume(
            'i1', INFO, 'a1', '/dev/vdd'))
        self.assertIsNone(self.driver.attach_volume('i1', INFO, 'a2'))

    def test_records_are_copies(self):
        info = {'data': {'path': 'p'}}
        self.driver.attach_volume('i1', info, 'a1')
        info['data']['path'] = 'changed'
        self.driver.list_attachments()[0]['connection_info']['x'] = 1
        self.assertEqual({'data': {'path': 'p'}},
                         self.driver.list_attachments()[0]['connection_info'])

    def test_idempotent(self):
        self.driver.attach_volume('i1', INFO, 'a1')
        self.driver.attach_volume('i1', INFO, 'a1')
        self.assertEqual(1, len(self.driver.list_attachments()))
        self.driver.detach_volume('i1', INFO, 'a1')
        self.driver.detach_volume('i1', INFO, 'a1')
        self.driver.detach_volume('i9', INFO, 'nope')

    def test_attachment_on_another_instance(self):
        self.driver.attach_volume('i1', INFO, 'a1')
        self.assertRaises(exception.DriverError, self.driver.attach_volume,
                          'i2', INFO, 'a1')
        self.driver.detach_volume('i2', INFO, 'a1')
        self.assertEqual(1, len(self.driver.list_attachments('i1')))

    def test_bad_mode(self):
        self.assertRaises(exception.DriverError, self.driver.attach_volume,
                          'i1', INFO, 'a1', mode='wo')

    def test_instance_owners(self):
        self.assertTrue(self.driver.capabilities.reports_instance_owner)
        self.assertIsNone(self.driver.get_instance_owner('i1'))
        self.driver.add_instance('i1', 'project-a')
        self.assertEqual('project-a', self.driver.get_instance_owner('i1'))
        self.assertIsNone(self.driver.get_instance_owner('i2'))

    def test_list_attached_disks(self):
        self.driver.attach_volume('i1', INFO, 'a1', mountpoint='/dev/vdb')
        self.assertEqual([{'instance_uuid': 'i1', 'attachment_id': 'a1',
                           'target': '/dev/vdb'}],
                         self.driver.list_attached_disks())
