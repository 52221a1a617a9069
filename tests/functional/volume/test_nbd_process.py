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

"""The NBD driver's liveness check of an nbdkit process."""

import os
import subprocess
import time

from cinder_ma.volume.drivers import nbd_process
from tests import base


class NBDDriverTestCase(base.BaseTestCase):

    def test_a_zombie_is_not_alive(self):
        # An nbdkit another worker started and that exited stays a zombie
        # until that worker reaps it: it serves nothing.
        child = subprocess.Popen(['true'])
        self.addCleanup(child.wait)
        deadline = time.monotonic() + 10
        while nbd_process.alive(child.pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertFalse(nbd_process.alive(child.pid))
        self.assertTrue(nbd_process.alive(os.getpid()))
