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

"""``cinder_ma.wsgi.api:application`` under a real WSGI server.

waitress' command line (``python -m waitress``) imports the module and
serves ``application``; the configuration comes from
``OS_CINDER_MA_CONFIG_FILES`` alone, with a SQLite database that
``cinder-ma-manage db sync`` migrated beforehand.
"""

import os
import time

import requests

from cinder_ma.api import microversions as mv
from tests import base
from tests.functional import fixtures as func_fixtures

TIMEOUT = func_fixtures.HTTP_TIMEOUT


class WSGIApplicationTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.server = func_fixtures.class_fixture(self,
                                                  func_fixtures.WSGIServer)
        self.server.attach_logs_on_failure(self)

    def test_versions_document(self):
        response = requests.get(self.server.url + '/', timeout=TIMEOUT)
        self.assertEqual(300, response.status_code)
        (v3,) = response.json()['versions']
        self.assertEqual('v3.0', v3['id'])
        self.assertEqual('CURRENT', v3['status'])
        self.assertEqual((mv.MIN_VERSION, mv.MAX_VERSION),
                         (v3['min_version'], v3['version']))
        self.assertIn({'rel': 'self', 'href': self.server.url + '/v3/'},
                      v3['links'])
        self.assertIn('X-OpenStack-Request-Id', response.headers)

    def test_reads_the_configured_database(self):
        headers = {'X-Auth-Token': 'alice:demo'}
        response = requests.get(self.server.project_url('demo') + '/types',
                                headers=headers, timeout=TIMEOUT)
        self.assertEqual(200, response.status_code, response.text)
        # Created by "db sync" in the database of the config file.
        self.assertEqual(['__DEFAULT__'],
                         [t['name'] for t in response.json()['volume_types']])
        response = requests.get(
            self.server.project_url('demo') + '/volumes', headers=headers,
            timeout=TIMEOUT)
        self.assertEqual(200, response.status_code, response.text)
        self.assertEqual({'volumes': []}, response.json())
        self.assertEqual([], self.server.services())

    def test_faults(self):
        response = requests.get(self.server.project_url('demo') + '/nope',
                                headers={'X-Auth-Token': 'alice:demo'},
                                timeout=TIMEOUT)
        self.assertEqual(404, response.status_code)
        self.assertEqual(404, response.json()['itemNotFound']['code'])
        response = requests.get(self.server.project_url('demo') + '/volumes',
                                timeout=TIMEOUT)
        self.assertEqual(401, response.status_code)


class GuruMeditationTestCase(base.BaseTestCase):
    """Under a WSGI server the file trigger of oslo.reports gives a report
    (docs/admin/maintenance.rst): each worker watches
    ``[oslo_reports] file_event_handler`` once it is set up, and writes
    its own report, named after its process."""

    def _server(self, server):
        server = self.useFixture(func_fixtures.WSGIServer(
            server=server, config={'oslo_reports': {
                # Created by the application when missing.
                'file_event_handler': '{directory}/gmr-trigger',
                'file_event_handler_interval': 1,
                'log_dir': '{directory}'}}))
        server.attach_logs_on_failure(self)
        return server

    def _reports(self, server):
        return sorted(name for name in os.listdir(server.directory)
                      if name.startswith('cinder-ma-api-') and
                      '_gurumeditation_' in name)

    def _trigger(self, server):
        """Set the workers up (their first requests), touch the trigger
        file, and wait for reports: returns their names."""
        for _ in range(8):
            response = requests.get(server.project_url('demo') + '/volumes',
                                    headers={'X-Auth-Token': 'alice:demo'},
                                    timeout=TIMEOUT)
            self.assertEqual(200, response.status_code, response.text)
        trigger = os.path.join(server.directory, 'gmr-trigger')
        func_fixtures.wait_for(lambda: os.path.exists(trigger),
                               'the trigger file',
                               processes=[server.process])
        self.assertEqual([], self._reports(server))
        # A modification time the watchers have not seen.
        later = time.time() + 2
        os.utime(trigger, (later, later))
        func_fixtures.wait_for(lambda: self._reports(server),
                               'a Guru Meditation report',
                               processes=[server.process])
        reports = self._reports(server)
        with open(os.path.join(server.directory, reports[0])) as f:
            report = f.read()
        self.assertIn('Guru Meditation', report)
        self.assertIn('Threads', report)
        return reports

    @staticmethod
    def _pid(report):
        return int(report.split('_gurumeditation_')[0].rsplit('-', 1)[1])

    def test_waitress(self):
        server = self._server('waitress')
        (report,) = self._trigger(server)
        self.assertEqual(server.process.proc.pid, self._pid(report))

    def test_gunicorn_workers(self):
        """Each worker reports (the master, which serves nothing, does
        not): the watcher starts in the worker, after the fork."""
        server = self._server('gunicorn')
        reports = self._trigger(server)
        pids = {self._pid(report) for report in reports}
        self.assertNotIn(server.process.proc.pid, pids)
        for pid in pids:
            with open('/proc/%d/stat' % pid) as f:
                parent = int(f.read().rsplit(')', 1)[1].split()[1])
            self.assertEqual(server.process.proc.pid, parent)
