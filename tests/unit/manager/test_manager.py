"""Tests of the manager endpoints, called over the local RPC transport
(real SQLite, real files).
"""

import os
import time

import oslo_messaging as messaging

from cinder_ma.db import api as db_api
from cinder_ma import exception
from cinder_ma.manager import manager
from cinder_ma.manager import rpcapi
from cinder_ma.manager import service as manager_service
from cinder_ma import rpc
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures


class ManagerTestCase(base.DBTestCase):

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
        return db_api.volume_get(self.context, volume.id)

    def test_create_and_delete(self):
        volume = self.volumes.create(size=2)
        self.client.call(self.context, 'create_volume', volume_id=volume.id)
        self.assertEqual('available', self._get(volume).status)
        self.assertEqual(2 * 1024 ** 3, os.stat(self._path(volume)).st_size)
        db_api.volume_update(self.context, volume.id,
                             {'status': 'deleting'})
        self.client.call(self.context, 'delete_volume', volume_id=volume.id)
        self.assertFalse(os.path.exists(self._path(volume)))
        self.assertRaises(exception.VolumeNotFound, self._get, volume)

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
