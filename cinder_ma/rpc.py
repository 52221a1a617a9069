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

"""RPC between the API and the managers: transports, serializer, clients.

Two transports, chosen by ``[DEFAULT] rpc_transport``:

``oslo``
    oslo.messaging (RabbitMQ in deployments, ``transport_url``), servers on
    the threading executor.

``local``
    The API and the manager run in one process (``cinder-ma-all``):
    :mod:`cinder_ma.rpc_local` dispatches a message to the endpoints served
    in this process with oslo.messaging's own dispatcher (calls inline,
    casts on a thread pool).

Both report errors the same way: exceptions of :mod:`cinder_ma.exception`
(and builtins) reach the caller as their own class, with the message the
manager formatted (``format_message()``, see :func:`as_raised`), anything
else as ``oslo_messaging.RemoteError``. Endpoints declare the exceptions
that are an expected outcome with ``oslo_messaging.expected_exceptions``
so that the server does not log them as failures.

Transports are created on first use, not by :func:`init`: a launcher forks
its workers after ``init`` and each must open its own connections. The
notification transport is made here too; the notifier is in
:mod:`cinder_ma.notifications`.
"""

import threading

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_messaging import opts as messaging_opts

from cinder_ma import context as cm_context
from cinder_ma import exception
from cinder_ma import rpc_local

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
        self.notification_bus = False
        self.local = None
        if self.mode == 'local':
            self.local = rpc_local.LocalTransport(
                _serializer(), ALLOWED_EXMODS + EXTRA_EXMODS)


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
    if state.local is not None:
        state.local.cleanup()
    for transport in (state.transport, state.notification_transport):
        if transport is not None:
            transport.cleanup()


def wait_for_casts(timeout=None):
    """Wait until the local casts submitted so far, and those they submit,
    have run.

    :returns: False on timeout, else True (also when nothing is pending or
        the transport is not the local one).
    """
    state = _STATE
    if state is None or state.local is None:
        return True
    return state.local.wait_for_casts(timeout)


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


def _local(state):
    if state.local is None:
        raise RuntimeError('rpc_transport is not local')
    return state.local


def register_local_endpoint(server, endpoint):
    """Serve ``endpoint``'s public methods as ``server`` in this process
    (local transport)."""
    _local(_state()).register(server, endpoint)


def unregister_local_endpoint(server, endpoint=None):
    """Stop serving ``endpoint`` (every endpoint when None) as ``server``.
    """
    _local(_state()).unregister(server, endpoint)


def get_notification_transport():
    """The transport of notifications, made on first use, closed by
    :func:`cleanup`, and whether it reaches a bus.

    ``[oslo_messaging_notifications] transport_url``, else
    ``transport_url``; with the local transport and neither set,
    oslo.messaging's ``fake://`` driver, which reaches nobody (it only
    polls for listeners; there are none).

    :returns: ``(transport, has_bus)``
    """
    state = _state()
    with _LOCK:
        if state.notification_transport is None:
            conf = state.conf
            url = None
            if state.mode == 'local':
                for group, group_opts in messaging_opts.list_opts():
                    if group == _NOTIFICATIONS_GROUP:
                        conf.register_opts(group_opts, group=group)
                group = getattr(conf, _NOTIFICATIONS_GROUP)
                if not (group.transport_url or
                        getattr(conf, 'transport_url', None)):
                    url = 'fake://'
            state.notification_transport = (
                messaging.get_notification_transport(conf, url=url))
            state.notification_bus = url is None
        return state.notification_transport, state.notification_bus


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
    if state.mode == 'local':
        return rpc_local.LocalClient(state.local, target,
                                     version_cap=version_cap)
    return OsloClient(messaging.get_rpc_client(
        _transport(state), target, version_cap=version_cap,
        serializer=_serializer(),
        timeout=state.conf.rpc_response_timeout,
        retry=SEND_RETRIES))


def as_raised(exc):
    """A cinder_ma exception as the manager raised it.

    oslo.messaging rebuilds an exception of an allowed module from its
    class, arguments and keyword arguments, as an instance of a subclass
    whose ``str()`` carries the manager's traceback, which must not reach
    API users (it is logged at debug level). The class raised here is the
    nearest class of ``exc`` defined in an allowed module, built from the
    message the manager formatted (``format_message()``) and the same
    keyword arguments; ``exc`` itself when it is already of such a class.
    """
    allowed = ALLOWED_EXMODS + EXTRA_EXMODS
    cls = next((klass for klass in type(exc).__mro__
                if klass.__module__ in allowed), None)
    if cls is None or cls is type(exc):
        return exc
    LOG.debug('Remote %s: %s', cls.__name__, str(exc))
    try:
        return cls(exc.format_message(), **exc.kwargs)
    except Exception:
        return exc


class OsloClient:
    """An oslo.messaging RPC client whose ``call()`` raises cinder_ma
    exceptions as themselves, without the remote traceback
    (:func:`as_raised`).
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
            clean = as_raised(exc)
            if clean is exc:
                raise
            raise clean from None


def get_server(target, endpoints):
    """An RPC server for ``endpoints``: ``.start()``, ``.stop()``,
    ``.wait()``.

    With the local transport, starting it serves the endpoints as
    ``target.server`` in this process and stopping it stops serving them.
    """
    state = _state()
    if state.mode == 'local':
        return rpc_local.LocalServer(state.local, target, endpoints)
    return messaging.get_rpc_server(
        _transport(state), target, endpoints, executor='threading',
        serializer=_serializer(),
        access_policy=messaging.DefaultRPCAccessPolicy)
