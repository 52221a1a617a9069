"""Tests of cinder_ma.manager.rpcapi: routing by volume host."""

import threading

import oslo_messaging as messaging

from cinder_ma import context
from cinder_ma import exception
from cinder_ma.manager import manager
from cinder_ma.manager import rpcapi
from cinder_ma import rpc
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures


class HostPartsTestCase(base.TestCase):

    def test_server_for(self):
        self.assertEqual('node1', rpcapi.server_for('node1@file#pool'))
        self.assertEqual('node1', rpcapi.server_for('node1@file'))
        self.assertEqual('node1', rpcapi.server_for('node1'))
        self.assertRaises(ValueError, rpcapi.server_for, None)

    def test_backend_of(self):
        self.assertEqual('file', rpcapi.backend_of('node1@file#pool'))
        self.assertEqual('file', rpcapi.backend_of('node1@file'))
        self.assertIsNone(rpcapi.backend_of('node1'))
        self.assertIsNone(rpcapi.backend_of(None))


class RecordingManager:
    """Stands for the Manager of one node."""

    target = messaging.Target(version=rpcapi.ManagerAPI.RPC_API_VERSION)

    def __init__(self):
        self.calls = []
        self.event = threading.Event()

    def create_volume(self, ctxt, volume_id):
        self.calls.append(('create_volume', ctxt.project_id, volume_id))
        self.event.set()

    def delete_volume(self, ctxt, volume_id):
        self.calls.append(('delete_volume', ctxt.project_id, volume_id))
        self.event.set()


class ManagerAPITestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))
        self.node1 = RecordingManager()
        self.node2 = RecordingManager()
        rpc.register_local_endpoint('node1', self.node1)
        rpc.register_local_endpoint('node2', self.node2)
        self.ctxt = context.RequestContext(user_id='u', project_id='p')
        self.api = rpcapi.ManagerAPI()

    def test_version_shared_with_manager(self):
        self.assertEqual('1.0', rpcapi.ManagerAPI.RPC_API_VERSION)
        self.assertEqual(rpcapi.ManagerAPI.RPC_API_VERSION,
                         manager.Manager.target.version)
        self.assertEqual('cinder-ma-manager', rpcapi.ManagerAPI.TOPIC)

    def test_create_volume_goes_to_the_node_of_the_host(self):
        self.api.create_volume(self.ctxt, 'vol-1', 'node2@file#file')
        self.assertTrue(self.node2.event.wait(10))
        self.assertEqual([('create_volume', 'p', 'vol-1')], self.node2.calls)
        self.assertEqual([], self.node1.calls)

    def test_delete_volume_goes_to_the_node_of_the_host(self):
        self.api.delete_volume(self.ctxt, 'vol-2', 'node1@other#x')
        self.assertTrue(self.node1.event.wait(10))
        self.assertEqual([('delete_volume', 'p', 'vol-2')], self.node1.calls)
        self.assertEqual([], self.node2.calls)

    def test_unknown_node(self):
        self.assertRaises(exception.ManagerUnavailable,
                          self.api.create_volume, self.ctxt, 'vol-3',
                          'node3@file#file')

    def test_client_created_on_first_use(self):
        rpc.cleanup()
        api = rpcapi.ManagerAPI()   # no RPC needed to build it
        rpc.init(self.conf)
        self.assertTrue(api.client.can_send_version('1.0'))
        self.assertEqual('1.0', api.client.version_cap)
