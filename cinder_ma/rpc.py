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

"""RPC between the API and the managers, and notifications.

Two transports, chosen by ``[DEFAULT] rpc_transport``:

``oslo``
    oslo.messaging (RabbitMQ in deployments, ``transport_url``), servers on
    the threading executor.

``local``
    The API and the manager run in one process (``cinder-ma-all``): a
    process-wide registry maps a server name to the endpoints registered
    under it. ``call()`` runs the endpoint method inline; ``cast()`` runs it
    on a long-lived futurist thread pool. The request context and the
    arguments are serialized to JSON primitives and back, as over the wire,
    so that nothing else can be shared by accident. oslo.messaging's
    ``fake://`` driver is not used: it polls every 50 ms.

Both report errors the same way: exceptions of :mod:`cinder_ma.exception`
(and builtins) reach the caller as themselves, anything else as
``oslo_messaging.RemoteError``. Endpoints declare the exceptions that are
an expected outcome with ``oslo_messaging.expected_exceptions`` so that the
server does not log them as failures.

Transports are created on first use, not by :func:`init`: a launcher forks
its workers after ``init`` and each must open its own connections.
"""

import threading
import time
import traceback

import futurist
from futurist import waiters
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_messaging import opts as messaging_opts
from oslo_serialization import jsonutils

from cinder_ma import context as cm_context
from cinder_ma import exception

LOG = logging.getLogger(__name__)

#: Modules whose exceptions are re-raised as themselves on the caller's
#: side (oslo.messaging's allowed_remote_exmods).
ALLOWED_EXMODS = [exception.__name__]
EXTRA_EXMODS = []

#: Reconnections a message send tries when the broker is unreachable
#: before it fails (MessageDeliveryFailure): a request never hangs on a
#: broker that is down (oslo.messaging retries forever by default). A
#: cast that fails is not lost: its intent is in the database.
SEND_RETRIES = 2

#: Threads running local casts; a cast is one manager flow.
LOCAL_CAST_WORKERS = 32

#: Notification drivers that need no bus, usable with the local transport
#: ('test' keeps notifications in memory, for tests).
BUSLESS_DRIVERS = frozenset(('noop', 'log', 'test'))

messaging.set_transport_defaults(control_exchange='cinder_ma')

_NOTIFICATIONS_GROUP = 'oslo_messaging_notifications'
_LOCK = threading.Lock()
_STATE = None


class _State:
    """What :func:`init` set up; replaced as a whole by init/cleanup."""

    def __init__(self, conf):
        self.conf = conf
        self.mode = conf.rpc_transport
        self.transport = None
        self.notification_transport = None
        self.notifier = None
        self.executor = None
        self.pending = set()
        self.pending_lock = threading.Lock()
        if self.mode == 'local':
            self.executor = futurist.ThreadPoolExecutor(
                max_workers=LOCAL_CAST_WORKERS)


def init(conf):
    """Set up RPC for ``conf.rpc_transport``; a no-op when already done.

    Validates ``transport_url`` for the ``oslo`` transport; the connection
    itself is opened on first use.
    """
    global _STATE
    with _LOCK:
        if _STATE is not None:
            return
        if conf.rpc_transport == 'oslo':
            # Registers oslo.messaging's options and checks the URL.
            try:
                messaging.TransportURL.parse(conf)
            except ValueError as exc:
                raise messaging.InvalidTransportURL(
                    conf.transport_url,
                    'invalid transport_url (%s)' % exc) from None
        _STATE = _State(conf)
    LOG.debug('RPC initialized with the %s transport', conf.rpc_transport)


def initialized():
    """Whether :func:`init` has run (and :func:`cleanup` has not)."""
    return _STATE is not None


def cleanup():
    """Close transports, drain local casts and forget local endpoints."""
    global _STATE
    with _LOCK:
        state, _STATE = _STATE, None
    if state is None:
        return
    if state.executor is not None:
        # Wait for the casts in flight, not for the idle workers to notice
        # the shutdown (they poll once a second and are daemon threads).
        with state.pending_lock:
            pending = list(state.pending)
        waiters.wait_for_all(pending)
        state.executor.shutdown(wait=False)
    for transport in (state.transport, state.notification_transport):
        if transport is not None:
            transport.cleanup()
    _LOCAL_REGISTRY.clear()


