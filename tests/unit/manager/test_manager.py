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

"""Tests of the manager endpoints, called over the local RPC transport
(real SQLite, real files). The attach and detach flows themselves are
tested in tests/unit/manager/flows.
"""

import os
import time

import fixtures
import oslo_messaging as messaging
import sqlalchemy as sa

from cinder_ma.conf import backend as backend_conf
from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import qos_specs as qos_db
from cinder_ma.db import quotas as quota_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager import manager
from cinder_ma.manager import rpcapi
from cinder_ma.manager import service as manager_service
from cinder_ma import rpc
from cinder_ma.volume.drivers import file as file_driver
from tests import base
from tests import fixtures as cm_fixtures
from tests.unit.manager import fixtures as mgr_fixtures


class ManagerBase(base.DBTestCase):
    """A manager of 'testhost' with the real file backend."""

    def setUp(self):
        super().setUp()
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))
        backend = manager_service.load_backend(self.conf, 'testhost', 'file')
        self.driver = backend.driver
        self.manager = manager.Manager('testhost', {'file': backend})
        server = rpc.get_server(
            messaging.Target(topic=rpcapi.ManagerAPI.TOPIC,
                             server='testhost'), [self.manager])
        server.start()
        self.addCleanup(server.stop)
        self.client = rpc.get_client(messaging.Target(
            topic=rpcapi.ManagerAPI.TOPIC, version='1.0')).prepare(
                server='testhost')
        self.volumes = mgr_fixtures.VolumeFactory(self.context)

    def _path(self, volume):
        return os.path.join(self.driver.volumes_dir, 'volume-' + volume.id)

    def _get(self, volume):
        return volume_db.volume_get(self.context, volume.id)


