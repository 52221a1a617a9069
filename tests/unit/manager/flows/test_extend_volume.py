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

"""Contract and revert tests of the extend volume flow (real SQLite, real
files); the managers of the attachments' hosts are stood for by
:class:`Hosts` (their RPC API has its own tests, and the whole path runs
in tests/unit/manager/test_manager.py and the API's end-to-end tests),
Nova by :class:`Nova` (the client's HTTP requests are tested in
tests/unit/manager/test_nova.py against a local HTTP server, and the real
Nova runs in the ``openstack`` gate, tests/openstack)."""

import os
import threading
import time

import fixtures
from taskflow.patterns import unordered_flow

from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import quotas as quota_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.manager import flows
from cinder_ma.manager.flows import extend_volume
from cinder_ma.manager.tasks import lifecycle
from cinder_ma.manager.tasks import volume as volume_tasks
from cinder_ma.volume.drivers import base as driver_base
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures
from tests.unit.manager.flows import test_create_volume


class Hosts:
    """Stands for ManagerAPI.resize_attachment: records the calls, and
    raises what ``failures`` holds for a host."""

    def __init__(self):
        self.calls = []
        self.failures = {}

    def resize_attachment(self, context, attachment_id, instance_host,
                          new_size):
        self.calls.append((attachment_id, instance_host, new_size))
        exc = self.failures.get(instance_host)
        if exc is not None:
            raise exc


class Nova:
    """Stands for cinder_ma.manager.nova.NovaAPI: records each call with
    the volume's size and status when Nova is told, and answers
    ``refused`` {instance uuid: reason} (None for the others)."""

    def __init__(self, context, configured=True):
        self.context = context
        self.configured = configured
        self.calls = []
        self.refused = {}
        self.error = None

    def extend_volume(self, context, instance_uuids, volume_id):
        volume = volume_db.volume_get(self.context, volume_id)
        self.calls.append((list(instance_uuids), volume_id, volume.size,
                           volume.status))
        if self.error is not None:
            raise self.error
        return {uuid: self.refused.get(uuid) for uuid in instance_uuids}


class ExtendVolumeFlowTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.driver = test_create_volume.make_driver(self.conf)
        self.volumes = mgr_fixtures.VolumeFactory(self.context)
        self.hosts = Hosts()
        self.nova = Nova(self.context, configured=False)

    volume_id = None

    def flow(self):
        # As the manager builds it: one resize per attachment of a host.
        targets = ()
        if self.volume_id:
            targets = volume_tasks.resize_targets(
                volume_db.volume_get(self.context, self.volume_id))
        return extend_volume.get_flow(self.driver, targets)

    def run_flow(self, store, flow=None):
        return flows.run_once(flow or self.flow(), store,
                              engine=flows.PARALLEL)

    def _attach(self, volume, instance, manager_host=None, info=None):
        att = attachment_db.attachment_reserve(
            self.context, volume.id, instance, manager_host=manager_host)
        values = {'attach_status': 'attached'}
        if info is not None:
            values.update(connection_info=info, attached_host=manager_host or
                          'consumer-host')
        attachment_db.attachment_update(self.context, att.id, values)
        return att.id

    def _volume(self, attached=False, hosts=()):
        """A 1 GiB volume being extended to 3, attached by an external
        consumer (``attached``) and through the managers of ``hosts``."""
        volume = self.volumes.create(status='available', size=1,
                                     multiattach=True)
        ref = self.volumes.ref(volume)
        self.driver.create_volume(ref)
        attachments = []
        if attached:
            attachments.append(self._attach(volume, 'i1', info={
                'driver_volume_type': 'file',
                'data': {'path': '/p', 'volume_size': 1}}))
        for index, host in enumerate(hosts):
            attachments.append(self._attach(
                volume, 'i-%s' % host, manager_host=host, info={
                    'driver_volume_type': 'file', 'data': {'path': '/p'}}))
        volume_db.volume_update(self.context, volume.id,
                                {'status': 'extending'})
        path = os.path.join(self.driver.volumes_dir, ref.name)
        store = {'context': self.context, 'volume_id': volume.id,
                 'volume': ref, 'new_size': 3, 'manager_api': self.hosts,
                 'nova_api': self.nova}
        self.volume_id = volume.id
        return volume, path, store, attachments

    def sizes(self, attachment_ids):
        """The size each attachment's connection info records."""
        return [attachment_db.attachment_get(
            self.context, a).connection_info['data'].get('volume_size')
            for a in attachment_ids]

    def reasons(self, attachment_ids):
        return [attachment_db.attachment_get(self.context, a).error_reason
                for a in attachment_ids]

    def test_contract(self):
        flow = self.flow()
        self.assertEqual({'context', 'volume_id', 'volume', 'new_size',
                          'nova_api'}, flow.requires)
        self.assertEqual({'not_resized', 'nova_not_told'}, flow.provides)
        self.assertIsInstance(next(iter(flow)),
                              lifecycle.VolumeFromExtendingOnRevert)
        self.assertEqual(
            ['VolumeFromExtendingOnRevert', 'ReleaseExtendQuotaOnRevert',
             'ExtendVolumeOnBackend', 'resize_attached_disks',
             'FinishExtend', 'TellNovaVolumeExtended'],
            [atom.name if isinstance(atom, unordered_flow.Flow)
             else type(atom).__name__ for atom in flow])
        # With attachments made through managers: one resize each, in an
        # unordered flow, all of them before FinishExtend.
        volume, path, store, atts = self._volume(hosts=('c1', 'c2'))
        flow = self.flow()
        resize = list(flow)[3]
        self.assertIsInstance(resize, unordered_flow.Flow)
        self.assertEqual({'not_resized.' + a for a in atts},
                         set(resize.provides))
        self.assertEqual({'manager_api', 'context', 'volume_id',
                          'new_size'}, set(resize.requires))
        self.assertEqual(set(resize.provides),
                         set(list(flow)[4].requires) - {
                             'context', 'volume_id', 'new_size'})
        # Nova is told after FinishExtend, through the store's nova_api.
        self.assertEqual({'nova_api', 'context', 'volume_id', 'new_size'},
                         set(list(flow)[5].requires))

    def test_success_restores_derived_status(self):
        for attached, status in ((False, 'available'), (True, 'in-use')):
            volume, path, store, atts = self._volume(attached)
            results = self.run_flow(store)
            self.assertEqual({}, results['not_resized'])
            vol = volume_db.volume_get(self.context, volume.id)
            self.assertEqual((3, status), (vol.size, vol.status))
            self.assertIsNone(vol.error_reason)
            self.assertEqual(3 * driver_base.GiB, os.stat(path).st_size)
            # The external consumer's connection info says the new size;
            # no host manager was called for it.
            self.assertEqual([3] * len(atts), self.sizes(atts))
        self.assertEqual([], self.hosts.calls)

    def test_every_host_resizes(self):
        volume, path, store, atts = self._volume(
            attached=True, hosts=('compute1', 'compute2'))
        results = self.run_flow(store)
        self.assertEqual({}, results['not_resized'])
        self.assertEqual([(atts[1], 'compute1', 3), (atts[2], 'compute2', 3)],
                         sorted(self.hosts.calls, key=lambda c: c[1]))
        vol = volume_db.volume_get(self.context, volume.id)
        self.assertEqual((3, 'in-use', None),
                         (vol.size, vol.status, vol.error_reason))
        self.assertEqual([3, 3, 3], self.sizes(atts))
        self.assertEqual([None] * 3, self.reasons(atts))

    def test_hosts_that_could_not_are_reported(self):
        volume, path, store, atts = self._volume(
            attached=True, hosts=('compute1', 'compute2', 'compute3'))
        self.hosts.failures = {
            'compute1': exception.DriverError(reason='blockResize refused'),
            'compute3': exception.ManagerUnavailable(
                host='compute3', reason='it is down (no heartbeat for 60 s)'),
        }
        results = self.run_flow(store)
        not_resized = results['not_resized']
        self.assertEqual({atts[1], atts[3]}, set(not_resized))
        # The storage grew: the volume has its new size and status, with
        # a reason naming what did not follow.
        vol = volume_db.volume_get(self.context, volume.id)
        self.assertEqual((3, 'in-use'), (vol.size, vol.status))
        self.assertEqual(3 * driver_base.GiB, os.stat(path).st_size)
        self.assertIn('extend to 3 GiB: the volume grew, but 2 '
                      'attachment(s) made through a manager do not see the '
                      'new size', vol.error_reason)
        for att in (atts[1], atts[3]):
            self.assertIn('attachment %s: ' % att, vol.error_reason)
        reasons = self.reasons(atts)
        self.assertEqual([None, None], [reasons[0], reasons[2]])
        self.assertEqual(
            'extend to 3 GiB not seen by instance i-compute1 on host '
            'compute1: Storage driver error: blockResize refused',
            reasons[1])
        self.assertEqual(
            'extend to 3 GiB not seen by instance i-compute3 on host '
            'compute3: The manager for compute3 did not answer: it is down '
            '(no heartbeat for 60 s)', reasons[3])
        self.assertEqual([3] * 4, self.sizes(atts))

        # A later extend that reaches every host clears those reasons.
        self.hosts.failures = {}
        volume_db.volume_update(self.context, volume.id,
                                {'status': 'extending'})
        store.update(volume=driver_base.VolumeRef.for_volume(
            volume.id, 3, multiattach=True, host=volume.host), new_size=4)
        self.run_flow(store)
        vol = volume_db.volume_get(self.context, volume.id)
        self.assertEqual((4, 'in-use', None),
                         (vol.size, vol.status, vol.error_reason))
        self.assertEqual([None] * 4, self.reasons(atts))
        self.assertEqual([4] * 4, self.sizes(atts))

    def test_unexpected_errors_are_reported_too(self):
        volume, path, store, atts = self._volume(hosts=('compute1',))
        self.hosts.failures = {'compute1': RuntimeError('boom')}
        results = self.run_flow(store)
        self.assertEqual(
            {atts[0]: 'extend to 3 GiB not seen by instance i-compute1 on '
                      'host compute1: boom'},
            results['not_resized'])
        self.assertEqual(3, volume_db.volume_get(self.context, volume.id).size)

    def test_hosts_are_called_at_once(self):
        # Two hosts that each take a while answer in about the time of
        # one: a slow host does not add to the others.
        barrier = threading.Barrier(2, timeout=5)

        original = self.hosts.resize_attachment

        def resize(*args):
            original(*args)
            barrier.wait()
            time.sleep(0.1)

        self.hosts.resize_attachment = resize
        volume, path, store, atts = self._volume(hosts=('c1', 'c2'))
        results = self.run_flow(store)
        self.assertEqual({}, results['not_resized'])
        self.assertFalse(barrier.broken)

    def test_failure_at_every_step(self):
        # Every step until the extend is recorded (FinishExtend); the
        # step after it is below.
        self.nova.configured = True
        steps = None
        index = 0
        while steps is None or index < steps:
            self.nova.calls = []
            volume, path, store, atts = self._volume(attached=True,
                                                     hosts=('compute1',))
            flow = self.flow()
            steps = len(flows.tasks_of(flow)) - 1
            atom = flows.tasks_of(flow)[index]
            index += 1
            reason = 'injected in %s' % atom.name
            self.useFixture(fixtures.MockPatchObject(
                atom, 'execute',
                side_effect=exception.DriverError(reason=reason)))
            self.assertRaises(exception.DriverError, self.run_flow, store,
                              flow)
            vol = volume_db.volume_get(self.context, volume.id)
            # Old size, attachments untouched, status derived from them.
            self.assertEqual((1, 'in-use'), (vol.size, vol.status))
            self.assertIn(reason, vol.error_reason)
            self.assertEqual([1, None], self.sizes(atts))
            self.assertEqual([None, None], self.reasons(atts))
            # Nova was not told of an extend that did not happen.
            self.assertEqual([], self.nova.calls)

    def test_failure_after_the_extend_is_recorded(self):
        # TellNovaVolumeExtended never raises (below); if a step after
        # FinishExtend did, the volume keeps its new size and status and
        # the project's quota stays charged for it.
        self.nova.configured = True
        volume, path, store, atts = self._volume(attached=True)
        # The charge of the extend, as the API makes it.
        quota_db.ensure_usages(self.context, volume.project_id,
                               [quota_db.GIGABYTES])
        quota_db.retrying(self.context, volume_db.volume_update,
                          self.context, volume.id, {},
                          quota=lambda ctx, before: quota_db.change_usage(
                              ctx, before.project_id,
                              {quota_db.GIGABYTES: 2}))
        usage = quota_db.usage_get_all(self.context, volume.project_id)
        self.assertEqual(3, usage[quota_db.GIGABYTES])
        flow = self.flow()
        atom = list(flow)[-1]
        self.useFixture(fixtures.MockPatchObject(
            atom, 'execute', side_effect=exception.DriverError(
                reason='injected')))
        self.assertRaises(exception.DriverError, self.run_flow, store,
                          flow)
        vol = volume_db.volume_get(self.context, volume.id)
        self.assertEqual((3, 'in-use'), (vol.size, vol.status))
        self.assertEqual(usage, quota_db.usage_get_all(self.context,
                                                       volume.project_id))

    def test_nova_not_configured(self):
        volume, path, store, atts = self._volume(attached=True)
        results = self.run_flow(store)
        self.assertEqual({}, results['nova_not_told'])
        self.assertEqual([], self.nova.calls)

    def test_nova_told_once_the_extend_is_recorded(self):
        # The external consumer's instance (Nova's attachment) is told,
        # with the volume already at its new size and in-use (Nova reads
        # it when it handles the event); the instances of attachments
        # made through a manager are resized by their manager, not told.
        self.nova.configured = True
        volume, path, store, atts = self._volume(attached=True,
                                                 hosts=('compute1',))
        results = self.run_flow(store)
        self.assertEqual({}, results['nova_not_told'])
        self.assertEqual([(['i1'], volume.id, 3, 'in-use')],
                         self.nova.calls)
        vol = volume_db.volume_get(self.context, volume.id)
        self.assertEqual((3, 'in-use', None),
                         (vol.size, vol.status, vol.error_reason))
        self.assertEqual([None, None], self.reasons(atts))

    def test_nova_refusing_is_marked_and_cleared_by_the_next_extend(self):
        self.nova.configured = True
        volume, path, store, atts = self._volume(attached=True)
        self.nova.refused = {'i1': 'Nova answered 404: no such server'}
        results = self.run_flow(store)
        expected = ('extend to 3 GiB not told to Nova for instance i1: '
                    'Nova answered 404: no such server')
        self.assertEqual({atts[0]: expected}, results['nova_not_told'])
        # The extend is done; the volume and the attachment say what
        # Nova was not told.
        vol = volume_db.volume_get(self.context, volume.id)
        self.assertEqual((3, 'in-use'), (vol.size, vol.status))
        self.assertEqual(
            'extend to 3 GiB: the volume grew, but Nova was not told for 1 '
            'attachment(s): attachment %s: %s' % (atts[0], expected),
            vol.error_reason)
        self.assertEqual([expected], self.reasons(atts))

        self.nova.refused = {}
        volume_db.volume_update(self.context, volume.id,
                                {'status': 'extending'})
        store.update(volume=driver_base.VolumeRef.for_volume(
            volume.id, 3, multiattach=True, host=volume.host), new_size=4)
        results = self.run_flow(store)
        self.assertEqual({}, results['nova_not_told'])
        vol = volume_db.volume_get(self.context, volume.id)
        self.assertEqual((4, 'in-use', None),
                         (vol.size, vol.status, vol.error_reason))
        self.assertEqual([None], self.reasons(atts))

    def test_nova_client_error_does_not_fail_the_extend(self):
        self.nova.configured = True
        self.nova.error = RuntimeError('boom')
        volume, path, store, atts = self._volume(attached=True)
        results = self.run_flow(store)
        self.assertEqual({}, results['nova_not_told'])
        vol = volume_db.volume_get(self.context, volume.id)
        self.assertEqual((3, 'in-use'), (vol.size, vol.status))

    def test_resize_task_reverts_nothing(self):
        volume, path, store, atts = self._volume(hosts=('c1',))
        target, = volume_tasks.resize_targets(
            volume_db.volume_get(self.context, volume.id))
        task = volume_tasks.ResizeAttachedDisk(target)
        self.assertIsNone(task.revert(manager_api=self.hosts,
                                      context=self.context,
                                      volume_id='v', new_size=2,
                                      result=None))
        self.assertEqual([], self.hosts.calls)
