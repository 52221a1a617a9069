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

"""Client side of the manager RPC API.

The API (and other managers) call the manager that owns a volume's backend
through :class:`ManagerAPI`; :class:`cinder_ma.manager.manager.Manager`
serves it with the same version constant. Payloads are ids and JSON
primitives, never database objects.
"""

import threading

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_serialization import jsonutils

from cinder_ma.conf import upgrade_levels
from cinder_ma import connection_info
from cinder_ma.db import services as service_db
from cinder_ma import exception
from cinder_ma import rpc

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

#: services.capabilities key in which a manager reports the RPC API
#: version it serves (from 1.4 on).
VERSION_KEY = 'rpc_api_version'
#: The version of a manager that reports none (1.2 and older).
UNREPORTED_VERSION = '1.2'

_AUTO_LOCK = threading.Lock()
_AUTO_VERSION = None

#: services.binary of a node's manager and of its backends.
MANAGER_BINARY = 'cinder-ma-manager'
VOLUME_BINARY = 'cinder-ma-volume'


def server_for(host):
    """The RPC server (node name) of a volume host.

    ``'node@backend#pool'``, ``'node@backend'`` and ``'node'`` all give
    ``'node'``: one manager per node serves every backend of the node.
    """
    if not host:
        raise ValueError('a volume without a host has no manager')
    return host.split('#', 1)[0].split('@', 1)[0]


def backend_of(host):
    """The backend (section) name of ``'node@backend#pool'``, or None."""
    if not host or '@' not in host:
        return None
    return host.split('#', 1)[0].split('@', 1)[1]


# The newest heartbeat this process has read of each (host, binary) found
# up. A service up at heartbeat T stays up, by definition, until T is
# ``service_down_time`` old, and heartbeats only move forward: until then
# check_up answers from here instead of reading the services row before
# every call; after that it reads the row again.
#: What a manager's failed call raised when it lost its database (a
#: :class:`oslo_messaging.RemoteError`'s ``exc_type``): answered 503.
REMOTE_OUTAGES = frozenset(['DBConnectionError', 'OperationalError',
                            'DBDeadlock'])

_SEEN_UP = {}


def check_up(context, host, binary):
    """Refuse promptly to call a manager that is down.

    :param host: the services row's host (a node, or ``node@backend``).
    :raises ManagerUnavailable: its row exists and has had no heartbeat
        for ``[manager] service_down_time`` (a host never registered is
        left to the call's timeout).
    """
    if service_db.heartbeat_is_recent(_SEEN_UP.get((host, binary))):
        return
    service = service_db.service_get_by_host_and_binary(context, host, binary)
    if service is None:
        return
    if not service_db.service_is_up(service):
        raise exception.ManagerUnavailable(
            host=host, reason='it is down (no heartbeat for %d s)' %
            CONF.manager.service_down_time)
    _SEEN_UP[host, binary] = service.heartbeat_at


def forget_heartbeats():
    """Forget the heartbeats :func:`check_up` has seen (for a process
    whose database is replaced, as tests do)."""
    _SEEN_UP.clear()


def reported_version(context, host):
    """The manager RPC API version the manager of node ``host`` reports
    in the services table (1.2 when it reports none), or None when no
    manager of that node is registered."""
    service = service_db.service_get_by_host_and_binary(context, host,
                                                        MANAGER_BINARY)
    return None if service is None else _version_of(service)


def require_reported(context, host, version, what):
    """Refuse, before anything is sent, what needs RPC API ``version``
    of the manager of node ``host`` when its services row reports an
    older one (a node with no registered manager is left to the call).

    :raises ServiceTooOld: with ``what`` in its message.
    """
    reported = reported_version(context, host)
    if reported is not None and \
            _version_key(reported) < _version_key(version):
        raise exception.ServiceTooOld(
            message='Cannot %s on %s: its manager serves RPC API %s and '
                    'this needs %s; upgrade it.' % (what, host, reported,
                                                    version))


def _version_of(service):
    """The RPC API version a manager's services row reports."""
    try:
        caps = jsonutils.loads(service.capabilities or '{}')
    except ValueError:
        caps = {}
    if not isinstance(caps, dict):
        caps = {}
    return caps.get(VERSION_KEY) or UNREPORTED_VERSION


def backend_row(host):
    """The services row host of a volume host (``node@backend#pool``):
    ``node@backend``."""
    return host.split('#', 1)[0]


# Defined below every layer (cinder_ma.connection_info); named here too
# for the manager's side, which writes them.
SCOPE_KEY = connection_info.SCOPE_KEY
ATTACHMENT_SCOPE = connection_info.ATTACHMENT_SCOPE
is_attachment_scoped = connection_info.is_attachment_scoped


