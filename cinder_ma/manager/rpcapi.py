"""Client side of the manager RPC API.

The API (and other managers) call the manager that owns a volume's backend
through :class:`ManagerAPI`; :class:`cinder_ma.manager.manager.Manager`
serves it with the same version constant. Payloads are ids and JSON
primitives, never database objects.
"""

import oslo_messaging as messaging

from cinder_ma import rpc


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


class ManagerAPI:
    """Client side of the manager RPC API.

    API version history:

    * 1.0 - Initial version: create_volume, delete_volume.
    * 1.1 - Attachments: initialize_connection and terminate_connection
      (calls to the manager of the volume's backend), attach_volume and
      detach_volume (casts to the manager of the instance's host; a
      detach can be waited for, as a call).
    * 1.2 - extend_volume (cast to the manager of the volume's backend).

    A new method or argument bumps the minor version here and in the
    history, is sent with that version (``_client(host, '1.1')``) and,
    while older managers may run, only when ``can_send_version`` says so.
    A major version bump needs a release where managers serve both.
    """

    RPC_API_VERSION = '1.2'
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
                target, version_cap=self.RPC_API_VERSION)
        return self._rpc_client

    def _client(self, host, version):
        return self.client.prepare(server=server_for(host), version=version)

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
                              attach_mode):
        """Have the backend of ``host`` connect a volume to the host of
        ``connector`` (call).

        :param host: the volume's host, ``node@backend#pool``.
        :param connector: the connector properties of the host that will
            connect (``host``, ``initiator``, ...).
        :param attach_mode: 'rw' or 'ro'.
        :returns: the connection info, ``{'driver_volume_type': ...,
            'data': {..., 'access_mode': attach_mode}}``.
        :raises DriverError: the backend could not make the connection.
        :raises InvalidVolume: the volume is not on that backend, or not
            in a status that can be attached.
        """
        return self._client(host, '1.1').call(
            context, 'initialize_connection', volume_id=volume_id,
            connector=connector, attach_mode=attach_mode)

    def terminate_connection(self, context, volume_id, host, connector):
        """Have the backend of ``host`` undo initialize_connection for the
        host of ``connector`` (call; idempotent).

        :raises DriverError: the backend could not remove the connection.
        """
        self._client(host, '1.1').call(
            context, 'terminate_connection', volume_id=volume_id,
            connector=connector)

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
            (``[manager] rpc_response_timeout`` applies).
        """
        client = self._client(instance_host, '1.1')
        if wait:
            client.call(context, 'detach_volume', attachment_id=attachment_id)
        else:
            client.cast(context, 'detach_volume', attachment_id=attachment_id)

    def extend_volume(self, context, volume_id, host, new_size):
        """Have the manager of ``host`` grow a volume (cast).

        The volume is recorded 'extending'; the manager gives it the new
        size and its attachment-derived status back, or keeps the old size
        with error_reason, and notifies the hosts of its attachments.
        """
        self._client(host, '1.2').cast(context, 'extend_volume',
                                       volume_id=volume_id,
                                       new_size=new_size)
