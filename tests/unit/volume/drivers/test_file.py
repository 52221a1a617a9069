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

"""Tests of the file driver, on real files in the test's state directory."""

import os

import fixtures

from cinder_ma.conf import backend as backend_conf
from cinder_ma import exception
from cinder_ma.volume.drivers import base as driver_base
from cinder_ma.volume.drivers import file as file_driver
from tests import base

GiB = 1024 ** 3


class FileDriverTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.config = backend_conf.BackendConfig(
            self.conf, 'file', file_driver.FileDriver.get_driver_options())
        self.driver = file_driver.FileDriver(configuration=self.config,
                                             host='testhost@file')
        self.driver.do_setup()
        self.volume = driver_base.VolumeRef.for_volume(
            '0b0c6d9e-7a4a-4c55-9a0a-1d1b2b3c4d5e', 2,
            host='testhost@file#file')
        self.path = os.path.join(self.state_path, 'volumes',
                                 'volume-' + self.volume.id)

    def test_default_dir_is_in_state_path(self):
        self.assertEqual(os.path.join(self.state_path, 'volumes'),
                         self.driver.volumes_dir)
        self.assertTrue(os.path.isdir(self.driver.volumes_dir))

    def test_dir_from_backend_defaults_and_section(self):
        other = os.path.join(self.state_path, 'elsewhere')
        self.conf.set_override('file_volumes_dir', other,
                               group='backend_defaults')
        # Read once, by do_setup (the option is not mutable).
        self.assertNotEqual(other, self.driver.volumes_dir)
        self.driver.do_setup()
        self.assertEqual(other, self.driver.volumes_dir)
        mine = os.path.join(self.state_path, 'mine')
        self.conf.set_override('file_volumes_dir', mine, group='file')
        self.driver.do_setup()
        self.assertEqual(mine, self.driver.volumes_dir)

    def test_do_setup_fails_on_unusable_dir(self):
        blocker = os.path.join(self.state_path, 'a-file')
        open(blocker, 'w').close()
        self.conf.set_override('file_volumes_dir',
                               os.path.join(blocker, 'sub'), group='file')
        exc = self.assertRaises(exception.DriverError, self.driver.do_setup)
        self.assertIn('file_volumes_dir', str(exc))

    def test_create_is_sparse_with_size(self):
        self.driver.create_volume(self.volume)
        st = os.stat(self.path)
        self.assertEqual(2 * GiB, st.st_size)
        self.assertLess(st.st_blocks * 512, 1024 * 1024)
        self.assertEqual(0o600, st.st_mode & 0o777)

    def test_create_existing_fails_and_keeps_it(self):
        self.driver.create_volume(self.volume)
        with open(self.path, 'r+b') as f:
            f.write(b'data')
        exc = self.assertRaises(exception.DriverError,
                                self.driver.create_volume, self.volume)
        self.assertIn('already exists', str(exc))
        with open(self.path, 'rb') as f:
            self.assertEqual(b'data', f.read(4))

    def test_delete_is_idempotent(self):
        self.driver.create_volume(self.volume)
        self.driver.delete_volume(self.volume)
        self.assertFalse(os.path.exists(self.path))
        self.driver.delete_volume(self.volume)

    def test_bad_name_refused(self):
        bad = driver_base.VolumeRef(id='x', size=1, name='../x')
        self.assertRaises(exception.DriverError, self.driver.create_volume,
                          bad)

    def test_extend(self):
        self.driver.create_volume(self.volume)
        self.driver.extend_volume(self.volume, 5)
        self.assertEqual(5 * GiB, os.stat(self.path).st_size)
        self.assertRaises(exception.DriverError, self.driver.extend_volume,
                          self.volume, 1)
        missing = driver_base.VolumeRef.for_volume('missing', 1)
        self.assertRaises(exception.DriverError, self.driver.extend_volume,
                          missing, 2)

    def test_initialize_connection(self):
        self.driver.create_volume(self.volume)
        for mode in ('rw', 'ro'):
            info = self.driver.initialize_connection(
                self.volume, {'host': 'h1'}, mode)
            self.assertEqual({'driver_volume_type': 'file',
                              'data': {'path': self.path,
                                       'access_mode': mode,
                                       'volume_id': self.volume.id}}, info)
        self.assertRaises(exception.DriverError,
                          self.driver.initialize_connection, self.volume,
                          {'host': 'h1'}, 'wo')
        self.driver.terminate_connection(self.volume, {'host': 'h1'})

    def test_connections_are_listed(self):
        self.assertEqual([], self.driver.list_connections())
        self.driver.create_volume(self.volume)
        for host in ('h1', 'h2', 'h1'):
            self.driver.initialize_connection(self.volume, {'host': host},
                                              'rw')
        self.assertEqual([{'volume_id': self.volume.id, 'host': 'h1'},
                          {'volume_id': self.volume.id, 'host': 'h2'}],
                         self.driver.list_connections())
        for _ in range(2):  # idempotent
            self.driver.terminate_connection(self.volume, {'host': 'h1'})
        self.assertEqual([{'volume_id': self.volume.id, 'host': 'h2'}],
                         self.driver.list_connections())
        self.driver.terminate_connection(self.volume, {'host': 'h2'})
        self.assertEqual([], self.driver.list_connections())
        self.assertRaises(exception.DriverError,
                          self.driver.initialize_connection, self.volume,
                          {'host': '../x'}, 'rw')

    def test_initialize_connection_missing_volume(self):
        exc = self.assertRaises(exception.DriverError,
                                self.driver.initialize_connection,
                                self.volume, {}, 'rw')
        self.assertIn('does not exist', str(exc))

    def test_get_stats(self):
        self.driver.create_volume(self.volume)
        stats = self.driver.get_stats()
        pool, = stats['pools']
        self.assertEqual('file', pool['pool_name'])
        self.assertGreater(pool['total_capacity_gb'], 0)
        self.assertGreaterEqual(pool['total_capacity_gb'],
                                pool['free_capacity_gb'])
        self.assertEqual(0, pool['reserved_percentage'])
        self.assertEqual(2.0, pool['provisioned_capacity_gb'])
        self.assertTrue(pool['thin_provisioning_support'])

    def test_get_stats_named_backend(self):
        self.conf.set_override('volume_backend_name', 'gold', group='file')
        self.conf.set_override('reserved_percentage', 10,
                               group='backend_defaults')
        pool, = self.driver.get_stats()['pools']
        self.assertEqual('gold', pool['pool_name'])
        self.assertEqual(10, pool['reserved_percentage'])

    def test_capabilities(self):
        self.assertEqual(driver_base.Capabilities(
            multiattach=True, shared_targets=False, online_extend=True,
            snapshots=True, clone=True),
            file_driver.FileDriver.capabilities)
        self.assertEqual('file', file_driver.FileDriver.storage_protocol)


