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

"""RPC in one process: the ``local`` transport of ``cinder-ma-all``.

The API and the manager run in one process, so there is no broker: a
message is dispatched to the endpoints registered under the target's
server name by oslo.messaging's own :class:`oslo_messaging.RPCDispatcher`,
with :class:`oslo_messaging.DefaultRPCAccessPolicy`, the dispatcher and
policy of every oslo.messaging RPC server of cinder_ma: the same
namespace and version rules, the same refusal of private (``_x``)
methods, the same serializer. ``call()`` dispatches in the caller's
thread; ``cast()`` on a long-lived futurist thread pool, where a failure
is logged, as a server logs the failure of a cast. The request context,
the arguments and the result are turned into JSON primitives and back,
as over the wire, so that nothing else can be shared by accident.

oslo.messaging's ``fake://`` driver is not used: it polls every 50 ms.
:mod:`cinder_ma.rpc` makes the one :class:`LocalTransport` of the
process; clients and servers come from :mod:`cinder_ma.rpc`.
"""

import threading
import time
import traceback

import futurist
from futurist import waiters
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_serialization import jsonutils

from cinder_ma import exception

LOG = logging.getLogger(__name__)

#: Threads running local casts; a cast is one manager flow.
CAST_WORKERS = 32


def version_is_compatible(implemented, requested):
    """Whether a server implementing ``implemented`` handles a message of
    version ``requested``: same major version, no newer minor version.
    """
    if implemented is None:
        return True
    if requested is None:
        return False
    imp = [int(p) for p in implemented.split('.')] + [0]
    req = [int(p) for p in requested.split('.')] + [0]
    return imp[0] == req[0] and tuple(req[1:3]) <= tuple(imp[1:3])


def _wire(value):
    """``value`` as it would arrive after a trip over the wire."""
    return jsonutils.loads(jsonutils.dumps(value))


class _Incoming:
    """An incoming message as :meth:`oslo_messaging.RPCDispatcher.dispatch`
    reads it: the context and the message (method, args, namespace,
    version) as dicts of primitives. No ``client_timeout``: no
    call-monitor heartbeat, the caller waits in this process.
    """

    __slots__ = ('ctxt', 'message')
    client_timeout = None

    def __init__(self, ctxt, message):
        self.ctxt = ctxt
        self.message = message


