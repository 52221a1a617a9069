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

"""Manager-made attachments of ``nbd`` volumes through the libvirt
hypervisor driver, across processes: ``cinder-ma-api``, the manager of
the storage host (``nbd`` backend, real nbdkit) and the manager of a
compute host running the libvirt driver on libvirt's ``test:///default``
(its predefined running domain ``test`` is the instance).

The compute host's connector asks for X.509 exports; its credentials
come from ``cinder-ma-manage nbd credentials``, as an operator installs
them in the host's ``nbd_tls_x509_cert_dir``; a real QEMU client
(``qemu-io`` with ``tls-creds-x509``, as libvirt starts QEMU for
``<source protocol='nbd' tls='yes'>``) presenting them reads and writes
the volume; another host's credentials are refused, and so are the
host's own once the attachment is gone.

Skipped when PostgreSQL, RabbitMQ, nbdkit, qemu-io, nbdinfo or
libvirt-python are missing, failed instead under
``CINDER_MA_REQUIRE_SERVICES=1``.
"""

import configparser
import os
import shutil
import subprocess

import kombu
from oslo_utils import importutils
import requests
import testtools

from tests import base
from tests import fixtures as cm_fixtures
from tests.functional import fixtures as func_fixtures
from tests.functional.volume import test_fencing
from tests.functional.volume import test_nbd
from tests.functional.volume import test_nbd_manager

#: The running domain libvirt's test driver starts with.
TEST_DOMAIN_UUID = '6695eb01-f6a4-8304-79aa-97f2502e193f'
WAIT = 60


class LibvirtAttachesNBDVolumesTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        missing = [p for p in test_nbd.PROGRAMS if shutil.which(p) is None]
        if importutils.try_import('libvirt') is None:
            missing.append('libvirt-python')
        if missing:
            cm_fixtures.skip_or_fail(
                self, 'missing: %s' % ', '.join(missing))
        admin_url = func_fixtures.require_deployment_services(self)
        first = func_fixtures.free_port()
        self.deployment = self.useFixture(test_nbd_manager.NBDDeployment(
            admin_url, config={'nbd': {
                'volume_driver': 'nbd',
                'nbd_port_min': first,
                'nbd_port_max': min(first + 20, 65535)}}))
        self.deployment.attach_logs_on_failure(self)
        self.host = func_fixtures.unique('compute')
        self.compute = self.start_compute(self.host)
        self.addOnException(lambda _exc: self.addDetail(
            self.host, testtools.content.text_content(
                self.compute.describe())))
        func_fixtures.wait_for(
            lambda: self.deployment.service_states().get(
                ('cinder-ma-manager', self.host)) == 'up',
            'compute manager %s up' % self.host)

    def start_compute(self, host):
        """A manager running only the libvirt hypervisor driver on
        test:///default, as ``host``."""
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(self.deployment.config_file)
        sections = {name: dict(parser[name]) for name in parser.sections()}
        defaults = dict(parser.defaults())
        defaults.update(host=host, enabled_backends='',
                        state_path=os.path.join(self.deployment.directory,
                                                host))
        sections = dict({'DEFAULT': defaults}, **sections)
        sections.pop(self.deployment.BACKEND, None)
        sections['hypervisor'] = {'driver': 'libvirt',
                                  'libvirt_uri': 'test:///default'}
        path = func_fixtures.write_config(
            os.path.join(self.deployment.directory, host + '.conf'),
            sections)
        self.addCleanup(self._delete_queue, host)
        return self.useFixture(func_fixtures.Process(
            host, func_fixtures.command('cinder-ma-manager') + [
                '--config-file', path], self.deployment.directory))

    def _delete_queue(self, host):
        url = cm_fixtures.RABBIT_URL.replace('rabbit://', 'amqp://', 1)
        with kombu.Connection(url, connect_timeout=5) as conn:
            conn.channel().queue_delete('%s.%s' % (
                func_fixtures.MANAGER_TOPIC, host))

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
        resource = None

        def check():
            nonlocal resource
            response = self.request('GET', path)
            resource = (response.json()[key]
                        if response.status_code == 200 else None)
            return done(resource)

        func_fixtures.wait_for(check, path, timeout=WAIT)
        return resource

    def credentials(self, host):
        """``cinder-ma-manage nbd credentials`` of ``host``, run on the
        storage host: the directory the operator copies to the host's
        nbd_tls_x509_cert_dir."""
        directory = os.path.join(self.deployment.directory, 'pki-' + host)
        result = subprocess.run(
            func_fixtures.command('cinder-ma-manage') + [
                '--config-file', self.deployment.config_file, 'nbd',
                'credentials', 'nbd', host, directory],
            capture_output=True, text=True, timeout=120,
            cwd=self.deployment.directory)
        self.assertEqual(0, result.returncode, result.stderr)
        return directory

    def compute_log(self):
        try:
            with open(self.compute.log_path, errors='replace') as f:
                return f.read()
        except FileNotFoundError:
            return ''

    def qemu_io(self, info, cert_dir, *commands):
        argv = ['qemu-io'] + test_nbd.x509_client_args(info, cert_dir)
        for command in commands:
            argv += ['-c', command]
        result = subprocess.run(argv, capture_output=True, text=True,
                                timeout=60)
        return result.returncode, result.stdout + result.stderr

    def test_attach_through_libvirt_with_the_hosts_certificate(self):
        mine = self.credentials(self.host)
        other = self.credentials(func_fixtures.unique('compute-other'))
        volume = self.request('POST', '/volumes', {'volume': {'size': 1}},
                              status=202).json()['volume']
        volume = self.wait('/volumes/' + volume['id'], 'volume',
                           lambda v: v['status'] != 'creating')
        created = self.request('POST', '/attachments', {'attachment': {
            'volume_uuid': volume['id'],
            'instance_uuid': TEST_DOMAIN_UUID,
            'cinder-ma-manager-attach:instance_host': self.host,
            'mode': 'rw'}}, status=200).json()['attachment']
        attachment = self.wait(
            '/attachments/' + created['id'], 'attachment',
            lambda a: a['status'] not in ('reserved', 'attaching'))
        self.assertEqual('attached', attachment['status'], attachment)
        info = test_fencing.nested(attachment['connection_info'])
        self.assertIs(True, info['data']['tls_x509'])
        self.assertNotIn('tls_psk_secret', info['data'])
        # libvirt took the disk (test:///default keeps it in the compute
        # manager's process: its log tells).
        func_fixtures.wait_for(
            lambda: 'Attached %s to instance %s' % (
                created['id'], TEST_DOMAIN_UUID) in self.compute_log(),
            'the libvirt attach logged')

        code, out = self.qemu_io(info, mine, 'write -P 0x51 0 64k',
                                 'read -P 0x51 0 64k')
        self.assertEqual(0, code, out)
        self.assertNotIn('failed', out)
        code, out = self.qemu_io(info, other, 'read 0 4k')
        self.assertNotEqual(0, code, out)

        self.request('DELETE', '/attachments/' + created['id'], status=200)
        self.wait('/attachments/' + created['id'], 'attachment',
                  lambda a: a is None)
        code, out = self.qemu_io(info, mine, 'read 0 4k')
        self.assertNotEqual(0, code, out)
