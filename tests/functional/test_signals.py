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

"""Ctrl-C (SIGINT to the process group) stops ``cinder-ma-all`` as
gracefully as SIGTERM: creates accepted with 202 are finished, not lost.
"""

import json
import signal
import time

import requests

from tests import base
from tests.functional import fixtures as func_fixtures

PROJECT = 'sigint'
HEADERS = {
    'X-Auth-Token': 'admin:%s' % PROJECT,
    'Content-Type': 'application/json',
    'Accept': 'application/json',
    'OpenStack-API-Version': 'volume 3.54',
}
#: Creates in flight when Ctrl-C arrives.
CREATES = 8


class SigintTestCase(base.BaseTestCase):

    def _url(self, server, path):
        return '%s/%s%s' % (server.endpoint, PROJECT, path)

    def _create(self, server):
        response = requests.post(
            self._url(server, '/volumes'),
            data=json.dumps({'volume': {'size': 1}}), headers=HEADERS,
            timeout=func_fixtures.HTTP_TIMEOUT)
        self.assertEqual(202, response.status_code, response.text)
        return response.json()['volume']['id']

    def _statuses(self, server, volume_ids):
        found = {}
        for volume_id in volume_ids:
            response = requests.get(
                self._url(server, '/volumes/%s' % volume_id),
                headers=HEADERS, timeout=func_fixtures.HTTP_TIMEOUT)
            self.assertEqual(200, response.status_code, response.text)
            found[volume_id] = response.json()['volume']['status']
        return found

    def test_ctrl_c_finishes_accepted_creates(self):
        server = self.useFixture(func_fixtures.AllInOne())
        server.attach_logs_on_failure(self)
        volume_ids = [self._create(server) for _ in range(CREATES)]
        # What a terminal's Ctrl-C does: SIGINT to every process of the
        # foreground group, right after the last create was accepted.
        status = server.process.stop(signal.SIGINT)
        self.assertEqual(0, status, server.process.describe())

        again = self.useFixture(func_fixtures.AllInOne(previous=server))
        again.attach_logs_on_failure(self)
        deadline = time.monotonic() + func_fixtures.START_TIMEOUT
        while True:
            statuses = self._statuses(again, volume_ids)
            if set(statuses.values()) == {'available'}:
                break
            # 'creating' may still be finishing; 'error' never comes back.
            self.assertNotIn('error', statuses.values(), statuses)
            self.assertLess(time.monotonic(), deadline, statuses)
            time.sleep(0.1)
