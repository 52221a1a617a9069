"""Contract and revert tests of the extend volume flow (real SQLite, real
files)."""

import os

import fixtures

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma import exception
from cinder_ma.manager import flows
from cinder_ma.manager.flows import extend_volume
from cinder_ma.manager.tasks import lifecycle
from cinder_ma.volume.drivers import base as driver_base
from tests import base
from tests.unit.manager.flows import test_create_volume
from tests.unit.manager import fixtures as mgr_fixtures


class ExtendVolumeFlowTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.driver = test_create_volume.make_driver(self.conf)
        self.volumes = mgr_fixtures.VolumeFactory(self.context)

    def _volume(self, attached=False):
        volume = self.volumes.create(status='available', size=1,
                                     multiattach=True)
        ref = self.volumes.ref(volume)
        self.driver.create_volume(ref)
        if attached:
            att = attachment_db.attachment_reserve(self.context, volume.id,
                                                   'i1')
            attachment_db.attachment_update(self.context, att.id,
                                            {'attach_status': 'attached'})
        db_api.volume_update(self.context, volume.id,
                             {'status': 'extending'})
        path = os.path.join(self.driver.volumes_dir, ref.name)
        store = {'context': self.context, 'volume_id': volume.id,
                 'volume': ref, 'new_size': 3}
        return volume, path, store

    def test_contract(self):
        flow = extend_volume.get_flow(self.driver)
        self.assertEqual({'context', 'volume_id', 'volume', 'new_size'},
                         flow.requires)
        self.assertEqual(set(), flow.provides)
        self.assertIsInstance(next(iter(flow)),
                              lifecycle.VolumeFromExtendingOnRevert)

    def test_success_restores_derived_status(self):
        for attached, status in ((False, 'available'), (True, 'in-use')):
            volume, path, store = self._volume(attached)
            flows.run_flow(extend_volume.get_flow(self.driver), store)
            vol = db_api.volume_get(self.context, volume.id)
            self.assertEqual((3, status), (vol.size, vol.status))
            self.assertEqual(3 * driver_base.GiB, os.stat(path).st_size)

    def test_failure_at_every_step(self):
        for index in range(len(extend_volume.get_flow(self.driver))):
            volume, path, store = self._volume(attached=True)
            flow = extend_volume.get_flow(self.driver)
            atom = list(flow)[index]
            reason = 'injected in %s' % atom.name
            self.useFixture(fixtures.MockPatchObject(
                atom, 'execute',
                side_effect=exception.DriverError(reason=reason)))
            self.assertRaises(exception.DriverError, flows.run_flow, flow,
                              store)
            vol = db_api.volume_get(self.context, volume.id)
            # Old size, attachments untouched, status derived from them.
            self.assertEqual((1, 'in-use'), (vol.size, vol.status))
            self.assertIn(reason, vol.error_reason)
