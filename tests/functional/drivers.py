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

"""Storage drivers that only the functional tests load, in the managers
they start as processes (registered by
:class:`tests.functional.fixtures.TestDrivers`).

:class:`RecordingFileDriver` is the file driver, appending a JSON line per
connection call to the file named by ``$CINDER_MA_TEST_DRIVER_RECORD``
(one ``write`` of a line shorter than ``PIPE_BUF`` on a file opened for
appending: the lines of several processes never mix), so that a test can
count the calls of every process of a deployment.
"""

import json
import os

from cinder_ma.volume.drivers import file as file_driver

#: The environment variable naming the record file.
RECORD_ENV = 'CINDER_MA_TEST_DRIVER_RECORD'


def read_record(path):
    """The calls recorded in ``path``: a list of dicts (``call``,
    ``volume_id``, ``host``, ``pid``)."""
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


class RecordingFileDriver(file_driver.FileDriver):
    """The file driver, recording initialize and terminate calls."""

    def _record(self, call, volume, connector):
        path = os.environ.get(RECORD_ENV)
        if not path:
            return
        line = json.dumps({'call': call, 'volume_id': volume.id,
                           'host': (connector or {}).get('host'),
                           'pid': os.getpid()}) + '\n'
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)

    def initialize_connection(self, volume, connector, attach_mode):
        info = super().initialize_connection(volume, connector, attach_mode)
        self._record('initialize_connection', volume, connector)
        return info

    def terminate_connection(self, volume, connector):
        self._record('terminate_connection', volume, connector)
        super().terminate_connection(volume, connector)
