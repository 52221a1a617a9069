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

    A new method or argument bumps the minor version here and in the
    history, is sent with that version (``_client(host, '1.1')``) and,
    while older managers may run, only when ``can_send_version`` says so.
    A major version bump needs a release where managers serve both.
    """

    RPC_API_VERSION = '1.0'
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
