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

"""Tests of cinder_ma.rpc_local: the in-process transport."""

import threading

import fixtures
import oslo_messaging as messaging

from cinder_ma import context
from cinder_ma import exception
from cinder_ma import rpc
from cinder_ma import rpc_local
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.test_rpc import Endpoint
from tests.unit.test_rpc import ErrorsTravelMixin


class LocalTransportTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))
        self.endpoint = Endpoint()
        rpc.register_local_endpoint('node1', self.endpoint)
        self.ctxt = context.RequestContext(
            user_id='u1', project_id='p1', roles=['member'],
            service_roles=['service'])
        self.client = rpc.get_client(
            messaging.Target(topic='t', version='1.0'))

    def test_is_local(self):
        self.assertTrue(rpc.is_local())

    def test_call_inline_with_wire_round_trip(self):
        value = {'a': (1, 2)}
        result = self.client.prepare(server='node1').call(
            self.ctxt, 'echo', value=value)
        # As over the wire: tuples become lists, datetimes strings.
        self.assertEqual({'value': {'a': [1, 2]}, 'user_id': 'u1',
                          'type': 'RequestContext',
                          'when': '2024-01-02T03:04:05.000000'}, result)
        (ctxt, got), = self.endpoint.calls
        self.assertEqual({'a': [1, 2]}, got)
        self.assertIsNot(self.ctxt, ctxt)

    def test_context_round_trip(self):
        self.client.prepare(server='node1').call(self.ctxt, 'echo',
                                                 value=1)
        ctxt = self.endpoint.calls[0][0]
        self.assertIsInstance(ctxt, context.RequestContext)
        self.assertEqual(('u1', 'p1', ['member'], ['service']),
                         (ctxt.user_id, ctxt.project_id, ctxt.roles,
                          ctxt.service_roles))
        self.assertEqual(self.ctxt.request_id, ctxt.request_id)
        self.assertEqual(self.ctxt.to_dict(), ctxt.to_dict())

    def test_cast_runs_on_pool_thread(self):
        self.client.prepare(server='node1').cast(self.ctxt, 'record',
                                                 value=[1])
        self.assertTrue(self.endpoint.cast_done.wait(10))
        ctxt, value, thread_id = self.endpoint.calls[0]
        self.assertEqual([1], value)
        self.assertNotEqual(threading.get_ident(), thread_id)
        self.assertEqual('u1', ctxt.user_id)

    def test_cast_failure_is_logged_not_raised(self):
        logger = self.useFixture(
            fixtures.FakeLogger(name='cinder_ma.rpc_local'))
        self.client.prepare(server='node1').cast(self.ctxt, 'other')
        rpc.cleanup()   # drains the pool
        self.assertIn('Exception during cast of other', logger.output)

    def test_unknown_server(self):
        cctxt = self.client.prepare(server='nowhere')
        exc = self.assertRaises(exception.ManagerUnavailable, cctxt.call,
                                self.ctxt, 'echo', value=1)
        self.assertIn('nowhere', str(exc))
        self.assertEqual(503, exc.code)
        self.assertRaises(exception.ManagerUnavailable, cctxt.cast,
                          self.ctxt, 'record', value=1)

    def test_expected_exception_travels_as_itself(self):
        cctxt = self.client.prepare(server='node1')
        exc = self.assertRaises(exception.VolumeNotFound, cctxt.call,
                                self.ctxt, 'not_found', volume_id='v1')
        self.assertIn('v1', str(exc))
        self.assertRaises(exception.Conflict, cctxt.call, self.ctxt,
                          'conflict')
        self.assertRaises(KeyError, cctxt.call, self.ctxt, 'builtin')

    def test_other_exception_becomes_remote_error(self):
        exc = self.assertRaises(
            messaging.RemoteError, self.client.prepare(server='node1').call,
            self.ctxt, 'other')
        self.assertEqual('OtherError', exc.exc_type)
        self.assertEqual('not for callers', exc.value)

    def test_no_such_method(self):
        cctxt = self.client.prepare(server='node1')
        self.assertRaises(messaging.NoSuchMethod, cctxt.call, self.ctxt,
                          'missing')
        self.assertRaises(messaging.NoSuchMethod, cctxt.call, self.ctxt,
                          '_private')

    def test_versions(self):
        cctxt = self.client.prepare(server='node1', version='1.3')
        self.assertEqual(1, cctxt.call(self.ctxt, 'echo', value=1)['value'])
        self.assertRaises(messaging.UnsupportedVersion,
                          self.client.prepare(server='node1',
                                              version='1.4').call,
                          self.ctxt, 'echo', value=1)
        self.assertRaises(messaging.UnsupportedVersion,
                          self.client.prepare(server='node1',
                                              version='2.0').call,
                          self.ctxt, 'echo', value=1)
        capped = rpc.get_client(messaging.Target(topic='t', version='1.0'),
                                version_cap='1.2')
        self.assertTrue(capped.can_send_version('1.2'))
        self.assertFalse(capped.can_send_version('1.3'))
        self.assertRaises(messaging.RPCVersionCapError,
                          capped.prepare(server='node1', version='1.3').call,
                          self.ctxt, 'echo', value=1)

    def test_local_server_registers_while_running(self):
        endpoint = Endpoint()
        server = rpc.get_server(messaging.Target(topic='t', server='node2'),
                                [endpoint])
        cctxt = self.client.prepare(server='node2')
        self.assertRaises(exception.ManagerUnavailable, cctxt.call,
                          self.ctxt, 'echo', value=1)
        server.start()
        self.assertEqual(2, cctxt.call(self.ctxt, 'echo', value=2)['value'])
        server.stop()
        server.wait()
        self.assertRaises(exception.ManagerUnavailable, cctxt.call,
                          self.ctxt, 'echo', value=3)

    def test_local_server_needs_a_server_name(self):
        self.assertRaises(ValueError, rpc.get_server,
                          messaging.Target(topic='t'), [Endpoint()])

    def test_unregister(self):
        rpc.unregister_local_endpoint('node1', self.endpoint)
        self.assertRaises(exception.ManagerUnavailable,
                          self.client.prepare(server='node1').call,
                          self.ctxt, 'echo', value=1)

    def test_wait_for_casts(self):
        release = threading.Event()
        started = threading.Event()
        done = []

        def slow(ctxt):
            started.set()
            release.wait(10)
            done.append(True)

        self.endpoint.slow = slow
        self.client.prepare(server='node1').cast(self.ctxt, 'slow')
        self.assertTrue(started.wait(10))
        self.assertFalse(rpc.wait_for_casts(timeout=0.05))
        release.set()
        self.assertTrue(rpc.wait_for_casts(timeout=10))
        self.assertEqual([True], done)
        self.assertTrue(rpc.wait_for_casts())
        rpc.cleanup()
        self.assertTrue(rpc.wait_for_casts())

    def test_init_is_idempotent_and_cleanup_resets(self):
        rpc.init(self.conf)
        self.assertTrue(rpc.initialized())
        rpc.cleanup()
        self.assertFalse(rpc.initialized())
        self.assertRaises(RuntimeError, rpc.get_client,
                          messaging.Target(topic='t'))
        rpc.cleanup()

    def test_cast_errors_are_logged_as_a_server_logs_them(self):
        # As over RabbitMQ: the dispatcher refuses a cast where it runs.
        logger = self.useFixture(
            fixtures.FakeLogger(name='cinder_ma.rpc_local'))
        self.client.prepare(server='node1').cast(self.ctxt, 'missing')
        self.client.prepare(server='node1').cast(self.ctxt, '_private')
        self.client.prepare(server='node1', version='1.4').cast(
            self.ctxt, 'record', value=1)
        self.assertTrue(rpc.wait_for_casts(10))
        self.assertIn('NoSuchMethod: Endpoint does not support RPC method '
                      'missing', logger.output)
        self.assertIn('method _private', logger.output)
        self.assertIn('UnsupportedVersion: Endpoint does not support RPC '
                      'version 1.4', logger.output)
        self.assertEqual([], self.endpoint.calls)

    def test_namespaces(self):
        other = Endpoint()
        other.target = messaging.Target(namespace='admin', version='1.0')
        rpc.register_local_endpoint('node1', other)
        self.client.prepare(server='node1', namespace='admin').call(
            self.ctxt, 'echo', value=1)
        self.assertEqual(1, len(other.calls))
        self.assertEqual([], self.endpoint.calls)
        self.assertRaises(messaging.UnsupportedVersion,
                          self.client.prepare(server='node1',
                                              namespace='nowhere').call,
                          self.ctxt, 'echo', value=1)

    def test_registry_is_per_init(self):
        rpc.cleanup()
        rpc.init(self.conf)
        self.assertRaises(exception.ManagerUnavailable,
                          rpc.get_client(messaging.Target(
                              topic='t', server='node1')).call,
                          self.ctxt, 'echo', value=1)


class LocalErrorsTestCase(ErrorsTravelMixin, base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))
        self.client = self.serve(Endpoint())


class VersionTestCase(base.TestCase):

    def test_version_is_compatible(self):
        self.assertTrue(rpc_local.version_is_compatible('1.0', '1.0'))
        self.assertTrue(rpc_local.version_is_compatible('1.2', '1.1'))
        self.assertTrue(rpc_local.version_is_compatible(None, '7.0'))
        self.assertFalse(rpc_local.version_is_compatible('1.1', '1.2'))
        self.assertFalse(rpc_local.version_is_compatible('2.0', '1.0'))
        self.assertFalse(rpc_local.version_is_compatible('1.0', None))
        self.assertTrue(rpc_local.version_is_compatible('1.1.1', '1.1'))
        self.assertFalse(rpc_local.version_is_compatible('1.1', '1.1.1'))
