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

"""tools/benchmark_datapath.py: the timing of requests in flight.

qemu-io is replaced by a script on PATH that prints a run's output all
at once (what a run too short for the clock looks like to the tool);
the real qemu-io is driven by the functional tests."""

import os
import stat

import fixtures

from tests import base

TOOL = os.path.join(os.path.dirname(__file__), '..', '..', '..',
                    'tools', 'benchmark_datapath.py')

# Two requests of qemu-io's own output and its prompts, in one write (no
# newline after a prompt: stdbuf flushes it with the results), which a
# pipe delivers in one read.
QEMU_IO = """#!/bin/sh
cat > /dev/null
printf '%s' 'qemu-io> qemu-io> read 4096/4096 bytes at offset 0
4 KiB, 1 ops; 00.00 sec (4 MiB/sec and 1000.0 ops/sec)
read 4096/4096 bytes at offset 4096
4 KiB, 1 ops; 00.00 sec (1.6 MiB/sec and 400.0 ops/sec)
'
"""


def _tool():
    return base.load_file('benchmark_datapath', TOOL)


class RequestsInFlightTimingTest(base.TestCase):

    def setUp(self):
        super().setUp()
        bindir = self.useFixture(fixtures.TempDir()).path
        script = os.path.join(bindir, 'qemu-io')
        with open(script, 'w') as f:
            f.write(QEMU_IO)
        os.chmod(script, stat.S_IRWXU)
        self.useFixture(fixtures.EnvironmentVariable(
            'PATH', bindir + os.pathsep + os.environ['PATH']))
        self.tool = _tool()

    def test_output_in_one_read_is_timed_by_the_longest_request(self):
        # The clock saw no time pass between the prompt and the last
        # result: the longest request (1 op at 400 ops/s) bounds it.
        seconds = self.tool.run_qemu_io(
            ['x'], ['aio_read 0 4k', 'aio_read 4096 4k', 'aio_flush'])
        self.assertEqual(1 / 400.0, seconds)