def wait_for_casts(timeout=None):
    """Wait until the local casts submitted so far, and those they submit,
    have run.

    :returns: False on timeout, else True (also when nothing is pending or
        the transport is not the local one).
    """
    state = _STATE
    if state is None or state.executor is None:
        return True
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        with state.pending_lock:
            pending = [f for f in state.pending if not f.done()]
        if not pending:
            return True
        remaining = None
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
        waiters.wait_for_all(pending, timeout=remaining)


def _submit(state, func, *args):
    """Run ``func(*args)`` on the cast pool; :func:`cleanup` waits for it.
    """
    future = state.executor.submit(func, *args)
    with state.pending_lock:
        state.pending.add(future)

    def _done(fut):
        with state.pending_lock:
            state.pending.discard(fut)

    future.add_done_callback(_done)
    return future


def _state():
    state = _STATE
    if state is None:
        raise RuntimeError('cinder_ma.rpc.init() has not been called')
    return state


def _transport(state):
    with _LOCK:
        if state.transport is None:
            state.transport = messaging.get_rpc_transport(
                state.conf, allowed_remote_exmods=ALLOWED_EXMODS +
                EXTRA_EXMODS)
        return state.transport


def is_local():
    """Whether RPC dispatches to endpoints in this process."""
    return _state().mode == 'local'


# Serialization

class RequestContextSerializer(messaging.Serializer):
    """Sends the request context as a dict, payloads as JSON primitives."""

    def __init__(self, base=None):
        self._base = base or messaging.JsonPayloadSerializer()

    def serialize_entity(self, ctxt, entity):
        return self._base.serialize_entity(ctxt, entity)

    def deserialize_entity(self, ctxt, entity):
        return self._base.deserialize_entity(ctxt, entity)

    def serialize_context(self, ctxt):
        return ctxt.to_dict()

    def deserialize_context(self, ctxt):
        return cm_context.RequestContext.from_dict(ctxt)


def _serializer():
    return RequestContextSerializer()


# Clients and servers

def get_client(target, version_cap=None):
    """An RPC client: ``.prepare(server=..., version=...)``, ``.call()``,
    ``.cast()``, ``.can_send_version()``.
    """
    state = _state()
    timeout = state.conf.manager.rpc_response_timeout
    if state.mode == 'local':
        return LocalClient(target, version_cap=version_cap, state=state)
    return OsloClient(messaging.get_rpc_client(
        _transport(state), target, version_cap=version_cap,
        serializer=_serializer(), timeout=timeout, retry=SEND_RETRIES))


_REMOTE_SUFFIX = '_Remote'


def _without_remote_traceback(exc):
    """A cinder_ma exception as raised by the manager.

    oslo.messaging re-raises a remote exception as a subclass whose
    ``str()`` carries the manager's traceback, which must not reach API
    users; raise the class itself, built from the same message and
    arguments (the traceback is logged at debug level).
    """
    cls = type(exc)
    if not cls.__name__.endswith(_REMOTE_SUFFIX):
        return exc
    base = cls.__mro__[1]
    LOG.debug('Remote %s: %s', base.__name__, str(exc))
    try:
        clean = base(exc.msg, **exc.kwargs)
    except Exception:
        return exc
    return clean


class OsloClient:
    """An oslo.messaging RPC client whose ``call()`` raises cinder_ma
    exceptions as themselves, without the remote traceback.
    """

    def __init__(self, client):
        self._client = client

    def __getattr__(self, name):
        return getattr(self._client, name)

    def prepare(self, **kwargs):
        return OsloClient(self._client.prepare(**kwargs))

    def can_send_version(self, version=None):
        return self._client.can_send_version(version)

    def cast(self, ctxt, method, **kwargs):
        self._client.cast(ctxt, method, **kwargs)

    def call(self, ctxt, method, **kwargs):
        try:
            return self._client.call(ctxt, method, **kwargs)
        except exception.CinderMAException as exc:
            clean = _without_remote_traceback(exc)
            if clean is exc:
                raise
            raise clean from None