class ManagerAPI:
    """Client side of the manager RPC API.

    API version history:

    * 1.0 - Initial version: create_volume, delete_volume.
    * 1.1 - Attachments: initialize_connection and terminate_connection
      (calls to the manager of the volume's backend), attach_volume and
      detach_volume (casts to the manager of the instance's host; a
      detach can be waited for, as a call).
    * 1.2 - extend_volume (cast to the manager of the volume's backend).
    * 1.3 - get_instance_owner (call to the manager of an instance's
      host).
    * 1.4 - list_connections (call: what the host's backends and
      hypervisor hold, for audits); managers report their version in
      the services table (``capabilities['rpc_api_version']``) for
      ``[upgrade_levels] manager = auto``.
    * 1.5 - initialize_connection and terminate_connection take
      ``attachment_id``: a backend with per-attachment connections makes
      and ends the connection of one attachment (fencing); promote_attachment
      (call to the manager of an attachment's host: the standby becomes
      the writer and its disk is reconnected in place).
    * 1.6 - resize_attachment (call to the manager of an attachment's
      host: its hypervisor driver makes the instance see the new size of
      a volume extended online).
    * 1.7 - create_snapshot, delete_snapshot and revert_to_snapshot
      (casts to the manager of the volume's backend); create_volume
      makes a volume recorded with a ``snapshot_id`` or
      ``source_volid`` from that source (the API sends such creates to
      1.7 managers only).
    * 1.8 - connect_attachment, disconnect_attachment, fence_attachment,
      reconnect_attachment and promote_consumer_attachment (calls to the
      manager of the volume's backend, which runs the flows of consumers'
      attachments under claims: the API runs no flow).
    * 1.9 - connect_attachment and disconnect_attachment take
      ``records``: the attachment (claimed by the caller, whose claim
      they take over) and its volume as the caller read and wrote them,
      and, for a connect, the QoS specs of the volume's type, so that
      the manager need not read them again.

    A new method or argument bumps the minor version here and in the
    history, is sent with that version (``_client(host, '1.1')``) and,
    while older managers may run, only when ``can_send_version`` says so.
    A major version bump needs a release where managers serve both.

    ``[upgrade_levels] manager`` caps the version sent (see
    :func:`version_cap`): a call above the cap is refused with
    :class:`~cinder_ma.exception.ServiceTooOld` (or degraded where an
    older form exists).
    """

    RPC_API_VERSION = '1.9'
    TOPIC = 'cinder-ma-manager'

    def __init__(self):
        self._rpc_client = None

    @property
    def client(self):
        # Created on first use: the API builds this object per request, and
        # rpc.init() may run after import.
        if self._rpc_client is None:
            target = messaging.Target(topic=self.TOPIC,
                                      version=self.RPC_API_VERSION)
            self._rpc_client = rpc.get_client(
                target, version_cap=version_cap())
        return self._rpc_client

    def can_send_version(self, version):
        """Whether the pin allows messages of ``version``."""
        return self.client.can_send_version(version)

    def _require(self, version, what, host):
        if not self.can_send_version(version):
            raise exception.ServiceTooOld(
                what=what, host=host, version=version,
                cap=self.client.version_cap)

    def _client(self, host, version):
        return self.client.prepare(server=server_for(host), version=version)

    def _call(self, context, service_host, binary, client, method,
              **kwargs):
        """A call to a manager that is up; a timeout names its host.

        :raises ManagerUnavailable: it is down.
        :raises ManagerTimeout: it did not answer in time.
        """
        check_up(context, service_host, binary)
        try:
            return client.call(context, method, **kwargs)
        except messaging.MessagingTimeout as exc:
            raise exception.ManagerTimeout(
                host=service_host,
                reason='no answer to %s within %d s (%s)' % (
                    method, CONF.rpc_response_timeout,
                    exc)) from None
        except messaging.RemoteError as exc:
            if exc.exc_type not in REMOTE_OUTAGES:
                raise
            # The manager lost its database: an outage (503), not a bug.
            raise exception.ManagerUnavailable(
                host=service_host,
                reason='its database is unavailable (%s)' %
                exc.exc_type) from None

    def _backend_call(self, context, volume_host, method, what,
                      version='1.8', **kwargs):
        """A call (1.8, or ``version``) to the manager of a volume's
        backend, which owns the flows of its consumers' attachments."""
        self._require('1.8', what, volume_host)
        return self._call(context, backend_row(volume_host), VOLUME_BINARY,
                          self._client(volume_host, version), method,
                          **kwargs)

    def _with_records(self, kwargs, records):
        """The version of a call that hands ``records`` over (1.9), or
        1.8 without them (an older manager reads them itself)."""
        if records is not None and self.can_send_version('1.9'):
            kwargs['records'] = records
            return '1.9'
        return '1.8'

    def connect_attachment(self, context, volume_host, attachment_id,
                           connector, kind, handover=None, records=None):
        """Have the manager of the volume's backend connect a consumer's
        reserved attachment to the host of ``connector`` (call, 1.8).

        :param kind: 'create', 'update' or 'legacy' (see
            :mod:`cinder_ma.manager.flows.connect_attachment`).
        :param handover: the claim the caller holds on the attachment
            (a reservation of the same request), taken over by the
            manager.
        :param records: with ``handover``: the attachment and volume
            records as the caller read and claimed them, with the QoS
            specs of the volume's type, as JSON text
            (:func:`cinder_ma.db.records.handover_dumps`) (1.9; left out
            for an older manager).
        :returns: the attachment as connected, as JSON primitives
            (:func:`cinder_ma.db.records.attachment_to_primitive`), or
            None from a manager that does not answer it.
        """
        kwargs = {'attachment_id': attachment_id, 'connector': connector,
                  'kind': kind, 'handover': handover}
        version = self._with_records(kwargs, records)
        return self._backend_call(context, volume_host, 'connect_attachment',
                                  'connect attachment %s' % attachment_id,
                                  version=version, **kwargs)

    def disconnect_attachment(self, context, volume_host, attachment_id,
                              terminate=False, handover=None,
                              records=None):
        """Have the manager of the volume's backend end a consumer's
        attachment's connection and, unless ``terminate``, delete the
        attachment (recorded 'detaching') (call, 1.8).

        :param records: with ``handover``: the attachment and volume
            records as :meth:`connect_attachment`'s, without QoS specs
            (1.9)."""
        kwargs = {'attachment_id': attachment_id, 'terminate': terminate,
                  'handover': handover}
        version = self._with_records(kwargs, records)
        self._backend_call(context, volume_host, 'disconnect_attachment',
                           'disconnect attachment %s' % attachment_id,
                           version=version, **kwargs)

    def fence_attachment(self, context, volume_host, attachment_id):
        """Have the manager of the volume's backend revoke the connection
        of a consumer's attachment recorded fenced (call, 1.8)."""
        self._backend_call(context, volume_host, 'fence_attachment',
                           'fence attachment %s' % attachment_id,
                           attachment_id=attachment_id)

    def reconnect_attachment(self, context, volume_host, attachment_id,
                             connector):
        """Have the manager of the volume's backend connect a consumer's
        fenced attachment again with a new connector (call, 1.8)."""
        self._backend_call(context, volume_host, 'reconnect_attachment',
                           'reconnect attachment %s' % attachment_id,
                           attachment_id=attachment_id, connector=connector)

    def promote_consumer_attachment(self, context, volume_host,
                                    attachment_id, revoke_ids=()):
        """Have the manager of the volume's backend carry out the
        promotion of a consumer's attachment recorded as its volume's
        writer: revoke ``revoke_ids``, then make its read-write
        connection (call, 1.8)."""
        self._backend_call(context, volume_host,
                           'promote_consumer_attachment',
                           'promote attachment %s' % attachment_id,
                           attachment_id=attachment_id,
                           revoke_ids=list(revoke_ids))

    def create_volume(self, context, volume_id, host):
        """Have the manager of ``host`` create a volume (cast).

        The volume is recorded in status 'creating' with its host; the
        manager makes it 'available', or 'error' with error_reason.
        """
        self._client(host, '1.0').cast(context, 'create_volume',
                                       volume_id=volume_id)

    def delete_volume(self, context, volume_id, host):
        """Have the manager of ``host`` delete a volume (cast).

        The volume is in status 'deleting'; the manager deletes its storage
        and its record, or sets 'error_deleting' with error_reason.
        """
        self._client(host, '1.0').cast(context, 'delete_volume',
                                       volume_id=volume_id)

    def initialize_connection(self, context, volume_id, host, connector,
                              attach_mode, attachment_id=None):
        """Have the backend of ``host`` connect a volume to the host of
        ``connector`` (call).

        :param host: the volume's host, ``node@backend#pool``.
        :param connector: the connector properties of the host that will
            connect (``host``, ``initiator``, ...).
        :param attach_mode: 'rw' or 'ro'.
        :param attachment_id: the attachment the connection is for; sent
            (1.5) unless ``[upgrade_levels] manager`` pins an older
            version, when the connection is made per host as before.
        :returns: the connection info, ``{'driver_volume_type': ...,
            'data': {..., 'access_mode': attach_mode}}``, with
            :data:`SCOPE_KEY` when it is the attachment's own.
        :raises DriverError: the backend could not make the connection.
        :raises InvalidVolume: the volume is not on that backend, or not
            in a status that can be attached.
        """
        kwargs = {'volume_id': volume_id, 'connector': connector,
                  'attach_mode': attach_mode}
        version = '1.1'
        if attachment_id is not None and self.can_send_version('1.5'):
            version = '1.5'
            kwargs['attachment_id'] = attachment_id
        return self._call(
            context, backend_row(host), VOLUME_BINARY,
            self._client(host, version), 'initialize_connection', **kwargs)

    def terminate_connection(self, context, volume_id, host, connector,
                             attachment_id=None):
        """Have the backend of ``host`` undo initialize_connection for the
        host of ``connector`` (call; idempotent).

        :param attachment_id: (1.5) end only the connection of this
            attachment (connection info with :data:`SCOPE_KEY`), at once.
        :raises DriverError: the backend could not remove the connection.
        :raises ServiceTooOld: ``attachment_id`` and ``[upgrade_levels]
            manager`` below 1.5 (a connection of one attachment is never
            ended as a host's: that would cut off the host's others).
        """
        kwargs = {'volume_id': volume_id, 'connector': connector}
        version = '1.1'
        if attachment_id is not None:
            self._require('1.5', 'end the connection of one attachment',
                          host)
            version = '1.5'
            kwargs['attachment_id'] = attachment_id
        self._call(context, backend_row(host), VOLUME_BINARY,
                   self._client(host, version), 'terminate_connection',
                   **kwargs)

    def attach_volume(self, context, attachment_id, instance_host):
        """Have the manager of ``instance_host`` run the attach flow of a
        reserved attachment (cast).

        The attachment ends 'attached', or 'error_attaching' with nothing
        left connected.
        """
        self._client(instance_host, '1.1').cast(
            context, 'attach_volume', attachment_id=attachment_id)

    def detach_volume(self, context, attachment_id, instance_host,
                      wait=False):
        """Have the manager of ``instance_host`` run the detach flow of an
        attachment in 'detaching' (cast; a call when ``wait``).

        The attachment is deleted (detached), or ends 'error_detaching'.

        :param wait: return once the flow ran, and raise its failure
            (``[DEFAULT] rpc_response_timeout`` applies).
        """
        client = self._client(instance_host, '1.1')
        if wait:
            self._call(context, server_for(instance_host), MANAGER_BINARY,
                       client, 'detach_volume', attachment_id=attachment_id)
        else:
            client.cast(context, 'detach_volume', attachment_id=attachment_id)

    def get_instance_owner(self, context, instance_uuid, instance_host):
        """The project owning an instance of ``instance_host``, as its
        hypervisor driver reads it (call).

        :returns: the project id, or None (no such instance there, or its
            owner is unknown).
        """
        return self._client(instance_host, '1.3').call(
            context, 'get_instance_owner', instance_uuid=instance_uuid)

    def extend_volume(self, context, volume_id, host, new_size):
        """Have the manager of ``host`` grow a volume (cast).

        The volume is recorded 'extending'; the manager gives it the new
        size and its attachment-derived status back, or keeps the old size
        with error_reason, and notifies the hosts of its attachments.
        """
        self._client(host, '1.2').cast(context, 'extend_volume',
                                       volume_id=volume_id,
                                       new_size=new_size)

    def resize_attachment(self, context, attachment_id, instance_host,
                          new_size):
        """Have the manager of ``instance_host`` make the instance of an
        attachment it attached see the new size of its volume, grown
        online (call, 1.6).

        :param new_size: the volume's new size in GiB.
        :raises ServiceTooOld: ``[upgrade_levels] manager`` is below 1.6,
            or the manager of ``instance_host`` reports an older version
            (nothing is sent).
        :raises ManagerUnavailable: that manager is down.
        :raises ManagerTimeout: it did not answer in time.
        :raises DriverError: its hypervisor driver could not resize the
            disk (or has no such disk).
        """
        what = 'resize the disk of attachment %s' % attachment_id
        self._require('1.6', what, instance_host)
        node = server_for(instance_host)
        version = reported_version(context, node)
        if version is not None and \
                _version_key(version) < _version_key('1.6'):
            raise exception.ServiceTooOld(
                message='Cannot %s on %s: its manager serves RPC API %s '
                        'and this needs 1.6; upgrade it.' % (
                            what, instance_host, version))
        self._call(context, node, MANAGER_BINARY,
                   self._client(instance_host, '1.6'), 'resize_attachment',
                   attachment_id=attachment_id, new_size=new_size)

    def promote_attachment(self, context, attachment_id, instance_host,
                           revoke_ids=()):
        """Have the manager of ``instance_host`` carry out the promotion
        of one of its attachments, recorded as the writer (call, 1.5):
        end the connections of the fenced attachments ``revoke_ids``, then
        make the attachment's read-write connection and switch the
        instance's disk to it in place.

        :raises ServiceTooOld: ``[upgrade_levels] manager`` is below 1.5.
        :raises ManagerUnavailable: that manager is down.
        """
        self._require('1.5', 'promote an attachment', instance_host)
        self._call(context, server_for(instance_host), MANAGER_BINARY,
                   self._client(instance_host, '1.5'), 'promote_attachment',
                   attachment_id=attachment_id,
                   revoke_ids=list(revoke_ids))

    def require_snapshots(self, context, host):
        """Refuse, before anything is recorded, a snapshot, revert or
        create from a source for the manager of ``host`` when the pin or
        that manager's reported version is below 1.7.

        :raises ServiceTooOld:
        """
        self._require('1.7', 'take snapshots or copy volumes', host)
        require_reported(context, server_for(host), '1.7',
                         'take snapshots or copy volumes')

    def create_snapshot(self, context, snapshot_id, host):
        """Have the manager of ``host`` (the volume's) take a snapshot
        recorded 'creating' (cast, 1.7); it ends 'available', or 'error'
        with error_reason."""
        self._client(host, '1.7').cast(context, 'create_snapshot',
                                       snapshot_id=snapshot_id)

    def delete_snapshot(self, context, snapshot_id, host):
        """Have the manager of ``host`` delete a snapshot recorded
        'deleting' (cast, 1.7); its record is deleted, or it ends
        'error_deleting' with error_reason."""
        self._client(host, '1.7').cast(context, 'delete_snapshot',
                                       snapshot_id=snapshot_id)

    def revert_to_snapshot(self, context, volume_id, snapshot_id, host):
        """Have the manager of ``host`` revert a volume recorded
        'reverting' to its snapshot recorded 'restoring' (cast, 1.7)."""
        self._client(host, '1.7').cast(context, 'revert_to_snapshot',
                                       volume_id=volume_id,
                                       snapshot_id=snapshot_id)

    def list_connections(self, context, host):
        """What the backends and the hypervisor of the manager of ``host``
        hold (call, 1.4), for audits.

        :returns: ``{'host': ..., 'backends': {name: [{'volume_id',
            'host'}, ...] or None}, 'hypervisor': [{'instance_uuid',
            'attachment_id'}, ...] or None}``; None where a driver cannot
            list, a string where it failed.
        :raises ServiceTooOld: ``[upgrade_levels] manager`` is below 1.4.
        """
        self._require('1.4', 'list connections', host)
        return self._client(host, '1.4').call(context, 'list_connections')


