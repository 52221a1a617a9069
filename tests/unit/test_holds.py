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

"""Tests of the test-only hold points (the fault tests' hook)."""

import os
import threading

import fixtures

from cinder_ma import holds
from tests import base


class HoldTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.directory = self.useFixture(fixtures.TempDir()).path
        self.spec = os.path.join(self.directory, 'spec')

    def use_spec(self, points):
        self.useFixture(fixtures.EnvironmentVariable(holds.ENV, self.spec))
        with open(self.spec, 'w') as f:
            f.write('%s;%s' % (self.directory, points))

    def marker(self, name):
        return os.path.join(self.directory, name)

    def release(self):
        with open(self.marker('release'), 'w'):
            pass

    def test_no_hold_without_the_variable(self):
        self.useFixture(fixtures.EnvironmentVariable(holds.ENV))
        holds.hold('api_create_attachment')
        self.assertEqual([], os.listdir(self.directory))

    def test_no_hold_without_the_file(self):
        self.useFixture(fixtures.EnvironmentVariable(holds.ENV, self.spec))
        holds.hold('api_create_attachment')
        self.assertEqual([], os.listdir(self.directory))

    def test_other_points_and_indexes_pass(self):
        self.use_spec('create_volume:2,api_delete_attachment:0')
        holds.hold('api_create_attachment')
        holds.hold('create_volume', 1)
        self.assertEqual(['spec'], os.listdir(self.directory))

    def test_holds_once_until_released(self):
        self.use_spec('create_volume:1,api_create_attachment:0')
        returned = threading.Event()

        def held():
            holds.hold('api_create_attachment')
            returned.set()

        thread = threading.Thread(target=held)
        thread.start()
        self.addCleanup(thread.join, 10)
        self.addCleanup(self.release)
        marker = self.marker('held-api_create_attachment-0')
        for _ in range(200):
            if os.path.exists(marker) and os.path.getsize(marker):
                break
            returned.wait(0.05)
        with open(marker) as f:
            self.assertEqual(str(os.getpid()), f.read())
        self.assertFalse(returned.wait(0.2))
        # Held once per directory: another run passes.
        holds.hold('api_create_attachment')
        self.release()
        self.assertTrue(returned.wait(10))
