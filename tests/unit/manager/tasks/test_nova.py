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

"""TellNovaVolumeExtended on real SQLite rows; Nova is stood for by
tests.unit.manager.flows.test_extend_volume.Nova (the client's HTTP is
tested in tests/unit/manager/test_nova.py, the real Nova runs in the
``openstack`` gate)."""

from taskflow.types import failure as tf_failure

from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import volumes as volume_db
from cinder_ma.manager.tasks import nova as nova_tasks
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_extend_volume


class TellNovaTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.volumes = mgr_fixtures.VolumeFactory(self.context)
        self.nova = test_extend_volume.Nova(self.context)
        # Nova's API comes from the store (a run's own, as the manager's
        # manager_api): the task holds nothing.
        self.task = nova_tasks.TellNovaVolumeExtended()

    def attachment(self, volume, instance, status, manager_host=None):
        att = attachment_db.attachment_reserve(
            self.context, volume.id, instance, manager_host=manager_host)
        if status != 'reserved':
            attachment_db.attachment_update(
                self.context, att.id, {'attach_status': status})
        return att.id

    def test_instances_of_connected_external_attachments(self):
        volume = self.volumes.create(status='available', size=2,
                                     multiattach=True)
        told = [self.attachment(volume, 'i-attached', 'attached'),
                self.attachment(volume, 'i-attaching', 'attaching'),
                # A second attachment of one instance (a live migration's
                # destination): one event.
                self.attachment(volume, 'i-attached', 'attaching')]
        self.attachment(volume, 'i-reserved', 'reserved')
        self.attachment(volume, 'i-detaching', 'detaching')
        self.attachment(volume, 'i-host', 'attached', manager_host='h1')
        # No instance (Glance's cinder store, a host-only consumer).
        self.attachment(volume, None, 'attached')
        volume_db.volume_update(self.context, volume.id,
                                {'status': 'in-use'})
        self.nova.refused = {'i-attaching': 'Nova answered 404: gone'}
        not_told = self.task.execute(self.nova, self.context, volume.id, 2)
        self.assertEqual([(['i-attached', 'i-attaching'], volume.id, 2,
                           'in-use')], self.nova.calls)
        self.assertEqual({told[1]}, set(not_told))
        self.assertEqual(
            'extend to 2 GiB not told to Nova for instance i-attaching: '
            'Nova answered 404: gone',
            attachment_db.attachment_get(self.context,
                                         told[1]).error_reason)
        self.assertIsNone(attachment_db.attachment_get(
            self.context, told[0]).error_reason)

    def test_nothing_to_tell(self):
        volume = self.volumes.create(status='available', size=2)
        self.assertEqual({}, self.task.execute(
            self.nova, self.context, volume.id, 2))
        self.assertEqual([], self.nova.calls)

    def test_not_configured(self):
        volume = self.volumes.create(status='available', size=2)
        self.attachment(volume, 'i1', 'attached')
        self.nova.configured = False
        self.assertEqual({}, self.task.execute(
            self.nova, self.context, volume.id, 2))
        self.assertEqual([], self.nova.calls)

    def test_never_raises(self):
        # The volume is gone: logged, nothing told, no failure.
        self.assertEqual({}, self.task.execute(
            self.nova, self.context, 'nope', 2))

    def test_revert_undoes_nothing(self):
        try:
            raise RuntimeError('x')
        except RuntimeError:
            failure = tf_failure.Failure()
        for result in ({}, {'a': 'reason'}, failure):
            self.assertIsNone(self.task.revert(
                context=self.context, volume_id='v', new_size=2,
                result=result, flow_failures={}))
