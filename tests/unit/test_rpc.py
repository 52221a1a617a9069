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

"""Tests of cinder_ma.rpc: the local transport and the oslo wiring."""

import datetime
import sys
import threading
from unittest import mock

import fixtures
import oslo_messaging as messaging
from oslo_messaging._drivers import common as rpc_common

from cinder_ma import context, exception, rpc
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures


class OtherError(Exception):
    """An exception from a module that is not allowed to travel."""


class Endpoint:
    target = messaging.Target(version='1.3')

    def __init__(self):
        self.calls = []
        self.cast_done = threading.Event()

    def echo(self, ctxt, value):
        self.calls.append((ctxt, value))
        return {'value': value, 'user_id': ctxt.user_id,
                'type': type(ctxt).__name__,
                'when': datetime.datetime(2024, 1, 2, 3, 4, 5)}

    def record(self, ctxt, value):
        self.calls.append((ctxt, value, threading.get_ident()))
        self.cast_done.set()

    @messaging.expected_exceptions(exception.VolumeNotFound)
    def not_found(self, ctxt, volume_id):
        raise exception.VolumeNotFound(volume_id=volume_id)

    def conflict(self, ctxt):
        raise exception.Conflict(reason='busy')

    def builtin(self, ctxt):
        raise KeyError('k')

    def other(self, ctxt):
        raise OtherError('not for callers')

    def _private(self, ctxt):
        return 'secret'


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
        logger = self.useFixture(fixtures.FakeLogger(name='cinder_ma.rpc'))
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

    def test_notifier_is_noop(self):
        notifier = rpc.get_notifier('cinder-ma-manager.node1')
        notifier.info(self.ctxt, 'volume.create.end', {'id': 'v1'})
        self.assertEqual('cinder-ma-manager.node1', notifier.publisher_id)

    def test_test_notifier_driver_works_locally(self):
        rpc.cleanup()
        sent = mgr_fixtures.register_test_notifier(self.conf)
        rpc.init(self.conf)
        rpc.get_notifier('volume').info(self.ctxt, 'volume.attach.end',
                                        {'volume_id': 'v1'})
        self.assertEqual([('volume.attach.end', {'volume_id': 'v1'})],
                         sent())

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


class VersionTestCase(base.TestCase):

    def test_version_is_compatible(self):
        self.assertTrue(rpc.version_is_compatible('1.0', '1.0'))
        self.assertTrue(rpc.version_is_compatible('1.2', '1.1'))
        self.assertTrue(rpc.version_is_compatible(None, '7.0'))
        self.assertFalse(rpc.version_is_compatible('1.1', '1.2'))
        self.assertFalse(rpc.version_is_compatible('2.0', '1.0'))
        self.assertFalse(rpc.version_is_compatible('1.0', None))
        self.assertTrue(rpc.version_is_compatible('1.1.1', '1.1'))
        self.assertFalse(rpc.version_is_compatible('1.1', '1.1.1'))


class OsloTransportTestCase(base.TestCase):
    """The oslo.messaging wiring; nothing is sent (no server runs)."""

    def setUp(self):
        super().setUp()
        rpc.cleanup()
        self.conf.set_override('rpc_transport', 'oslo')
        rpc.init(self.conf)
        self.addCleanup(rpc.cleanup)
        self.conf.set_override('transport_url', 'fake:///')

    def test_client_and_server(self):
        self.assertFalse(rpc.is_local())
        client = rpc.get_client(messaging.Target(topic='t', version='1.0'),
                                version_cap='1.0')
        self.assertIsInstance(client, rpc.OsloClient)
        self.assertIsInstance(client.serializer,
                              rpc.RequestContextSerializer)
        self.assertEqual(60, client.timeout)
        self.assertIsInstance(client.prepare(server='n'), rpc.OsloClient)
        self.assertTrue(client.can_send_version('1.0'))
        self.assertFalse(client.can_send_version('1.1'))
        server = rpc.get_server(messaging.Target(topic='t', server='n'),
                                [Endpoint()])
        self.assertEqual('threading', server.executor_type)

    def test_bad_transport_url_fails_init(self):
        rpc.cleanup()
        self.conf.set_override('transport_url', 'rabbit://a:b@h:notaport/')
        self.assertRaises(messaging.InvalidTransportURL, rpc.init,
                          self.conf)

    def test_allowed_exmods(self):
        client = rpc.get_client(messaging.Target(topic='t'))
        self.assertIn('cinder_ma.exception',
                      client.transport._driver._allowed_remote_exmods)


class RemoteExceptionTestCase(base.TestCase):
    """Exceptions as oslo.messaging rebuilds them on the caller's side."""

    def _remote(self, exc):
        try:
            raise exc
        except Exception:
            data = rpc_common.serialize_remote_exception(sys.exc_info())
        return rpc_common.deserialize_remote_exception(
            data, rpc.ALLOWED_EXMODS)

    def test_call_raises_clean_exception(self):
        remote = self._remote(exception.VolumeNotFound(volume_id='v1'))
        self.assertIn('Traceback', str(remote))
        client = rpc.OsloClient(mock.Mock(**{'call.side_effect': remote}))
        exc = self.assertRaises(exception.VolumeNotFound, client.call,
                                None, 'm')
        self.assertIs(exception.VolumeNotFound, type(exc))
        self.assertEqual('Volume v1 could not be found.', str(exc))
        self.assertEqual({'volume_id': 'v1'}, exc.kwargs)

    def test_local_exceptions_untouched(self):
        exc = exception.Conflict(reason='x')
        client = rpc.OsloClient(mock.Mock(**{'call.side_effect': exc}))
        self.assertIs(exc, self.assertRaises(exception.Conflict,
                                             client.call, None, 'm'))
        other = self._remote(ValueError('v'))
        client = rpc.OsloClient(mock.Mock(**{'call.side_effect': other}))
        self.assertRaises(ValueError, client.call, None, 'm')


class SerializerTestCase(base.TestCase):

    def test_context(self):
        ser = rpc.RequestContextSerializer()
        ctxt = context.RequestContext(user_id='u', project_id='p',
                                      service_roles=['service'])
        back = ser.deserialize_context(ser.serialize_context(ctxt))
        self.assertIsInstance(back, context.RequestContext)
        self.assertEqual(['service'], back.service_roles)
        self.assertEqual({'a': 1}, ser.serialize_entity(ctxt, {'a': 1}))