class ManagerTestCase(ManagerBase):

    def test_create_and_delete(self):
        volume = self.volumes.create(size=2)
        self.client.call(self.context, 'create_volume', volume_id=volume.id)
        self.assertEqual('available', self._get(volume).status)
        self.assertEqual(2 * 1024 ** 3, os.stat(self._path(volume)).st_size)
        volume_db.volume_update(self.context, volume.id,
                                {'status': 'deleting'})
        self.client.call(self.context, 'delete_volume', volume_id=volume.id)
        self.assertFalse(os.path.exists(self._path(volume)))
        self.assertRaises(exception.VolumeNotFound, self._get, volume)

    def _writes(self):
        """The write transactions run from now on (SQLite's BEGIN
        IMMEDIATE), as a list to read at the end."""
        writes = []

        def record(conn, cursor, statement, *args):
            if statement.startswith('BEGIN IMMEDIATE'):
                writes.append([])
            elif writes and not statement.startswith(
                    ('SELECT', 'COMMIT', 'ROLLBACK', 'BEGIN')):
                writes[-1].append(statement.split()[0])

        engine = db_api.get_engine()
        sa.event.listen(engine, 'before_cursor_execute', record)
        self.addCleanup(sa.event.remove, engine, 'before_cursor_execute',
                        record)
        return writes

    def test_create_gives_up_its_claim_with_the_status(self):
        volume = self.volumes.create()
        writes = self._writes()
        self.client.call(self.context, 'create_volume', volume_id=volume.id)
        # The claim, then the status change with the claim's release.
        self.assertEqual([['UPDATE'], ['UPDATE']], writes)
        self.assertEqual(('available', None, None),
                         (self._get(volume).status,
                          self._get(volume).claimed_by,
                          self._get(volume).claimed_until))
        self.assertEqual(set(), self.manager._running_claims())

    def test_failed_create_releases_its_claim(self):
        volume = self.volumes.create()
        open(self._path(volume), 'w').close()
        self.assertRaises(exception.DriverError, self.client.call,
                          self.context, 'create_volume', volume_id=volume.id)
        vol = self._get(volume)
        self.assertEqual(('error', None), (vol.status, vol.claimed_by))
        self.assertEqual(set(), self.manager._running_claims())

    def test_create_gets_back_end_qos_specs(self):
        volume = self.volumes.create(size=2)
        qos = qos_db.qos_specs_create(self.context, 'limits', 'both',
                                      {'total_iops_sec_per_gb': '10'})
        qos_db.qos_specs_associate(self.context, qos.id,
                                   volume.volume_type_id)
        refs = []
        real = self.driver.create_volume
        self.useFixture(fixtures.MockPatchObject(
            self.driver, 'create_volume',
            side_effect=lambda ref: refs.append(ref) or real(ref)))
        self.client.call(self.context, 'create_volume', volume_id=volume.id)
        self.assertEqual({'total_iops_sec': '20'}, refs[0].qos_specs)
        # A reference stays hashable with its specs.
        self.assertIsInstance(hash(refs[0]), int)

    def test_create_through_the_rpc_api(self):
        volume = self.volumes.create()
        rpcapi.ManagerAPI().create_volume(self.context, volume.id,
                                          volume.host)
        deadline = time.monotonic() + 10
        while (self._get(volume).status == 'creating' and
               time.monotonic() < deadline):
            time.sleep(0.01)
        self.assertEqual('available', self._get(volume).status)
        self.assertTrue(os.path.exists(self._path(volume)))

    def test_create_failure_recorded(self):
        volume = self.volumes.create()
        open(self._path(volume), 'w').close()
        exc = self.assertRaises(exception.DriverError, self.client.call,
                                self.context, 'create_volume',
                                volume_id=volume.id)
        self.assertIn('already exists', str(exc))
        vol = self._get(volume)
        self.assertEqual('error', vol.status)
        self.assertIn('already exists', vol.error_reason)

    def test_volume_of_another_backend(self):
        volume = self.volumes.create(host='testhost@gold#gold')
        self.assertRaises(exception.InvalidVolume, self.client.call,
                          self.context, 'create_volume',
                          volume_id=volume.id)
        vol = self._get(volume)
        self.assertEqual('error', vol.status)
        self.assertIn('testhost@gold#gold', vol.error_reason)
        volume = self.volumes.create(host='otherhost@file#file',
                                     status='deleting')
        self.assertRaises(exception.InvalidVolume, self.client.call,
                          self.context, 'delete_volume',
                          volume_id=volume.id)
        self.assertEqual('error_deleting', self._get(volume).status)

    def test_wrong_status_changes_nothing(self):
        volume = self.volumes.create(status='available')
        self.assertRaises(exception.InvalidVolume, self.client.call,
                          self.context, 'create_volume',
                          volume_id=volume.id)
        self.assertRaises(exception.InvalidVolume, self.client.call,
                          self.context, 'delete_volume',
                          volume_id=volume.id)
        self.assertEqual('available', self._get(volume).status)
        self.assertFalse(os.path.exists(self._path(volume)))

    def test_unknown_volume(self):
        self.assertRaises(exception.VolumeNotFound, self.client.call,
                          self.context, 'create_volume', volume_id='nope')

    def test_expected_exceptions_are_declared(self):
        volume = self.volumes.create(status='available')
        exc = self.assertRaises(messaging.ExpectedException,
                                self.manager.create_volume, self.context,
                                volume.id)
        self.assertIsInstance(exc.exc_info[1], exception.InvalidVolume)


class ExtendEndpointTestCase(ManagerBase):

    def test_extend_of_another_backend_is_not_left_extending(self):
        volume = self.volumes.create(status='extending',
                                     host='otherhost@file#file')
        self.assertRaises(exception.InvalidVolume,
                          self.client.prepare(version='1.2').call,
                          self.context, 'extend_volume',
                          volume_id=volume.id, new_size=2)
        vol = self._get(volume)
        self.assertEqual('available', vol.status)
        self.assertIn('extend failed', vol.error_reason)

    def test_extend_of_another_backend_gives_quota_back(self):
        volume = self.volumes.create(status='extending',
                                     host='otherhost@file#file')
        # What the API charged for the extend from 1 to 3 GiB.
        quota_db.ensure_usages(self.context, volume.project_id,
                               ['gigabytes'])
        quota_db.retrying(self.context, volume_db.volume_update, self.context,
                          volume.id, {}, quota=lambda ctx, before: (
                              quota_db.change_usage(
                                  ctx, before.project_id,
                                  {'gigabytes': 2})))
        self.assertRaises(exception.InvalidVolume,
                          self.client.prepare(version='1.2').call,
                          self.context, 'extend_volume',
                          volume_id=volume.id, new_size=3)
        usage = quota_db.usage_get_all(self.context, volume.project_id)
        self.assertEqual(1, usage['gigabytes'])


