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

"""Unit tests of the nbd driver's consistent snapshots: the pause and
resume of the exports, against a stand-in for nbdkit's pause filter
control socket (the pauses of real nbdkit exports are proven in
tests/functional/volume/test_nbd.py)."""

import os
import socket
import threading

import fixtures

from cinder_ma.conf import backend as backend_conf
from cinder_ma import exception
from cinder_ma.volume.drivers import base as driver_base
from cinder_ma.volume.drivers import nbd
from tests import base


class PauseControl:
    """A stand-in for the pause filter's control socket: acknowledges
    'p' and 'r' (unless ``silent``) and records what it was sent."""

    def __init__(self, path, silent=False):
        self.seen = []
        self.silent = silent
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(1)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        connection, _ = self.server.accept()
        with connection:
            while True:
                command = connection.recv(1)
                if not command:
                    return
                self.seen.append(command)
                if not self.silent:
                    connection.sendall(command.upper())

    def close(self):
        self.server.close()


class NBDSnapshotTestCase(base.TestCase):
    """Snapshots pause every export of the volume, bounded, and resume
    them whatever happens."""

    def setUp(self):
        super().setUp()
        self.config = backend_conf.BackendConfig(
            self.conf, 'nbd', nbd.NBDDriver.get_driver_options())
        self.conf.set_override('nbd_snapshot_drain_timeout', 1,
                               group='backend_defaults')
        self.driver = nbd.NBDDriver(configuration=self.config,
                                    host='testhost@nbd')
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        self.volume = driver_base.VolumeRef.for_volume(
            '0b0c6d9e-7a4a-4c55-9a0a-1d1b2b3c4d5e', 1,
            host='testhost@nbd#nbd')
        self.driver.create_volume(self.volume)
        self.snapshot = driver_base.SnapshotRef.for_snapshot(
            '11111111-2222-4333-8444-555555555555', self.volume, 1)
        self.key = self.volume.id + '.att-a1'
        self.useFixture(fixtures.MockPatchObject(
            self.driver, '_records',
            return_value={self.key: {'volume_id': self.volume.id}}))

    def _snapshot_path(self):
        return os.path.join(self.driver._files.volumes_dir,
                            self.snapshot.name)

    def test_command_has_the_pause_filter(self):
        record = {'volume_id': self.volume.id, 'access_mode': 'rw',
                  'export': self.volume.name, 'port': 10900}
        cmd = self.driver._command(self.key, record, '/v')
        self.assertIn('--filter=pause', cmd)
        self.assertIn('pause-control=%s' % self.driver._control_path(
            self.key), cmd)

    def test_exports_are_paused_for_the_copy(self):
        control = PauseControl(self.driver._control_path(self.key))
        self.addCleanup(control.close)
        paused = self.driver.create_snapshot(self.snapshot)
        control.thread.join(5)
        self.assertEqual([b'p', b'r'], control.seen)
        self.assertIsInstance(paused, float)
        self.assertTrue(os.path.exists(self._snapshot_path()))

    def test_an_export_that_does_not_drain_fails_the_snapshot(self):
        control = PauseControl(self.driver._control_path(self.key),
                               silent=True)
        self.addCleanup(control.close)
        exc = self.assertRaises(exception.DriverError,
                                self.driver.create_snapshot, self.snapshot)
        self.assertIn('nbd_snapshot_drain_timeout', str(exc))
        self.assertFalse(os.path.exists(self._snapshot_path()))

    def test_an_export_without_pause_control_is_crash_consistent(self):
        self.assertIsNone(self.driver.create_snapshot(self.snapshot))
        self.assertTrue(os.path.exists(self._snapshot_path()))

    def test_a_volume_without_exports(self):
        self.driver._records.return_value = {}
        self.assertEqual(0.0, self.driver.create_snapshot(self.snapshot))

    def test_a_clone_pauses_the_source_exports(self):
        control = PauseControl(self.driver._control_path(self.key))
        self.addCleanup(control.close)
        clone = driver_base.VolumeRef.for_volume(
            '11111111-2222-4333-8444-666666666666', 1)
        self.driver.create_cloned_volume(clone, self.volume)
        control.thread.join(5)
        self.assertEqual([b'p', b'r'], control.seen)
        self.assertTrue(os.path.exists(os.path.join(
            self.driver._files.volumes_dir, clone.name)))
