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

"""The fake hypervisor driver's records shared by forked processes."""

import multiprocessing
import os

from cinder_ma.hypervisor.drivers import fake
from tests import base
from tests.unit.hypervisor.drivers.test_fake import INFO


class FakeDriverRecordsTestCase(base.TestCase):
    """The records live in a file of the host's state path."""

    def setUp(self):
        super().setUp()
        self.driver = fake.FakeDriver(self.conf)

    def test_processes_share_the_records(self):
        # Changes of several processes at once are serialized by the
        # external lock: none is lost.
        def attach(index):
            driver = fake.FakeDriver(self.conf)
            for n in range(20):
                driver.attach_volume('i%d' % index, INFO,
                                     'a%d-%d' % (index, n))
                if n % 2:
                    driver.detach_volume('i%d' % index, INFO,
                                         'a%d-%d' % (index, n))
            os._exit(0)

        context = multiprocessing.get_context('fork')
        processes = [context.Process(target=attach, args=(i,))
                     for i in range(4)]
        for process in processes:
            process.start()
        for process in processes:
            process.join(60)
            self.assertEqual(0, process.exitcode)
        self.assertEqual(
            sorted('a%d-%d' % (i, n) for i in range(4)
                   for n in range(0, 20, 2)),
            sorted(r['attachment_id']
                   for r in self.driver.list_attachments()))