class FileCopyTestCase(base.TestCase):
    """Snapshots and copies: a reflink where the filesystem has them,
    else a sparse copy of the data extents; never a half copy under the
    target's name."""

    def setUp(self):
        super().setUp()
        self.config = backend_conf.BackendConfig(
            self.conf, 'file', file_driver.FileDriver.get_driver_options())
        self.driver = file_driver.FileDriver(configuration=self.config,
                                             host='testhost@file')
        self.driver.do_setup()
        self.volume = driver_base.VolumeRef.for_volume(
            '0b0c6d9e-7a4a-4c55-9a0a-1d1b2b3c4d5e', 2,
            host='testhost@file#file')
        self.driver.create_volume(self.volume)
        self.path = self.driver.path_of(self.volume.name)
        with open(self.path, 'r+b') as f:
            f.write(b'head')
            f.seek(512 * 1024 ** 2)
            f.write(b'tail')
        self.snapshot = driver_base.SnapshotRef.for_snapshot(
            '11111111-2222-4333-8444-555555555555', self.volume, 1)

    def _blocks(self, path):
        return os.stat(path).st_blocks

    def test_snapshot_and_volume_from_it(self):
        self.driver.create_snapshot(self.snapshot)
        snap = self.driver.path_of(self.snapshot.name)
        with open(snap, 'rb') as f:
            self.assertEqual(b'head', f.read(4))
            f.seek(512 * 1024 ** 2)
            self.assertEqual(b'tail', f.read(4))
        # Sparse: far less allocated than its size.
        self.assertLess(self._blocks(snap) * 512, 64 * 1024 ** 2)
        made = driver_base.VolumeRef.for_volume(
            '11111111-2222-4333-8444-666666666666', 2)
        self.driver.create_volume_from_snapshot(made, self.snapshot)
        self.assertEqual(2 * driver_base.GiB,
                         os.path.getsize(self.driver.path_of(made.name)))
        # A copy onto an existing volume is refused.
        self.assertRaises(exception.DriverError,
                          self.driver.create_volume_from_snapshot, made,
                          self.snapshot)
        self.driver.delete_snapshot(self.snapshot)
        self.driver.delete_snapshot(self.snapshot)  # idempotent
        self.assertFalse(os.path.exists(snap))

    def test_sparse_copy_when_reflink_is_refused(self):
        self.useFixture(fixtures.MockPatchObject(
            file_driver, '_reflink', return_value=False))
        clone = driver_base.VolumeRef.for_volume(
            '11111111-2222-4333-8444-777777777777', 1)
        self.driver.create_cloned_volume(clone, self.volume)
        with open(self.driver.path_of(clone.name), 'rb') as f:
            self.assertEqual(b'head', f.read(4))
            f.seek(512 * 1024 ** 2)
            self.assertEqual(b'tail', f.read(4))

    def test_failed_copy_leaves_nothing(self):
        self.useFixture(fixtures.MockPatchObject(
            file_driver, '_reflink', side_effect=OSError(5, 'I/O error')))
        self.assertRaises(exception.DriverError, self.driver.create_snapshot,
                          self.snapshot)
        self.assertEqual(
            [], [n for n in os.listdir(self.driver.volumes_dir)
                 if 'snapshot' in n])

    def test_revert(self):
        self.driver.create_snapshot(self.snapshot)
        with open(self.path, 'r+b') as f:
            f.write(b'next')
        self.driver.revert_to_snapshot(self.volume, self.snapshot)
        with open(self.path, 'rb') as f:
            self.assertEqual(b'head', f.read(4))
