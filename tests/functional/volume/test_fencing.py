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

"""Fencing and standby promotion with real nbdkit exports and real NBD
clients (extension cinder-ma-fencing).

The API (in-process, webtest) and the managers of a storage host and a
compute host (in-process RPC transport, as in the manager tests) run
for real; the storage host's backend is the ``nbd`` driver, whose
nbdkit processes serve the volume, and ``qemu-io`` is the client: as an
external consumer's client with the connection info the attachments API
answers, and as the disk of an instance of the compute host with the
connection info its (fake) hypervisor driver was given. A client that
stays connected is a ``qemu-io`` reading its commands from a pipe, so
that what happens to an open connection is seen too.

Proven here: a fenced attachment's next I/O fails, even on a connection
opened before, and its credentials are refused afterwards; connected
again with a new connector, it works with its new credentials only;
after a promotion the standby writes (through the connection info of
the answer, or through its instance's disk switched in place) and the
old writer can neither go on nor come back, while the writes it made
before are there. Skipped without nbdkit, qemu-io and nbdinfo unless
``CINDER_MA_REQUIRE_SERVICES=1``.
"""

import os
import subprocess
import threading
import uuid

import webtest

from cinder_ma.api import app
from cinder_ma.api import microversions as mv
from cinder_ma.conf import backend as backend_conf
from cinder_ma.db import types as type_db
from cinder_ma.manager import connector as host_connector
from cinder_ma.manager import manager
from cinder_ma.volume.drivers import nbd
from tests.functional import fixtures as functional_fixtures
from tests.functional.volume import test_nbd
from tests.unit.api import base as api_base
from tests.unit.manager import fixtures as mgr_fixtures

FENCE = 'cinder-ma-fencing:fence'
PROMOTE = 'cinder-ma-fencing:promote'
EXTENSIONS = {'Cinder-MA-Extensions': 'cinder-ma-fencing'}


def admin():
    return api_base.headers(user='admin-user', version=mv.MAX_VERSION)


def service():
    return api_base.headers(user='nova', roles=['member', 'reader'],
                            service_roles=['service'],
                            version=mv.MAX_VERSION)


def nested(flat):
    """The nested connection info of the attachments API's flat one."""
    return {'driver_volume_type': flat['driver_volume_type'],
            'data': flat}