class LocalTransport:
    """The endpoints served in this process, one dispatcher per server
    name, and the pool running casts.

    :param serializer: the serializer of every client and dispatcher.
    :param allowed_exmods: modules whose exceptions reach a caller as
        themselves (as oslo.messaging's ``allowed_remote_exmods``).
    """

    def __init__(self, serializer, allowed_exmods, workers=CAST_WORKERS):
        self.serializer = serializer
        self.allowed_exmods = frozenset(allowed_exmods) | {'builtins'}
        self._lock = threading.Lock()
        self._endpoints = {}
        self._dispatchers = {}
        self._executor = futurist.ThreadPoolExecutor(max_workers=workers)
        self._pending = set()
        self._pending_lock = threading.Lock()

    # Endpoints

    def _rebuild(self, server):
        # Under self._lock. A dispatcher per change, none per message.
        endpoints = self._endpoints.get(server)
        if not endpoints:
            self._endpoints.pop(server, None)
            self._dispatchers.pop(server, None)
            return
        self._dispatchers[server] = messaging.RPCDispatcher(
            list(endpoints), self.serializer,
            access_policy=messaging.DefaultRPCAccessPolicy)

    def register(self, server, endpoint):
        """Serve ``endpoint`` as ``server``."""
        with self._lock:
            self._endpoints.setdefault(server, []).append(endpoint)
            self._rebuild(server)

    def unregister(self, server, endpoint=None):
        """Stop serving ``endpoint`` (every endpoint when None) as
        ``server``."""
        with self._lock:
            endpoints = self._endpoints.get(server, [])
            if endpoint is None:
                endpoints.clear()
            elif endpoint in endpoints:
                endpoints.remove(endpoint)
            self._rebuild(server)

    def dispatcher(self, server):
        """The dispatcher of ``server``.

        :raises ManagerUnavailable: no endpoint serves it in this process.
        """
        dispatcher = self._dispatchers.get(server)
        if dispatcher is None:
            raise exception.ManagerUnavailable(
                host=server, reason='no manager serves it in this process '
                '(rpc_transport = local)')
        return dispatcher

    # Casts

    def submit(self, func, *args):
        """Run ``func(*args)`` on the cast pool; :meth:`cleanup` waits
        for it."""
        future = self._executor.submit(func, *args)
        with self._pending_lock:
            self._pending.add(future)
        future.add_done_callback(self._done)
        return future

    def _done(self, future):
        with self._pending_lock:
            self._pending.discard(future)

    def wait_for_casts(self, timeout=None):
        """Wait until the casts submitted so far, and those they submit,
        have run; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._pending_lock:
                pending = [f for f in self._pending if not f.done()]
            if not pending:
                return True
            remaining = None
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
            waiters.wait_for_all(pending, timeout=remaining)

    def cleanup(self):
        """Drain the casts in flight and forget every endpoint."""
        # Wait for the casts in flight, not for the idle workers to notice
        # the shutdown (they poll once a second and are daemon threads).
        with self._pending_lock:
            pending = list(self._pending)
        waiters.wait_for_all(pending)
        self._executor.shutdown(wait=False)
        with self._lock:
            self._endpoints.clear()
            self._dispatchers.clear()

    # Errors

    def travelled(self, exc):
        """The exception a caller sees for ``exc``: an exception of an
        allowed module (or a builtin) as itself, any other as
        :class:`oslo_messaging.RemoteError`. The dispatcher's own
        refusals (NoSuchMethod, UnsupportedVersion) are raised as
        themselves too, so that a caller in this process sees why.
        """
        if isinstance(exc, messaging.ExpectedException):
            exc = exc.exc_info[1]
        if (type(exc).__module__ in self.allowed_exmods or
                isinstance(exc, messaging.RPCDispatcherError)):
            return exc
        return messaging.RemoteError(
            type(exc).__name__, str(exc),
            ''.join(traceback.format_exception(exc)))


class LocalClient:
    """Client of the local transport, shaped like oslo.messaging's."""

    def __init__(self, transport, target, version_cap=None):
        self.transport = transport
        self.target = target
        self.version_cap = version_cap

    def prepare(self, server=None, version=None, namespace=None,
                topic=None, **kwargs):
        """A client for the same target with some attributes replaced
        (``timeout``, ``retry`` and the like are accepted and ignored).
        """
        values = {'topic': topic, 'server': server, 'version': version,
                  'namespace': namespace}
        target = self.target(**{k: v for k, v in values.items()
                                if v is not None})
        return LocalClient(self.transport, target,
                           version_cap=self.version_cap)

    def can_send_version(self, version=None):
        version = version or self.target.version
        return (not self.version_cap or
                version_is_compatible(self.version_cap, version))

    def _message(self, ctxt, method, kwargs):
        """The dispatcher of the target's server and the message, as
        primitives (what a server would receive)."""
        target = self.target
        if not self.can_send_version(target.version):
            raise messaging.RPCVersionCapError(version=target.version,
                                               version_cap=self.version_cap)
        dispatcher = self.transport.dispatcher(target.server)
        serializer = self.transport.serializer
        message = {'method': method, 'args': {
            k: serializer.serialize_entity(ctxt, v)
            for k, v in kwargs.items()}}
        if target.namespace is not None:
            message['namespace'] = target.namespace
        if target.version is not None:
            message['version'] = target.version
        # One trip for both (each trip costs).
        ctxt_dict, message = _wire((serializer.serialize_context(ctxt),
                                    message))
        return dispatcher, _Incoming(ctxt_dict, message)

    def call(self, ctxt, method, **kwargs):
        """Dispatch ``method`` in this thread and return its result.

        :raises ManagerUnavailable: no endpoint serves the target's server.
        """
        dispatcher, incoming = self._message(ctxt, method, kwargs)
        try:
            result = dispatcher.dispatch(incoming)
        except Exception as exc:
            raise self.transport.travelled(exc) from None
        return self.transport.serializer.deserialize_entity(
            ctxt, _wire(result))

    def cast(self, ctxt, method, **kwargs):
        """Dispatch ``method`` on the cast thread pool.

        :raises ManagerUnavailable: no endpoint serves the target's server.
        """
        dispatcher, incoming = self._message(ctxt, method, kwargs)
        self.transport.submit(_run_cast, dispatcher, incoming)


def _run_cast(dispatcher, incoming):
    method = incoming.message['method']
    try:
        dispatcher.dispatch(incoming)
    except messaging.ExpectedException as exc:
        LOG.debug('Expected exception during cast of %s: %s', method,
                  exc.exc_info[1])
    except Exception:
        LOG.exception('Exception during cast of %s', method)


class LocalServer:
    """Server of the local transport: serves its endpoints while running.
    """

    def __init__(self, transport, target, endpoints):
        if not target.server:
            raise ValueError('a local RPC server needs target.server')
        self.transport = transport
        self.target = target
        self.endpoints = list(endpoints)
        self._running = False

    def start(self):
        if self._running:
            return
        for endpoint in self.endpoints:
            self.transport.register(self.target.server, endpoint)
        self._running = True

    def stop(self):
        if not self._running:
            return
        for endpoint in self.endpoints:
            self.transport.unregister(self.target.server, endpoint)
        self._running = False

    def wait(self):
        """Nothing to wait for: local calls run in the caller's threads."""
