"""RPC endpoints of the manager: thin, each runs one flow.

An endpoint loads the volume, finds the backend of this node that holds it,
and runs the operation's flow with the volume as a frozen VolumeRef. The
flows record failures on the volume; the exception still propagates so
that the RPC server logs it (at debug level for the expected ones below).
"""

import dataclasses

from oslo_log import log as logging
import oslo_messaging as messaging

from cinder_ma.db import api as db_api
from cinder_ma import exception
from cinder_ma.manager import flows
from cinder_ma.manager.flows import create_volume as create_flow
from cinder_ma.manager.flows import delete_volume as delete_flow
from cinder_ma.manager import rpcapi
from cinder_ma.volume.drivers import base as driver_base
from cinder_ma.volume import status as vstatus

LOG = logging.getLogger(__name__)

#: Outcomes a caller can expect, not failures of the manager.
EXPECTED = (exception.VolumeNotFound, exception.Conflict,
            exception.InvalidVolume, exception.DriverError)


@dataclasses.dataclass(frozen=True)
class Backend:
    """A storage backend run by this node's manager.

    :ivar name: the backend's config section (``host@<name>``).
    :ivar driver_name: entry point name of the driver.
    :ivar driver: the VolumeDriver instance.
    :ivar config: the backend's BackendConfig.
    :ivar host: ``node@name``.
    """

    name: str
    driver_name: str
    driver: driver_base.VolumeDriver
    config: object
    host: str


def volume_ref(volume):
    """The VolumeRef drivers get for a volume row."""
    return driver_base.VolumeRef.for_volume(
        volume.id, volume.size, multiattach=volume.multiattach,
        host=volume.host)


class Manager:
    """The endpoints of ``cinder-ma-manager`` (RPC API version 1.x)."""

    target = messaging.Target(version=rpcapi.ManagerAPI.RPC_API_VERSION)

    def __init__(self, host, backends, hypervisor=None):
        """:param backends: {section name: :class:`Backend`}."""
        self.host = host
        self.backends = dict(backends)
        self.hypervisor = hypervisor

    def _backend(self, volume):
        node = rpcapi.server_for(volume.host) if volume.host else None
        backend = self.backends.get(rpcapi.backend_of(volume.host))
        if node != self.host or backend is None:
            raise exception.InvalidVolume(
                reason='volume %s is on %s, which is not a backend of the '
                       'manager of %s' % (volume.id, volume.host, self.host))
        return backend

    def _load(self, context, volume_id, expected_status, error_status):
        """The volume and its backend, or a reason it cannot proceed."""
        volume = db_api.volume_get(context, volume_id)
        if volume.status != expected_status:
            raise exception.InvalidVolume(
                reason='volume %s is %s, not %s' % (
                    volume_id, volume.status, expected_status))
        try:
            return volume, self._backend(volume)
        except exception.InvalidVolume as exc:
            LOG.error('%s', exc)
            try:
                db_api.volume_update(
                    context, volume_id,
                    {'status': error_status, 'error_reason': str(exc)},
                    expected={'status': expected_status})
            except (exception.VolumeNotFound, exception.Conflict):
                pass
            raise

    @messaging.expected_exceptions(*EXPECTED)
    def create_volume(self, context, volume_id):
        """Create a volume recorded as 'creating' on this node."""
        volume, backend = self._load(context, volume_id, vstatus.CREATING,
                                     vstatus.ERROR)
        flows.run_flow(create_flow.get_flow(backend.driver),
                       {'context': context, 'volume_id': volume_id,
                        'volume': volume_ref(volume)})
        LOG.info('Created volume %s on %s', volume_id, volume.host)

    @messaging.expected_exceptions(*EXPECTED)
    def delete_volume(self, context, volume_id):
        """Delete a volume recorded as 'deleting' on this node."""
        volume, backend = self._load(context, volume_id, vstatus.DELETING,
                                     vstatus.ERROR_DELETING)
        flows.run_flow(delete_flow.get_flow(backend.driver),
                       {'context': context, 'volume_id': volume_id,
                        'volume': volume_ref(volume)})
        LOG.info('Deleted volume %s from %s', volume_id, volume.host)
