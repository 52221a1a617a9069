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

"""Tests of cinder_ma.rpc: the oslo wiring, errors, the serializer."""

import datetime
import inspect
import threading
from unittest import mock
import uuid

import oslo_messaging as messaging

from cinder_ma import context
from cinder_ma import exception
from cinder_ma import rpc
from tests import base


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


class ErrorsTravelMixin:
    """What a caller sees of an endpoint's exceptions, the same over
    every transport: ``setUp`` sets ``self.client``, a client of a server
    serving an :class:`Endpoint` (made with :meth:`serve`).
    """

    def serve(self, endpoint):
        """Serve ``endpoint`` on a topic of its own; a client of it."""
        topic = 'test-rpc-%s' % uuid.uuid4().hex
        server = rpc.get_server(messaging.Target(topic=topic, server='n'),
                                [endpoint])
        server.start()
        self.addCleanup(server.wait)
        self.addCleanup(server.stop)
        self.ctxt = context.RequestContext(user_id='u1', project_id='p1')
        return rpc.get_client(messaging.Target(
            topic=topic, version='1.0')).prepare(server='n')

    def test_cinder_ma_exception_keeps_class_and_message(self):
        exc = self.assertRaises(exception.VolumeNotFound, self.client.call,
                                self.ctxt, 'not_found', volume_id='v1')
        self.assertIs(exception.VolumeNotFound, type(exc))
        self.assertEqual('Volume v1 could not be found.',
                         exc.format_message())
        self.assertEqual('Volume v1 could not be found.', str(exc))
        self.assertEqual({'volume_id': 'v1'}, exc.kwargs)
        self.assertEqual(404, exc.code)

    def test_undeclared_cinder_ma_exception_too(self):
        exc = self.assertRaises(exception.Conflict, self.client.call,
                                self.ctxt, 'conflict')
        self.assertIs(exception.Conflict, type(exc))
        self.assertEqual(exception.Conflict(reason='busy').msg,
                         exc.format_message())

    def test_builtin_exception_keeps_class(self):
        self.assertRaises(KeyError, self.client.call, self.ctxt, 'builtin')


def use_fake_oslo_transport(test):
    """Give ``test`` the oslo.messaging transport, on its fake://
    driver, for its duration."""
    rpc.cleanup()
    test.conf.set_override('rpc_transport', 'oslo')
    rpc.init(test.conf)
    test.addCleanup(rpc.cleanup)
    test.conf.set_override('transport_url', 'fake:///')


class OsloTransportTestCase(base.TestCase):
    """The oslo.messaging wiring; nothing is sent (no server runs)."""

    def setUp(self):
        super().setUp()
        use_fake_oslo_transport(self)

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


class FakeTransportErrorsTestCase(ErrorsTravelMixin, base.TestCase):
    """Over oslo.messaging's fake:// driver (RabbitMQ: the functional
    tests)."""

    def setUp(self):
        super().setUp()
        use_fake_oslo_transport(self)
        self.client = self.serve(Endpoint())


def rebuilt(exc):
    """``exc`` as oslo.messaging rebuilds an exception of an allowed module
    on the caller's side: its class called with its arguments and keyword
    arguments, as an instance of a subclass made for it whose ``str()``
    adds the remote traceback.
    """
    cls = type(exc)
    text = '%s\nTraceback (most recent call last):\n  File "manager.py"' % (
        exc)
    subclass = type(cls.__name__ + 'FromRemote', (cls,),
                    {'__str__': lambda self: text,
                     '__module__': cls.__module__ + '.remote'})
    return subclass(*exc.args, **getattr(exc, 'kwargs', {}))


class RemoteExceptionTestCase(base.TestCase):
    """Exceptions rebuilt by oslo.messaging on the caller's side."""

    def test_format_message_has_no_traceback(self):
        remote = rebuilt(exception.VolumeNotFound(volume_id='v1'))
        self.assertIn('Traceback', str(remote))
        self.assertEqual('Volume v1 could not be found.',
                         remote.format_message())

    def test_call_raises_clean_exception(self):
        remote = rebuilt(exception.VolumeNotFound(volume_id='v1'))
        client = rpc.OsloClient(mock.Mock(**{'call.side_effect': remote}))
        exc = self.assertRaises(exception.VolumeNotFound, client.call,
                                None, 'm')
        self.assertIs(exception.VolumeNotFound, type(exc))
        self.assertEqual('Volume v1 could not be found.', str(exc))
        self.assertEqual({'volume_id': 'v1'}, exc.kwargs)

    def test_over_quota_keeps_its_figures(self):
        remote = rebuilt(exception.OverQuota(
            resource='gigabytes', limit=10, in_use=8, requested=5))
        client = rpc.OsloClient(mock.Mock(**{'call.side_effect': remote}))
        exc = self.assertRaises(exception.OverQuota, client.call, None, 'm')
        self.assertIs(exception.OverQuota, type(exc))
        self.assertEqual(('gigabytes', 10, 8, 5), (
            exc.resource, exc.limit, exc.in_use, exc.requested))
        self.assertEqual('Quota exceeded for resource gigabytes.', str(exc))

    def test_every_exception_can_be_rebuilt(self):
        # oslo.messaging rebuilds cls(message, **kwargs): no class may
        # require a positional argument of its own.
        for name, cls in vars(exception).items():
            if not (isinstance(cls, type) and
                    issubclass(cls, exception.CinderMAException)):
                continue
            params = list(inspect.signature(cls).parameters.values())
            self.assertEqual('message', params[0].name, name)
            self.assertFalse(
                [p.name for p in params[1:] if p.kind in (
                    p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)], name)

    def test_local_exceptions_untouched(self):
        exc = exception.Conflict(reason='x')
        client = rpc.OsloClient(mock.Mock(**{'call.side_effect': exc}))
        self.assertIs(exc, self.assertRaises(exception.Conflict,
                                             client.call, None, 'm'))
        other = rebuilt(ValueError('v'))
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