def _reported_versions(context):
    """The RPC API versions the registered managers report."""
    return [_version_of(svc) for svc in service_db.service_get_all(
        context, filters={'topic': ManagerAPI.TOPIC})
        if svc.binary == MANAGER_BINARY]


def _version_key(version):
    return tuple(int(p) for p in version.split('.'))


def lowest_reported_version(context):
    """The lowest RPC API version of the registered managers, or None
    when none is registered."""
    versions = _reported_versions(context)
    return min(versions, key=_version_key) if versions else None


def version_cap(conf=None):
    """The highest manager RPC version to send: ``[upgrade_levels]
    manager``, with ``auto`` resolved once per process to the lowest
    version the managers report (this release's when none is registered
    yet)."""
    global _AUTO_VERSION
    conf = conf or CONF
    pin = conf.upgrade_levels.manager
    if not pin:
        return ManagerAPI.RPC_API_VERSION
    if pin != upgrade_levels.AUTO:
        return pin
    with _AUTO_LOCK:
        if _AUTO_VERSION is None:
            from cinder_ma import context as cm_context

            lowest = lowest_reported_version(
                cm_context.get_admin_context())
            _AUTO_VERSION = lowest or ManagerAPI.RPC_API_VERSION
            LOG.info('Manager RPC API pinned to %s (upgrade_levels '
                     'manager = auto)', _AUTO_VERSION)
        return _AUTO_VERSION


def reset_version_cap():
    """Forget the version ``auto`` resolved to (tests, SIGHUP)."""
    global _AUTO_VERSION
    with _AUTO_LOCK:
        _AUTO_VERSION = None