class OpenClient:
    """A qemu-io that keeps its NBD connection open and takes commands
    one at a time, each answered (up to its next prompt) before the
    next."""

    PROMPT = 'qemu-io> '

    def __init__(self, argv):
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT)
        self._output = ''
        self._done = False
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self._seen = 0
        self._wait_for_prompt(60)

    def _read(self):
        while True:
            chunk = os.read(self.process.stdout.fileno(), 4096)
            with self._changed:
                if not chunk:
                    self._done = True
                else:
                    self._output += chunk.decode(errors='replace')
                self._changed.notify_all()
            if not chunk:
                return

    def _wait_for_prompt(self, timeout):
        """The output since the last prompt, up to the next one (or to
        the end when qemu-io exits)."""
        with self._changed:
            self._changed.wait_for(
                lambda: self._done or
                self.PROMPT in self._output[self._seen:], timeout=timeout)
            end = self._output.find(self.PROMPT, self._seen)
            if end < 0:
                text, self._seen = (self._output[self._seen:],
                                    len(self._output))
            else:
                text = self._output[self._seen:end]
                self._seen = end + len(self.PROMPT)
            return text

    def run(self, command, timeout=60):
        """The output of ``command``."""
        try:
            self.process.stdin.write((command + '\n').encode())
            self.process.stdin.flush()
        except OSError:
            return ''
        return self._wait_for_prompt(timeout)

    def close(self):
        if self.process.poll() is None:
            try:
                self.process.stdin.write(b'quit\n')
                self.process.stdin.flush()
            except OSError:
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class FencingDataPathTestCase(mgr_fixtures.AttachmentTestCase):
    """The API and both managers, the nbd backend, qemu-io clients."""

    def setUp(self):
        super().setUp()
        test_nbd.require_programs(self)
        self.flags(auth_strategy='noauth')
        self.app = webtest.TestApp(app.setup_app(self.conf))
        config = backend_conf.BackendConfig(
            self.conf, 'nbd', nbd.NBDDriver.get_driver_options())
        first = functional_fixtures.free_port()
        self.conf.set_override('nbd_port_min', first,
                               group='backend_defaults')
        self.conf.set_override('nbd_port_max', min(first + 40, 65535),
                               group='backend_defaults')
        self.conf.set_override('nbd_supervise_interval', 3600,
                               group='backend_defaults')
        self.nbd = nbd.NBDDriver(configuration=config, host='testhost@nbd')
        self.nbd.do_setup()
        self.addCleanup(self._stop_exports)
        self.addCleanup(self.nbd.stop_supervisor)
        self.backend_manager.backends['nbd'] = manager.Backend(
            name='nbd', driver_name='nbd', driver=self.nbd, config=config,
            host='testhost@nbd')
        service_row = self.make_backend(
            'testhost@nbd', per_attachment_connections=True)
        self.nbd_service_uuid = service_row.uuid
        self.compute_manager.connectors = host_connector.Connectors(
            self.conf, classes={'nbd': host_connector.NBDConnector})
        self.nbd_volumes = mgr_fixtures.VolumeFactory(
            self.context, host='testhost@nbd#nbd')
        self.one_writer = type_db.volume_type_create(
            self.admin_context, {'name': 'one-writer'},
            extra_specs={'multiattach': '<is> True',
                         'multiattach:writers': 'one'})
        self.clients = 0

    def _stop_exports(self):
        test_nbd.stop_exports(self.nbd.exports_dir)

    # -- helpers -----------------------------------------------------------

    def nbd_volume(self, one_writer=True):
        volume = self.nbd_volumes.create(
            status='available', size=1, multiattach=True,
            service_uuid=self.nbd_service_uuid,
            volume_type_id=self.one_writer.id if one_writer else
            self.nbd_volumes._type())
        self.nbd.create_volume(self.nbd_volumes.ref(volume))
        return volume

    def url(self, path):
        return '/v3/%s/%s' % (api_base.PROJECT, path)

    def consumer_attach(self, volume, mode, host):
        """An attachment an external consumer connects and completes;
        its detail (with the flat connection info)."""
        made = self.app.post_json(
            self.url('attachments'),
            {'attachment': {'volume_uuid': volume.id,
                            'instance_uuid': str(uuid.uuid4()),
                            'connector': {'host': host}, 'mode': mode}},
            headers=service()).json['attachment']
        self.app.post_json(self.url('attachments/%s/action' % made['id']),
                           {'os-complete': None}, headers=service(),
                           status=204)
        return made

    def act(self, attachment_id, action, status=200):
        return self.app.post_json(
            self.url('attachments/%s/action' % attachment_id),
            {action: {}}, headers=admin(), status=status).json

    def argv(self, info, read_only=False):
        self.clients += 1
        directory = os.path.join(self.state_path,
                                 'client-%d' % self.clients)
        return ['qemu-io'] + (['-r'] if read_only else []) + \
            test_nbd.client_args(info, directory)

    def qemu_io(self, info, *commands, read_only=False):
        argv = self.argv(info, read_only)
        for command in commands:
            argv += ['-c', command]
        result = subprocess.run(argv, capture_output=True, text=True,
                                timeout=60)
        return result.returncode, result.stdout + result.stderr

    def assertIO(self, info, *commands, read_only=False):
        code, out = self.qemu_io(info, *commands, read_only=read_only)
        self.assertEqual(0, code, out)
        self.assertNotIn('failed', out)
        return out

    def assertRefused(self, info, read_only=False):
        code, out = self.qemu_io(info, 'read 0 4k', read_only=read_only)
        self.assertNotEqual(0, code, out)
        self.assertNotIn('read 4096/4096', out)

    def open_client(self, info, read_only=False):
        client = OpenClient(self.argv(info, read_only))
        self.addCleanup(client.close)
        return client

    # -- fencing -----------------------------------------------------------

    def test_fenced_attachment_loses_its_access(self):
        volume = self.nbd_volume(one_writer=False)
        fenced = self.consumer_attach(volume, 'rw', 'node-a')
        other = self.consumer_attach(volume, 'rw', 'node-a')
        info = nested(fenced['connection_info'])
        client = self.open_client(info)
        self.assertIn('wrote 4096/4096', client.run('write -P 0x5a 0 4k'))
        self.act(fenced['id'], FENCE)
        # The open connection is dropped: its next I/O fails.
        self.assertIn('failed', client.run('read -P 0x5a 0 4k'))
        # Its credentials no longer open anything.
        self.assertRefused(info)
        # The other attachment of the same host goes on, and sees the
        # write the fenced one made before.
        self.assertIO(nested(other['connection_info']),
                      'read -P 0x5a 0 4k', 'write -P 0x6b 4k 4k')

    def test_fencing_revokes_a_hosts_certificate_at_once(self):
        # A libvirt host's attachment (X.509): fenced through the API,
        # its open connection drops and the host's certificate opens
        # nothing of it any more, while the host's other attachment goes
        # on.
        volume = self.nbd_volume(one_writer=False)
        connector = {'host': 'node-a', 'nbd_tls': 'x509'}
        made = []
        for _ in range(2):
            attachment = self.app.post_json(
                self.url('attachments'),
                {'attachment': {'volume_uuid': volume.id,
                                'instance_uuid': str(uuid.uuid4()),
                                'connector': connector, 'mode': 'rw'}},
                headers=service()).json['attachment']
            made.append(attachment)
        fenced, other = (nested(a['connection_info']) for a in made)
        self.assertIs(True, fenced['data']['tls_x509'])
        cert_dir = self.nbd._authority.client_dir('node-a')
        client = OpenClient(['qemu-io'] + test_nbd.x509_client_args(
            fenced, cert_dir))
        self.addCleanup(client.close)
        self.assertIn('wrote 4096/4096', client.run('write -P 0x5c 0 4k'))
        self.act(made[0]['id'], FENCE)
        self.assertIn('failed', client.run('read -P 0x5c 0 4k'))
        for info, refused in ((fenced, True), (other, False)):
            result = subprocess.run(
                ['qemu-io'] + test_nbd.x509_client_args(info, cert_dir) +
                ['-c', 'read -P 0x5c 0 4k'],
                capture_output=True, text=True, timeout=60)
            out = result.stdout + result.stderr
            if refused:
                self.assertNotEqual(0, result.returncode, out)
            else:
                self.assertEqual(0, result.returncode, out)
                self.assertNotIn('failed', out)

    def test_reconnect_with_a_new_connector_after_fencing(self):
        volume = self.nbd_volume(one_writer=False)
        made = self.consumer_attach(volume, 'rw', 'node-a')
        old = nested(made['connection_info'])
        self.assertIO(old, 'write -P 0x21 0 4k')
        self.act(made['id'], FENCE)
        updated = self.app.put_json(
            self.url('attachments/%s' % made['id']),
            {'attachment': {'connector': {'host': 'node-b'}}},
            headers=dict(service(), **EXTENSIONS)).json['attachment']
        self.assertEqual((False, 2),
                         (updated['cinder-ma-fencing:fenced'],
                          updated['cinder-ma-fencing:generation']))
        new = nested(updated['connection_info'])
        self.assertNotEqual(old['data']['tls_psk_secret'],
                            new['data']['tls_psk_secret'])
        self.assertIO(new, 'read -P 0x21 0 4k', 'write -P 0x22 0 4k')
        # The old credentials stay refused.
        self.assertRefused(old)

    # -- promotion ---------------------------------------------------------

    def test_promoted_standby_writes_and_the_old_writer_cannot(self):
        volume = self.nbd_volume()
        writer = self.consumer_attach(volume, 'rw', 'node-a')
        standby = self.consumer_attach(volume, 'ro', 'node-b')
        writer_info = nested(writer['connection_info'])
        standby_info = nested(standby['connection_info'])
        active = self.open_client(writer_info)
        self.assertIn('wrote', active.run('write -P 0x71 0 64k'))
        # The standby reads, and cannot write.
        self.assertIO(standby_info, 'read -P 0x71 0 64k', read_only=True)
        code, out = self.qemu_io(standby_info, 'write -P 0x72 0 4k')
        self.assertIn('Permission denied', out)
        promoted = self.act(standby['id'], PROMOTE)['attachment']
        self.assertEqual('rw', promoted['attach_mode'])
        new = nested(promoted['connection_info'])
        self.assertEqual('rw', new['data']['access_mode'])
        # The standby, reconnected with the new credentials, writes and
        # sees what the old writer wrote.
        self.assertIO(new, 'read -P 0x71 0 64k', 'write -P 0x72 64k 4k')
        # The old writer can neither go on nor come back, nor can the
        # standby's read-only credentials.
        self.assertIn('failed', active.run('write -P 0x73 64k 4k'))
        self.assertRefused(writer_info)
        self.assertRefused(standby_info, read_only=True)
        self.assertIO(new, 'read -P 0x72 64k 4k')

    def test_promotion_through_the_manager_of_the_host(self):
        volume = self.nbd_volume()
        writer_instance, standby_instance = 'i-writer', 'i-standby'
        writer = self.attach(volume, writer_instance, mode='rw')
        standby = self.attach(volume, standby_instance, mode='ro')
        self.assertEqual('attached', standby.attach_status)

        def disk_of(instance):
            (record,) = self.hypervisor.list_attachments(instance)
            return record['connection_info']

        writer_disk = disk_of(writer_instance)
        standby_disk = disk_of(standby_instance)
        self.assertIO(writer_disk, 'write -P 0x44 0 4k')
        code, out = self.qemu_io(standby_disk, 'write -P 0x45 0 4k')
        self.assertIn('Permission denied', out)
        self.act(standby.id, PROMOTE)
        # The instance kept its disk, now on the read-write export.
        self.assertEqual([], self.hypervisor.called('detach_volume'))
        switched = disk_of(standby_instance)
        self.assertEqual('rw', switched['data']['access_mode'])
        self.assertIO(switched, 'read -P 0x44 0 4k', 'write -P 0x45 0 4k')
        self.assertRefused(writer_disk)
        self.assertRefused(standby_disk, read_only=True)
        self.assertEqual('ro', self.get(writer.id).attach_mode)
