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

"""The libvirt driver's per-instance lock across processes."""

import os
import subprocess
import sys
import textwrap
import uuid

from cinder_ma.hypervisor.drivers import libvirt as libvirt_driver
from tests import base


#: A process trying the lock of a file without waiting: prints whether it
#: got it (fcntl record locks, as oslo.concurrency's external locks).
TRY_LOCK_FILE = textwrap.dedent('''
    import fcntl
    import sys
    with open(sys.argv[1], 'a') as f:
        try:
            fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            print(False)
        else:
            print(True)
''')


class InstanceLockTestCase(base.TestCase):
    """The lock under which the disks of a domain change holds across the
    processes of the host (cinder-ma-all's workers)."""

    def try_lock(self, path):
        result = subprocess.run([sys.executable, '-c', TRY_LOCK_FILE, path],
                                capture_output=True, text=True, check=True,
                                timeout=60)
        return result.stdout.strip()

    def test_instance_lock_is_a_file_lock_in_lock_path(self):
        instance = str(uuid.uuid4())
        path = os.path.join(self.conf.oslo_concurrency.lock_path,
                            'cinder_ma-libvirt-instance-%s' % instance)
        with libvirt_driver.LibvirtDriver._instance_lock(instance):
            self.assertEqual('False', self.try_lock(path))
        self.assertEqual('True', self.try_lock(path))