class ConnectionEndpointsTestCase(ManagerBase):
    """initialize_connection / terminate_connection of the backend role."""

    def setUp(self):
        super().setUp()
        self.client = self.client.prepare(version='1.1')
        self.volume = self.volumes.create(status='available')
        self.driver.create_volume(self.volumes.ref(self.volume))
        self.connector = {'host': 'compute1', 'initiator': None}

    def _initialize(self, volume_id=None, connector=None, mode='rw'):
        return self.client.call(
            self.context, 'initialize_connection',
            volume_id=volume_id or self.volume.id,
            connector=connector or self.connector, attach_mode=mode)

    def test_initialize_and_terminate(self):
        info = self._initialize(mode='ro')
        self.assertEqual('file', info['driver_volume_type'])
        self.assertEqual(self._path(self.volume), info['data']['path'])
        self.assertEqual('ro', info['data']['access_mode'])
        self.assertIsNone(self.client.call(
            self.context, 'terminate_connection', volume_id=self.volume.id,
            connector=self.connector))

    def _qos(self, consumer, **specs):
        qos = qos_db.qos_specs_create(self.context, 'qos-' + consumer,
                                      consumer, specs)
        qos_db.qos_specs_associate(self.context, qos.id,
                                   self.volume.volume_type_id)
        return qos

    def _driver_refs(self, method):
        calls = []
        real = getattr(self.driver, method)

        def recording(volume, *args):
            calls.append(volume)
            return real(volume, *args)

        self.useFixture(fixtures.MockPatchObject(
            self.driver, method, side_effect=recording))
        return calls

    def test_no_qos_specs(self):
        # As Cinder: the key is there, null, when the type has none.
        info = self._initialize()
        self.assertIn('qos_specs', info['data'])
        self.assertIsNone(info['data']['qos_specs'])

    def test_front_end_qos_specs_in_connection_info(self):
        refs = self._driver_refs('initialize_connection')
        self._qos('front-end', total_bytes_sec='1048576',
                  read_iops_sec_per_gb='100', read_iops_sec_per_gb_min='50')
        info = self._initialize()
        # Per-GiB keys become fixed ones for the volume's size (1 GiB).
        self.assertEqual({'total_bytes_sec': '1048576',
                          'read_iops_sec': '100'}, info['data']['qos_specs'])
        self.assertIsNone(refs[0].qos_specs)

    def test_volume_and_qos_specs_read_in_one_transaction(self):
        self._qos('front-end', total_bytes_sec='1048576')
        begins = self.useFixture(cm_fixtures.TransactionCounter())
        info = self._initialize()
        self.assertEqual({'total_bytes_sec': '1048576'},
                         info['data']['qos_specs'])
        self.assertEqual(1, begins.count)

    def test_back_end_qos_specs_reach_the_driver(self):
        refs = self._driver_refs('initialize_connection')
        self._qos('back-end', total_iops_sec='500')
        info = self._initialize()
        self.assertIsNone(info['data']['qos_specs'])
        self.assertEqual({'total_iops_sec': '500'}, refs[0].qos_specs)

    def test_both_qos_specs(self):
        refs = self._driver_refs('initialize_connection')
        self._qos('both', write_bytes_sec='2048')
        info = self._initialize()
        self.assertEqual({'write_bytes_sec': '2048'},
                         info['data']['qos_specs'])
        self.assertEqual({'write_bytes_sec': '2048'}, refs[0].qos_specs)

    def test_access_mode_is_the_one_asked_for(self):
        real = self.driver.initialize_connection

        def forgetful(volume, connector, mode):
            info = real(volume, connector, mode)
            del info['data']['access_mode']
            return info

        self.useFixture(fixtures.MockPatchObject(
            self.driver, 'initialize_connection', side_effect=forgetful))
        self.assertEqual('ro',
                         self._initialize(mode='ro')['data']['access_mode'])

    def test_refusals(self):
        self.assertRaises(exception.InvalidInput, self._initialize,
                          mode='wo')
        self.assertRaises(exception.InvalidInput, self._initialize,
                          connector={'initiator': 'x'})
        self.assertRaises(exception.VolumeNotFound, self._initialize,
                          volume_id='nope')
        creating = self.volumes.create()
        self.assertRaises(exception.InvalidVolume, self._initialize,
                          volume_id=creating.id)
        elsewhere = self.volumes.create(status='available',
                                        host='otherhost@file#file')
        self.assertRaises(exception.InvalidVolume, self._initialize,
                          volume_id=elsewhere.id)
        self.assertRaises(exception.InvalidVolume, self.client.call,
                          self.context, 'terminate_connection',
                          volume_id=elsewhere.id, connector=self.connector)
        # Refusals change nothing.
        self.assertEqual('creating', self._get(creating).status)
        self.assertEqual('available', self._get(elsewhere).status)

    def test_missing_volume_file(self):
        os.unlink(self._path(self.volume))
        exc = self.assertRaises(exception.DriverError, self._initialize)
        self.assertIn('does not exist', str(exc))

    def test_unexpected_driver_error_becomes_driver_error(self):
        self.useFixture(fixtures.MockPatchObject(
            self.driver, 'initialize_connection',
            side_effect=RuntimeError('array on fire')))
        exc = self.assertRaises(exception.DriverError, self._initialize)
        self.assertIn('array on fire', str(exc))

    def test_connection_info_without_type_is_refused(self):
        self.useFixture(fixtures.MockPatchObject(
            self.driver, 'initialize_connection', return_value={'data': {}}))
        terminate = self.useFixture(fixtures.MockPatchObject(
            self.driver, 'terminate_connection')).mock
        exc = self.assertRaises(exception.DriverError, self._initialize)
        self.assertIn('driver_volume_type', str(exc))
        terminate.assert_called_once()

    def test_expected_exceptions_are_declared(self):
        for method, kwargs in (
                ('initialize_connection', {'connector': self.connector,
                                           'attach_mode': 'rw'}),
                ('terminate_connection', {'connector': self.connector})):
            exc = self.assertRaises(messaging.ExpectedException,
                                    getattr(self.manager, method),
                                    self.context, 'nope', **kwargs)
            self.assertIsInstance(exc.exc_info[1], exception.VolumeNotFound)


