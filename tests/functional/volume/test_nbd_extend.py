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

"""Online extend of an exported volume of the NBD driver, with a real
nbdkit export and a real NBD client (``qemu-io``, the NBD client of
QEMU's block layer, which a hypervisor uses too).

What cinder_ma's docs say about it, checked: the file grows under its
export; a client that connects after the extend sees the new size; a
client connected before keeps the old size, and QEMU's NBD client cannot
grow it in place ("Cannot grow NBD nodes"), which is why an ``nbd``
attachment made through a manager is reported as not resized. Skipped
when the programs are absent, unless ``CINDER_MA_REQUIRE_SERVICES=1``.
"""

import os
import select
import signal
import subprocess
import time

from cinder_ma.conf import backend as backend_conf
from cinder_ma.volume.drivers import base as driver_base
from cinder_ma.volume.drivers import nbd
from tests import base
from tests.functional import fixtures as functional_fixtures
from tests.functional.volume import test_nbd

VOLUME_ID = '0d9e3c1a-5b7e-4c2f-8a3d-6e1f2b4c7a90'
GiB = 1024 ** 3


class InteractiveClient:
    """``qemu-io`` kept connected to an export, fed commands on stdin."""

    def __init__(self, argv):
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, bufsize=1)
        # Connected once the first prompt shows.
        self._until_prompt(30)

    def run(self, command, timeout=30):
        """The output of ``command``, up to the next prompt."""
        self.process.stdin.write(command + '\n')
        self.process.stdin.flush()
        return self._until_prompt(timeout)

    def _until_prompt(self, timeout):
        out = ''
        deadline = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while not out.endswith('qemu-io> '):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [],
                                                   remaining)[0]:
                raise AssertionError('qemu-io did not answer: %r' % out)
            chunk = os.read(fd, 4096).decode()
            if not chunk:
                raise AssertionError('qemu-io exited: %r' % out)
            out += chunk
        return out[:-len('qemu-io> ')]

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.write('quit\n')
            self.process.stdin.flush()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class NBDOnlineExtendTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        test_nbd.require_programs(self)
        config = backend_conf.BackendConfig(
            self.conf, 'nbd', nbd.NBDDriver.get_driver_options())
        first = functional_fixtures.free_port()
        self.conf.set_override('nbd_port_min', first,
                               group='backend_defaults')
        self.conf.set_override('nbd_port_max', min(first + 20, 65535),
                               group='backend_defaults')
        self.conf.set_override('nbd_supervise_interval', 3600,
                               group='backend_defaults')
        self.driver = nbd.NBDDriver(configuration=config,
                                    host='testhost@nbd')
        self.driver.do_setup()
        self.addCleanup(self.driver.stop_supervisor)
        self.addCleanup(self._stop_exports)
        self.volume = driver_base.VolumeRef.for_volume(
            VOLUME_ID, 1, multiattach=True, host='testhost@nbd#nbd')
        self.driver.create_volume(self.volume)

    def _stop_exports(self):
        for name in os.listdir(self.driver.exports_dir):
            if name.endswith('.pid'):
                try:
                    with open(os.path.join(self.driver.exports_dir,
                                           name)) as f:
                        os.kill(int(f.read()), signal.SIGTERM)
                except (OSError, ValueError):
                    pass

    def argv(self, info, name):
        return ['qemu-io'] + test_nbd.client_args(
            info, os.path.join(self.state_path, 'client-' + name))

    def length(self, info, name):
        result = subprocess.run(self.argv(info, name) + ['-c', 'length'],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(0, result.returncode, result.stderr)
        return result.stdout.strip()

    def test_extend_while_exported(self):
        self.assertTrue(self.driver.capabilities.online_extend)
        info = self.driver.initialize_connection(
            self.volume, {'host': 'host-a'}, 'rw')
        connected = InteractiveClient(self.argv(info, 'connected'))
        self.addCleanup(connected.close)
        self.assertEqual('1 GiB', connected.run('length').strip())

        self.driver.extend_volume(self.volume, 2)

        # The export serves the grown file to a client that connects now,
        # with the same connection info...
        self.assertEqual('2 GiB', self.length(info, 'new'))
        # ... and one connected before still sees the old size, which
        # QEMU's NBD client cannot grow in place.
        self.assertEqual('1 GiB', connected.run('length').strip())
        self.assertIn('Cannot grow NBD nodes',
                      connected.run('truncate %d' % (2 * GiB)))
        self.assertEqual('1 GiB', connected.run('length').strip())
        # It can still write where it could before.
        out = connected.run('write -P 0x5a %d 4096' % (GiB - 4096))
        self.assertIn('wrote 4096/4096 bytes', out)
