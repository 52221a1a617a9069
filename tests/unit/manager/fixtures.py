"""Fixtures for tests of the manager side (usable by any test).

``LocalRPC`` sets up the in-process RPC transport; ``VolumeFactory``
records volumes the way the API does before it casts to a manager.
"""

import fixtures

from cinder_ma.db import api as db_api
from cinder_ma import rpc
from cinder_ma.volume.drivers import base as driver_base


class LocalRPC(fixtures.Fixture):
    """``rpc_transport = local``, initialized; cleaned up afterwards."""

    def __init__(self, conf):
        super().__init__()
        self.conf = conf

    def _setUp(self):
        rpc.cleanup()
        self.conf.set_override('rpc_transport', 'local')
        self.addCleanup(self.conf.clear_override, 'rpc_transport')
        rpc.init(self.conf)
        self.addCleanup(rpc.cleanup)


class VolumeFactory:
    """Volume rows as the API records them before casting."""

    def __init__(self, context, host='testhost@file#file'):
        self.context = context
        self.host = host
        self._type_id = None

    def _type(self):
        if self._type_id is None:
            vtype = db_api.volume_type_create(
                self.context, {'name': 'manager-tests'})
            self._type_id = vtype.id
        return self._type_id

    def create(self, status='creating', size=1, **values):
        row = {'project_id': self.context.project_id or 'fake-project',
               'user_id': self.context.user_id, 'size': size,
               'status': status, 'host': self.host,
               'volume_type_id': self._type()}
        row.update(values)
        return db_api.volume_create(self.context, row)

    @staticmethod
    def ref(volume):
        return driver_base.VolumeRef.for_volume(
            volume.id, volume.size, multiattach=volume.multiattach,
            host=volume.host)