class AttachmentConnectionsTestCase(base.DBTestCase):
    """1.5: a backend with per-attachment connections gets the attachment
    id and the connection info says the connection is the attachment's;
    other backends are called as before."""

    def setUp(self):
        super().setUp()
        config = backend_conf.BackendConfig(
            self.conf, 'file', file_driver.FileDriver.get_driver_options())
        self.scoped = mgr_fixtures.PerAttachmentFileDriver(
            configuration=config, host='testhost@scoped')
        self.plain = mgr_fixtures.RecordingFileDriver(
            configuration=config, host='testhost@file')
        for driver in (self.scoped, self.plain):
            driver.do_setup()
        self.manager = manager.Manager('testhost', {
            name: manager.Backend(name=name, driver_name='recording',
                                  driver=driver, config=config,
                                  host='testhost@' + name)
            for name, driver in (('scoped', self.scoped),
                                 ('file', self.plain))})
        self.connector = {'host': 'compute1'}

    def _volume(self, backend, driver):
        volumes = mgr_fixtures.VolumeFactory(
            self.context, host='testhost@%s#%s' % (backend, backend))
        volume = volumes.create(status='available', multiattach=True)
        driver.create_volume(volumes.ref(volume))
        return volume

    def test_per_attachment_backend(self):
        volume = self._volume('scoped', self.scoped)
        info = self.manager.initialize_connection(
            self.context, volume.id, self.connector, 'ro',
            attachment_id='att-1')
        self.assertTrue(rpcapi.is_attachment_scoped(info))
        self.assertEqual([(volume.id, 'compute1', 'ro', 'att-1')],
                         self.scoped.called('initialize_connection'))
        self.manager.terminate_connection(self.context, volume.id,
                                          self.connector,
                                          attachment_id='att-1')
        self.assertEqual([(volume.id, 'compute1', 'att-1')],
                         self.scoped.called('terminate_connection'))
        # A 1.4 caller names no attachment: the host's connection.
        info = self.manager.initialize_connection(
            self.context, volume.id, self.connector, 'rw')
        self.assertFalse(rpcapi.is_attachment_scoped(info))
        self.assertEqual((volume.id, 'compute1', 'rw', None),
                         self.scoped.called('initialize_connection')[-1])

    def test_other_backends_are_called_as_before(self):
        volume = self._volume('file', self.plain)
        info = self.manager.initialize_connection(
            self.context, volume.id, self.connector, 'rw',
            attachment_id='att-1')
        self.assertFalse(rpcapi.is_attachment_scoped(info))
        self.assertEqual([(volume.id, 'compute1', 'rw')],
                         self.plain.called('initialize_connection'))
        # Nothing is the attachment's own there: nothing to end alone.
        self.manager.terminate_connection(self.context, volume.id,
                                          self.connector,
                                          attachment_id='att-1')
        self.assertEqual([], self.plain.called('terminate_connection'))
        self.manager.terminate_connection(self.context, volume.id,
                                          self.connector)
        self.assertEqual([(volume.id, 'compute1')],
                         self.plain.called('terminate_connection'))


