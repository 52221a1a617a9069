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

"""Tests of the fake hypervisor driver."""

import json
import os

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

    def test_reconnect_in_place(self):
        self.assertTrue(self.driver.capabilities.supports_reconnect)
        self.driver.attach_volume('i1', INFO, 'a1', mountpoint='/dev/vdb',
                                  mode='ro', shareable=True)
        new = {'driver_volume_type': 'file', 'data': {'path': '/new'}}
        self.driver.reconnect_volume('i1', new, 'a1', mode='rw',
                                     shareable=True)
        (record,) = self.driver.list_attachments('i1')
        self.assertEqual(('rw', new, '/dev/vdb'),
                         (record['mode'], record['connection_info'],
                          record['mountpoint']))
        self.assertRaises(exception.DriverError,
                          self.driver.reconnect_volume, 'i2', new, 'a1')
        self.assertRaises(exception.DriverError,
                          self.driver.reconnect_volume, 'i1', new, 'a2')

class FakeDriverRecordsTestCase(base.TestCase):
    """The records live in a file of the host's state path."""

    def setUp(self):
        super().setUp()
        self.driver = fake.FakeDriver(self.conf)
        self.path = os.path.join(self.state_path, 'fake-hypervisor.json')

    def test_records_outlive_the_driver(self):
        # A restarted manager (or another worker of the host) sees what
        # this one attached, as a real host's domains keep their disks.
        self.driver.attach_volume('i1', INFO, 'a1', '/dev/vdb', mode='ro')
        self.driver.attach_volume('i1', INFO, 'a2')
        self.driver.add_instance('i1', 'project-a')
        again = fake.FakeDriver(self.conf)
        self.assertEqual(self.driver.list_attachments(),
                         again.list_attachments())
        self.assertEqual(['a1', 'a2'], [
            r['attachment_id'] for r in again.list_attachments()])
        self.assertEqual('project-a', again.get_instance_owner('i1'))
        again.detach_volume('i1', INFO, 'a1')
        self.assertEqual(['a2'], [
            d['attachment_id'] for d in self.driver.list_attached_disks()])

    def test_file_replaced_whole(self):
        self.assertEqual([], self.driver.list_attachments())
        self.assertFalse(os.path.exists(self.path))
        self.driver.attach_volume('i1', INFO, 'a1')
        self.driver.detach_volume('i1', INFO, 'a1')
        with open(self.path) as f:
            self.assertEqual({'attachments': {}, 'owners': {}}, json.load(f))
        # No temporary file left beside it.
        self.assertEqual(['fake-hypervisor.json'], [
            name for name in os.listdir(self.state_path)
            if name.startswith('fake-hypervisor')])

    def test_nothing_written_without_a_change(self):
        self.driver.attach_volume('i1', INFO, 'a1')
        before = os.stat(self.path).st_ino
        self.driver.attach_volume('i1', INFO, 'a1')
        self.driver.detach_volume('i2', INFO, 'a1')
        self.driver.detach_volume('i1', INFO, 'nope')
        self.assertEqual(before, os.stat(self.path).st_ino)

    def test_not_json(self):
        with open(self.path, 'w') as f:
            f.write('{')
        self.assertRaises(exception.DriverError,
                          self.driver.list_attachments)
        self.assertRaises(exception.DriverError, self.driver.attach_volume,
                          'i1', INFO, 'a1')