def get_server(target, endpoints):
    """An RPC server for ``endpoints``: ``.start()``, ``.stop()``,
    ``.wait()``.

    With the local transport, starting it registers the endpoints under
    ``target.server`` in this process and stopping it unregisters them.
    """
    state = _state()
    if state.mode == 'local':
        return LocalServer(target, endpoints)
    return messaging.get_rpc_server(
        _transport(state), target, endpoints, executor='threading',
        serializer=_serializer(),
        access_policy=messaging.DefaultRPCAccessPolicy)


def get_notifier(publisher_id):
    """A notifier for ``publisher_id``.

    Configured by ``[oslo_messaging_notifications]``. With the local
    transport and no notification transport_url, notifications can only
    go to drivers that send nothing over a bus: 'noop' unless 'log' or
    'test' (:data:`BUSLESS_DRIVERS`) is configured.
    """
    state = _state()
    with _LOCK:
        if state.notifier is None:
            state.notifier = _make_notifier(state)
    return state.notifier.prepare(publisher_id=publisher_id)


def _make_notifier(state):
    conf = state.conf
    url = None
    driver = None
    if state.mode == 'local':
        for group, group_opts in messaging_opts.list_opts():
            if group == _NOTIFICATIONS_GROUP:
                conf.register_opts(group_opts, group=group)
        group = getattr(conf, _NOTIFICATIONS_GROUP)
        if not (group.transport_url or
                getattr(conf, 'transport_url', None)):
            # The fake driver only polls for listeners; there are none.
            url = 'fake://'
            if not group.driver or set(group.driver) - BUSLESS_DRIVERS:
                if group.driver:
                    LOG.warning('Notification drivers %s need a '
                                '[oslo_messaging_notifications] '
                                'transport_url; notifications are '
                                'dropped', ', '.join(group.driver))
                driver = 'noop'
    transport = messaging.get_notification_transport(conf, url=url)
    state.notification_transport = transport
    return messaging.Notifier(transport, serializer=_serializer(),
                              driver=driver)


# The local transport

class _LocalRegistry:
    """Endpoints per server name, shared by every thread of the process."""

    def __init__(self):
        self._lock = threading.Lock()
        self._endpoints = {}

    def register(self, server, endpoint):
        with self._lock:
            self._endpoints.setdefault(server, []).append(endpoint)

    def unregister(self, server, endpoint=None):
        with self._lock:
            if endpoint is None:
                self._endpoints.pop(server, None)
                return
            endpoints = self._endpoints.get(server, [])
            if endpoint in endpoints:
                endpoints.remove(endpoint)
            if not endpoints:
                self._endpoints.pop(server, None)

    def lookup(self, server):
        with self._lock:
            return list(self._endpoints.get(server, ()))

    def servers(self):
        with self._lock:
            return sorted(self._endpoints)

    def clear(self):
        with self._lock:
            self._endpoints.clear()


_LOCAL_REGISTRY = _LocalRegistry()


def register_local_endpoint(server, endpoint):
    """Serve ``endpoint``'s public methods as ``server`` in this process."""
    _LOCAL_REGISTRY.register(server, endpoint)


def unregister_local_endpoint(server, endpoint=None):
    """Stop serving ``endpoint`` (every endpoint when None) as ``server``.
    """
    _LOCAL_REGISTRY.unregister(server, endpoint)


def _wire(value):
    """``value`` as it would arrive after a trip over the wire."""
    return jsonutils.loads(jsonutils.dumps(value))


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


def _endpoint_target(endpoint):
    return getattr(endpoint, 'target', None) or messaging.Target()


def _find_method(endpoints, namespace, version, method):
    """The endpoint method a message is dispatched to, as oslo.messaging's
    dispatcher chooses it.
    """
    found_compatible = False
    for endpoint in endpoints:
        target = _endpoint_target(endpoint)
        if target.namespace != namespace:
            continue
        if not version_is_compatible(target.version, version):
            continue
        found_compatible = True
        if method.startswith('_'):
            continue
        func = getattr(endpoint, method, None)
        if callable(func):
            return func
    if found_compatible:
        raise messaging.NoSuchMethod(method)
    raise messaging.UnsupportedVersion(version, method=method)