class ListConnectionsTestCase(ManagerBase):
    """list_connections (1.3): what the node's drivers hold."""

    def test_backends_and_no_hypervisor(self):
        volume = self.volumes.create(status='available')
        self.driver.create_volume(self.volumes.ref(volume))
        client = self.client.prepare(version='1.3')
        client.call(self.context, 'initialize_connection',
                    volume_id=volume.id, connector={'host': 'compute1'},
                    attach_mode='rw')
        self.assertEqual(
            {'host': 'testhost', 'hypervisor': None,
             'backends': {'file': [{'volume_id': volume.id,
                                    'host': 'compute1'}]}},
            client.call(self.context, 'list_connections'))

    def test_a_failing_driver_is_reported_not_raised(self):
        self.useFixture(fixtures.MockPatchObject(
            self.driver, 'list_connections', side_effect=OSError('EIO')))
        report = self.client.prepare(version='1.3').call(
            self.context, 'list_connections')
        self.assertEqual('listing failed: EIO', report['backends']['file'])


class AttachmentEndpointsTestCase(ManagerBase):
    """What attach_volume / detach_volume refuse before running a flow."""

    def setUp(self):
        super().setUp()
        self.manager.hypervisor = None
        self.volume = self.volumes.create(status='available')

    def _reserve(self, host='testhost'):
        return attachment_db.attachment_reserve(
            self.context, self.volume.id, 'i1', manager_host=host)

    def _status(self, attachment):
        return attachment_db.attachment_get(self.context,
                                            attachment.id).attach_status

    def test_not_reserved_is_left_alone(self):
        att = self._reserve()
        attachment_db.attachment_update(self.context, att.id,
                                        {'attach_status': 'attached'})
        for method in (self.manager.attach_volume,
                       self.manager.detach_volume):
            exc = self.assertRaises(messaging.ExpectedException, method,
                                    self.context, att.id)
            self.assertIsInstance(exc.exc_info[1], exception.Conflict)
            self.assertEqual('attached', self._status(att))

    def test_attachment_of_another_host(self):
        att = self._reserve(host='compute9')
        exc = self.assertRaises(messaging.ExpectedException,
                                self.manager.attach_volume, self.context,
                                att.id)
        self.assertIn('compute9', str(exc.exc_info[1]))
        self.assertEqual('error_attaching', self._status(att))
        self.assertEqual('available', self._get(self.volume).status)

    def test_shared_targets_without_service_uuid(self):
        volume_db.volume_update(self.context, self.volume.id,
                                {'shared_targets': True, 'service_uuid': None})
        att = self._reserve()
        self.assertRaises(messaging.ExpectedException,
                          self.manager.attach_volume, self.context, att.id)
        self.assertEqual('error_attaching', self._status(att))

    def test_detach_of_another_host(self):
        att = self._reserve(host='compute9')
        attachment_db.attachment_update(self.context, att.id,
                                        {'attach_status': 'detaching'})
        self.assertRaises(messaging.ExpectedException,
                          self.manager.detach_volume, self.context, att.id)
        self.assertEqual('error_detaching', self._status(att))

    def test_unknown_attachment(self):
        exc = self.assertRaises(messaging.ExpectedException,
                                self.manager.attach_volume, self.context,
                                'nope')
        self.assertIsInstance(exc.exc_info[1],
                              exception.VolumeAttachmentNotFound)

    def test_failed_flow_raises_after_recording(self):
        att = self._reserve()
        exc = self.assertRaises(messaging.ExpectedException,
                                self.manager.attach_volume, self.context,
                                att.id)
        self.assertIn('runs no hypervisor driver', str(exc.exc_info[1]))
        self.assertEqual('error_attaching', self._status(att))


