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

"""NBD exports outlive their manager: the real ``cinder-ma-manager``
process of a storage host running the ``nbd`` backend is killed
(SIGKILL to its process group, a crash) and stopped (SIGTERM to its
process group, an upgrade) and started again, while a real QEMU NBD
client (``qemu-io`` with ``reconnect-delay``, TLS-PSK) keeps writing
through an attachment that an external consumer made with the
attachments API.

Proven here: the export's nbdkit is in neither the manager's process
group nor its session, so the signals never reach it; the client's
requests go on while the manager is down and after it came back (each
within :data:`IO_BOUND` seconds, the documented bound of "no pause");
the new manager adopts the export only after an NBD handshake with the
attachment's key; an export that runs but does not serve (stopped with
SIGSTOP: its port accepts, nothing answers) is replaced on the same
port with the same key, and the client carries on by itself within
its ``reconnect-delay``; every byte written before and after is there;
deleting the attachment stops the export (by its pidfile).

``cinder-ma-api`` and ``cinder-ma-manager`` run as processes on
PostgreSQL and RabbitMQ (skipped when those, nbdkit, qemu-io or nbdinfo
are missing, failed instead under ``CINDER_MA_REQUIRE_SERVICES=1``).
"""

import os
import signal
import threading
import time
import uuid

import requests
from testtools import content

from cinder_ma.volume.drivers import nbd_process
from tests import base
from tests.functional import fixtures as func_fixtures
from tests.functional.volume import test_fencing
from tests.functional.volume import test_nbd

#: Seconds one 64 KiB request of the client may take while the manager
#: is down or starting ("no pause": the export is not touched; the bound
#: leaves room for a loaded test machine).
IO_BOUND = 10
#: The client's reconnect-delay: how long QEMU keeps requests waiting
#: for an export to come back before failing them.
RECONNECT_DELAY = 120
#: [nbd] nbd_probe_timeout of the manager.
PROBE_TIMEOUT = 3
WAIT = 60


class NBDDeployment(func_fixtures.Deployment):
    """The deployment with the ``nbd`` driver as its backend (its exports
    in ``<state_path>/nbd-exports``).

    Exports outlive their manager on purpose: on cleanup, before the
    processes of the deployment are stopped and its files removed, its
    managers are stopped (no supervisor restarts an export any more),
    then every nbdkit daemon of its exports (those of its pidfile
    records, and any other naming its exports directory) is killed by
    its process id.
    """

    BACKEND = 'nbd'

    def _setUp(self):
        super()._setUp()
        self.exports_dir = os.path.join(self.state_path, 'nbd-exports')
        self.addCleanup(self._stop_exports)

    def _stop_exports(self):
        for manager in self.managers:
            manager.stop()
        test_nbd.stop_exports(self.exports_dir)


class ExportsOutliveTheManagerTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        test_nbd.require_programs(self)
        admin_url = func_fixtures.require_deployment_services(self)
        first = func_fixtures.free_port()
        # A manager down for longer than a loaded test machine may keep
        # it from a heartbeat: the tests restart it, never wait for 'down'.
        self.deployment = self.useFixture(NBDDeployment(
            admin_url, service_down_time=10, config={'nbd': {
                'volume_driver': 'nbd',
                'nbd_port_min': first,
                'nbd_port_max': min(first + 20, 65535),
                'nbd_supervise_interval': 1,
                'nbd_probe_timeout': PROBE_TIMEOUT}}))
        self.deployment.attach_logs_on_failure(self)
        self.exports_dir = self.deployment.exports_dir
        self.clients = 0
        self.longest = 0.0
        self.addDetail('longest request', content.Content(
            content.UTF8_TEXT,
            lambda: [('%.2f s' % self.longest).encode()]))

    # -- helpers -----------------------------------------------------------

    def request(self, method, path, body=None, status=None):
        response = requests.request(
            method, self.deployment.project_url(
                func_fixtures.ADMIN_PROJECT) + path, json=body,
            headers={'X-Auth-Token': func_fixtures.ADMIN_TOKEN,
                     'X-Service-Roles': 'service',
                     'OpenStack-API-Version': 'volume 3.54'},
            timeout=func_fixtures.HTTP_TIMEOUT)
        if status is not None:
            self.assertEqual(status, response.status_code, response.text)
        return response

    def wait(self, path, key, done):
        deadline = time.monotonic() + WAIT
        while True:
            response = self.request('GET', path)
            resource = (response.json()[key]
                        if response.status_code == 200 else None)
            if done(resource) or time.monotonic() > deadline:
                return resource
            time.sleep(0.1)

    def attach(self):
        """A volume, and an attachment an external consumer made and
        completed: (attachment id, nested connection info)."""
        volume = self.request('POST', '/volumes', {'volume': {'size': 1}},
                              status=202).json()['volume']
        volume = self.wait('/volumes/' + volume['id'], 'volume',
                           lambda v: v['status'] != 'creating')
        self.assertEqual('available', volume['status'])
        attachment = self.request('POST', '/attachments', {'attachment': {
            'volume_uuid': volume['id'],
            'instance_uuid': str(uuid.uuid4()),
            'connector': {'host': 'consumer-host'}, 'mode': 'rw'}},
            status=200).json()['attachment']
        self.request('POST', '/attachments/%s/action' % attachment['id'],
                     {'os-complete': None}, status=204)
        self.key = '%s.att-%s' % (volume['id'], attachment['id'])
        return attachment['id'], test_fencing.nested(
            attachment['connection_info'])

    def export_pid(self):
        with open(os.path.join(self.exports_dir, self.key + '.pid')) as f:
            return int(f.read())

    def client(self, info):
        """A qemu-io holding its connection open, which waits up to
        RECONNECT_DELAY seconds for a lost export to come back."""
        self.clients += 1
        client = test_fencing.OpenClient(['qemu-io'] + test_nbd.client_args(
            info, os.path.join(self.deployment.directory,
                               'client-%d' % self.clients),
            reconnect_delay=RECONNECT_DELAY, open_timeout=30))
        self.addCleanup(client.close)
        return client

    def io(self, client, command, bound=IO_BOUND):
        """Run ``command``; it must succeed within ``bound`` seconds.

        :returns: how long it took.
        """
        started = time.monotonic()
        out = client.run(command, timeout=bound + 30)
        took = time.monotonic() - started
        self.longest = max(self.longest, took)
        self.assertNotIn('failed', out, command)
        self.assertRegex(out, r'(wrote|read) 65536/65536', command)
        self.assertLess(took, bound, command)
        return took

    def manager_log(self):
        """The log of the manager started last ('' until it writes)."""
        try:
            with open(self.deployment.manager.log_path,
                      errors='replace') as f:
                return f.read()
        except FileNotFoundError:
            return ''

    def restart_manager(self, logged):
        """Start the manager again and wait until it has reported itself
        up (its own heartbeat: the services table may still show the
        stopped manager's) and its log shows ``logged``."""
        self.deployment.start_manager()
        self.deployment.wait_for_services('up')
        for line in (logged, 'Manager of %s started' % self.deployment.host):
            func_fixtures.wait_for(
                lambda line=line: line in self.manager_log(), repr(line),
                timeout=WAIT, processes=[self.deployment.manager])

    def assertOutsideOfTheManager(self, pid):
        manager = self.deployment.manager.proc.pid
        self.assertNotEqual(os.getpgid(manager), os.getpgid(pid))
        self.assertNotEqual(os.getsid(manager), os.getsid(pid))
        with open('/proc/%d/stat' % pid) as f:
            ppid = int(f.read().rpartition(')')[2].split()[1])
        self.assertNotEqual(manager, ppid)

    # -- tests -------------------------------------------------------------

    def test_io_goes_on_while_the_manager_crashes_and_restarts(self):
        attachment_id, info = self.attach()
        pid = self.export_pid()
        self.assertOutsideOfTheManager(pid)
        client = self.client(info)
        self.io(client, 'write -P 0x11 0 64k')

        # A crash: SIGKILL to the manager's process group.
        self.deployment.manager.kill()
        self.io(client, 'write -P 0x12 64k 64k')
        self.io(client, 'read -P 0x11 0 64k')
        self.assertTrue(nbd_process.alive(pid))
        self.restart_manager('is still served (nbdkit process %d)' % pid)
        self.io(client, 'write -P 0x13 128k 64k')

        # An upgrade: SIGTERM to the group, the manager stops cleanly.
        self.assertEqual(0, self.deployment.manager.stop())
        self.io(client, 'write -P 0x14 192k 64k')
        self.restart_manager('is still served (nbdkit process %d)' % pid)
        self.io(client, 'write -P 0x15 256k 64k')
        self.assertEqual(pid, self.export_pid())
        for index, pattern in enumerate(range(0x11, 0x16)):
            self.io(client, 'read -P 0x%x %dk 64k' % (pattern, 64 * index))
        client.close()
        # A new connection with the attachment's key sees it all too.
        fresh = self.client(info)
        for index, pattern in enumerate(range(0x11, 0x16)):
            self.io(fresh, 'read -P 0x%x %dk 64k' % (pattern, 64 * index))
        fresh.close()

        # Detached: the manager stops the export by its pidfile.
        self.request('DELETE', '/attachments/' + attachment_id, status=200)
        test_nbd.wait_gone(pid, timeout=WAIT)
        self.assertFalse(os.path.exists(
            os.path.join(self.exports_dir, self.key + '.pid')))

    def test_an_export_that_does_not_serve_is_replaced(self):
        _attachment_id, info = self.attach()
        pid = self.export_pid()
        client = self.client(info)
        self.io(client, 'write -P 0x21 0 64k')

        # The manager crashes, and the export hangs (its port accepts
        # connections, nothing answers them).
        self.deployment.manager.kill()
        os.kill(pid, signal.SIGSTOP)
        stalled = time.monotonic()
        self.deployment.start_manager()
        # The client's request waits: for the new manager to start, to
        # give up on the old export (PROBE_TIMEOUT), to start a new one
        # on the same port with the same key, and for QEMU to reconnect.
        took = self.io(client, 'write -P 0x22 64k 64k',
                       bound=RECONNECT_DELAY)
        self.addDetail('pause', content.text_content(
            '%.1f s (since the export hung: %.1f s)' % (
                took, time.monotonic() - stalled)))
        self.assertIn('runs but does not complete an NBD handshake',
                      self.manager_log())
        new_pid = self.export_pid()
        self.assertNotEqual(pid, new_pid)
        self.assertFalse(nbd_process.alive(pid))
        self.assertOutsideOfTheManager(new_pid)
        self.io(client, 'read -P 0x21 0 64k')
        self.io(client, 'read -P 0x22 64k 64k')
        self.io(client, 'write -P 0x23 128k 64k')