def _travelled(exc):
    """The exception a remote caller would see for ``exc``."""
    if isinstance(exc, messaging.ExpectedException):
        exc = exc.exc_info[1]
    module = type(exc).__module__
    if module == 'builtins' or module in ALLOWED_EXMODS + EXTRA_EXMODS:
        return exc
    return messaging.RemoteError(
        type(exc).__name__, str(exc),
        ''.join(traceback.format_exception(exc)))


class LocalClient:
    """Client of the local transport, shaped like oslo.messaging's."""

    def __init__(self, target, version_cap=None, state=None,
                 serializer=None):
        self.target = target
        self.version_cap = version_cap
        self._state = state
        self._serializer = serializer or _serializer()

    def prepare(self, server=None, version=None, namespace=None,
                topic=None, **kwargs):
        """A client for the same target with some attributes replaced
        (``timeout``, ``retry`` and the like are accepted and ignored).
        """
        values = {'topic': topic, 'server': server, 'version': version,
                  'namespace': namespace}
        target = self.target(**{k: v for k, v in values.items()
                                if v is not None})
        return LocalClient(target, version_cap=self.version_cap,
                           state=self._state,
                           serializer=self._serializer)

    def can_send_version(self, version=None):
        version = version or self.target.version
        return (not self.version_cap or
                version_is_compatible(self.version_cap, version))

    def _message(self, ctxt, method, kwargs):
        version = self.target.version
        if not self.can_send_version(version):
            raise messaging.RPCVersionCapError(version=version,
                                               version_cap=self.version_cap)
        server = self.target.server
        endpoints = _LOCAL_REGISTRY.lookup(server)
        if not endpoints:
            raise exception.ManagerUnavailable(
                host=server, reason='no manager serves it in this process '
                '(rpc_transport = local)')
        func = _find_method(endpoints, self.target.namespace, version,
                            method)
        ctxt_dict = _wire(self._serializer.serialize_context(ctxt))
        args = _wire({k: self._serializer.serialize_entity(ctxt, v)
                      for k, v in kwargs.items()})
        return func, ctxt_dict, args

    def _dispatch(self, func, ctxt_dict, args):
        ctxt = self._serializer.deserialize_context(ctxt_dict)
        args = {k: self._serializer.deserialize_entity(ctxt, v)
                for k, v in args.items()}
        return ctxt, func(ctxt, **args)

    def call(self, ctxt, method, **kwargs):
        """Run ``method`` on the server's endpoint in this thread.

        :raises ManagerUnavailable: no endpoint serves the target's server.
        """
        func, ctxt_dict, args = self._message(ctxt, method, kwargs)
        try:
            rctxt, result = self._dispatch(func, ctxt_dict, args)
        except Exception as exc:
            raise _travelled(exc) from None
        return self._serializer.deserialize_entity(
            ctxt, _wire(self._serializer.serialize_entity(rctxt, result)))

    def cast(self, ctxt, method, **kwargs):
        """Run ``method`` on the server's endpoint on the cast thread pool.

        :raises ManagerUnavailable: no endpoint serves the target's server.
        """
        func, ctxt_dict, args = self._message(ctxt, method, kwargs)
        if self._state is None or self._state.executor is None:
            raise RuntimeError('the local transport has no cast executor')
        _submit(self._state, self._run_cast, method, func, ctxt_dict,
                args)

    def _run_cast(self, method, func, ctxt_dict, args):
        try:
            self._dispatch(func, ctxt_dict, args)
        except messaging.ExpectedException as exc:
            LOG.debug('Expected exception during cast of %s: %s', method,
                      exc.exc_info[1])
        except Exception:
            LOG.exception('Exception during cast of %s', method)


class LocalServer:
    """Server of the local transport: registers endpoints while running."""

    def __init__(self, target, endpoints):
        if not target.server:
            raise ValueError('a local RPC server needs target.server')
        self.target = target
        self.endpoints = list(endpoints)
        self._running = False

    def start(self):
        if self._running:
            return
        for endpoint in self.endpoints:
            register_local_endpoint(self.target.server, endpoint)
        self._running = True

    def stop(self):
        if not self._running:
            return
        for endpoint in self.endpoints:
            unregister_local_endpoint(self.target.server, endpoint)
        self._running = False

    def wait(self):
        """Nothing to wait for: local calls run in the caller's threads."""