class ResizeAttachmentEndpointTestCase(ManagerBase):
    """resize_attachment (1.6): the host's hypervisor driver makes the
    instance see the new size."""

    def setUp(self):
        super().setUp()
        self.hypervisor = mgr_fixtures.RecordingHypervisor(self.conf)
        self.manager.hypervisor = self.hypervisor
        volume = self.volumes.create(status='available')
        self.attachment = attachment_db.attachment_reserve(
            self.context, volume.id, 'i1', manager_host='testhost')
        attachment_db.attachment_update(self.context, self.attachment.id,
                                        {'attach_status': 'attached'})
        self.hypervisor.attach_volume('i1', {}, self.attachment.id)
        self.call = self.client.prepare(version='1.6').call

    def resize(self, attachment_id=None, new_size=3):
        return self.call(self.context, 'resize_attachment',
                         attachment_id=attachment_id or self.attachment.id,
                         new_size=new_size)

    def test_resize(self):
        self.assertIsNone(self.resize())
        self.assertEqual([('i1', self.attachment.id, 3 * 1024 ** 3)],
                         self.hypervisor.resizes)

    def test_attachment_of_another_host_or_not_attached(self):
        volume_db.volume_update(self.context, self.attachment.volume_id,
                                {'multiattach': True})
        other = attachment_db.attachment_reserve(
            self.context, self.attachment.volume_id, 'i2',
            manager_host='compute9')
        exc = self.assertRaises(exception.InvalidVolume, self.resize,
                                other.id)
        self.assertIn('not attached through the manager of testhost',
                      str(exc))
        attachment_db.attachment_update(self.context, other.id,
                                        {'manager_host': 'testhost'})
        self.assertRaises(exception.InvalidVolume, self.resize, other.id)
        self.assertEqual([], self.hypervisor.resizes)

    def test_no_hypervisor_or_one_that_cannot(self):
        for driver in (None, mgr_fixtures.NoResizeHypervisor(self.conf)):
            self.manager.hypervisor = driver
            exc = self.assertRaises(exception.DriverError, self.resize)
            self.assertIn('the hypervisor driver of host testhost cannot '
                          'resize disks', str(exc))

    def test_driver_failures(self):
        self.hypervisor.fail('resize_volume')
        exc = self.assertRaises(exception.DriverError, self.resize)
        self.assertIn('injected failure of resize_volume', str(exc))
        self.hypervisor.fail('resize_volume', RuntimeError('libvirt gone'))
        exc = self.assertRaises(exception.DriverError, self.resize)
        self.assertIn('resizing the disk of attachment %s failed: libvirt '
                      'gone' % self.attachment.id, str(exc))
        self.assertEqual([], self.hypervisor.resizes)