class HungExportTestCase(test_nbd.NBDTestBase):
    """The running manager's check of its exports (nbd_probe_interval)
    replaces a hung one, whose client would otherwise wait for ever."""

    def test_a_hung_export_is_replaced_and_its_client_goes_on(self):
        self.conf.set_override('nbd_probe_timeout', PROBE_TIMEOUT,
                               group='backend_defaults')
        info = self.driver.initialize_connection(
            self.volume, {'host': 'host-a'}, 'rw', attachment_id='att-1')
        client = test_fencing.OpenClient(['qemu-io'] + test_nbd.client_args(
            info, os.path.join(self.state_path, 'client'),
            reconnect_delay=RECONNECT_DELAY, open_timeout=30))
        self.addCleanup(client.close)
        self.assertIn('wrote 65536/65536',
                      client.run('write -P 0x31 0 64k'))
        export = next(iter(self.driver.exports.values()))
        # A serving export passes its checks and is kept.
        self.assertEqual([], self.driver.probe_exports(force=True))
        self.assertEqual(export.pid, self.driver.exports[export.key].pid)

        os.kill(export.pid, signal.SIGSTOP)
        self.addCleanup(self._kill_stopped, export)
        replaced = []
        checker = threading.Thread(target=lambda: replaced.extend(
            self.driver.probe_exports(force=True)))
        checker.start()
        # The request sent to the hung export waits; once it is replaced
        # QEMU reconnects and sends it again.
        out = client.run('write -P 0x32 64k 64k', timeout=RECONNECT_DELAY)
        checker.join(WAIT)
        self.assertIn('wrote 65536/65536', out)
        self.assertEqual([export.key], replaced)
        new = self.driver.exports[export.key]
        self.assertNotEqual(export.pid, new.pid)
        self.assertEqual(info['data']['port'], new.port)
        self.assertIn('read 65536/65536', client.run('read -P 0x31 0 64k'))
        self.assertIn('read 65536/65536',
                      client.run('read -P 0x32 64k 64k'))

    @staticmethod
    def _kill_stopped(export):
        if nbd_process.runs_nbdkit_of(export.pid, export.credentials):
            os.kill(export.pid, signal.SIGKILL)
