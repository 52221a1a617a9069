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

"""Proof by killing, continued (see :mod:`tests.functional.test_faults`):
an API worker SIGKILLed with the claim of its request written and not yet
handed over to a manager (or inside the call that hands it over), or
with snapshot work (a snapshot's create or delete, a volume's revert)
recorded and not yet cast; the manager of an ``nbd`` backend
SIGKILLed at every step of the fence, reconnect and promote flows; and
the manager SIGKILLed at every step of the reconcile loop's recovery
flows (``abort_connect``, ``rollback_attach``).

The processes are real (``cinder-ma-api`` with two forked workers,
``cinder-ma-manager``) on PostgreSQL and RabbitMQ, held where they are
killed by the test-only hold points of :mod:`cinder_ma.holds`. Skipped
when those services (or, for the nbd backend, nbdkit, qemu-io and
nbdinfo) are missing, failed instead under
``CINDER_MA_REQUIRE_SERVICES=1``.
"""

import json
import os
import signal
import threading
import uuid

import requests

from cinder_ma.manager import flows
from cinder_ma.manager.flows import abort_connect
from cinder_ma.manager.flows import attach_volume
from cinder_ma.manager.flows import connect_attachment
from cinder_ma.manager.flows import fence_attachment
from cinder_ma.manager.flows import promote_attachment
from cinder_ma.manager.flows import reconnect_attachment
from cinder_ma.manager.flows import rollback_attach
from tests.functional import fixtures as func_fixtures
from tests.functional import test_faults
from tests.functional.volume import test_nbd
from tests.functional.volume import test_nbd_manager

CONSUMER = test_faults.CONSUMER


def _config(**sections):
    """FAULT_CONFIG (short leases, a reconcile pass a second) with a
    short RPC timeout (a request whose manager was killed mid-call is
    answered 503 within seconds), plus ``sections``."""
    config = {section: dict(values)
              for section, values in test_faults.FAULT_CONFIG.items()}
    config['DEFAULT']['rpc_response_timeout'] = 5
    for section, values in sections.items():
        config.setdefault(section, {}).update(values)
    return config


class _KillBase(test_faults._FaultBase):

    def setUp(self):
        super().setUp()
        self.env = self.use_holds()

    def hold_at(self, directory, points):
        """Hold the processes at ``points`` ({point: index}) from now on;
        returns the markers they write there."""
        os.makedirs(directory, exist_ok=True)
        with open(self.spec_file, 'w') as f:
            f.write('%s;%s' % (directory, ','.join(
                '%s:%d' % item for item in sorted(points.items()))))
        return ['held-%s-%d' % item for item in sorted(points.items())]

    def in_thread(self, answers, key, method, path, body=None, **kwargs):
        """``request`` in a thread, its status (or exception) into
        ``answers[key]``."""
        def run():
            try:
                answers[key] = self.request(method, path, body,
                                            **kwargs).status_code
            except requests.RequestException as exc:
                answers[key] = exc
        thread = threading.Thread(target=run)
        thread.start()
        return thread

    def connect(self, volume_id, connector=CONSUMER, mode=None):
        """A consumer's attachment, connected and completed; its id."""
        attachment = {'volume_uuid': volume_id,
                      'instance_uuid': str(uuid.uuid4()),
                      'connector': connector}
        if mode:
            attachment['mode'] = mode
        response = self.request('POST', '/attachments',
                                {'attachment': attachment}, service=True)
        self.assertEqual(200, response.status_code, response.text)
        attachment_id = response.json()['attachment']['id']
        self.assertEqual(204, self.request(
            'POST', '/attachments/%s/action' % attachment_id,
            {'os-complete': None}, service=True).status_code)
        return attachment_id

    def attachments_of(self, volume_id):
        response = self.request('GET', '/attachments?volume_id=' + volume_id)
        self.assertEqual(200, response.status_code, response.text)
        return [a['id'] for a in response.json()['attachments']]


class _APIWorkerKilled:
    """A mixin of test cases (with :class:`_KillBase`) that name the
    process of the API's workers (:meth:`launcher`).

    The worker serving a one-step create (``POST /attachments`` with a
    connector), an update with a connector and a delete of a consumer's
    attachment is SIGKILLed where each has written its claim on the
    attachment (the reservation with its connect pending; the reserved
    attachment with its connect pending; 'detaching') and not yet asked
    the manager of the volume's backend to take it over. The API runs no
    flow: its only state is that claim, which expires; the reconcile
    loop of the manager then releases the reservation (whose client
    never learned of it), reverts the update's connect that never ran
    (the attachment stays reserved) and finishes the delete. The
    launcher replaces the worker."""

    def launcher(self):
        """The process whose workers serve the API."""
        raise NotImplementedError()

    def test_killed_with_the_claim_written(self):
        created, deleted, updated = (self.create_volume(),
                                     self.create_volume(),
                                     self.create_volume())
        for volume_id in (created, deleted, updated):
            self.assertEqual('available', self.settled(
                self.volume, volume_id)['status'])
        attachment_id = self.connect(deleted)
        response = self.request('POST', '/attachments', {'attachment': {
            'volume_uuid': updated, 'instance_uuid': str(uuid.uuid4())}},
            service=True)
        self.assertEqual(200, response.status_code, response.text)
        reserved_id = response.json()['attachment']['id']
        markers = self.hold_at(self.holds, {'api_create_attachment': 0,
                                            'api_update_attachment': 0,
                                            'api_delete_attachment': 0})
        answers = {}
        threads = [
            self.in_thread(answers, 'create', 'POST', '/attachments',
                           {'attachment': {
                               'volume_uuid': created,
                               'instance_uuid': str(uuid.uuid4()),
                               'connector': CONSUMER}}, service=True),
            self.in_thread(answers, 'update', 'PUT',
                           '/attachments/' + reserved_id,
                           {'attachment': {'connector': CONSUMER}},
                           service=True),
            self.in_thread(answers, 'delete', 'DELETE',
                           '/attachments/' + attachment_id, service=True)]
        pids = self.wait_for_holds(self.holds, markers, [self.launcher()])
        # Workers, not the launcher.
        self.assertNotIn(self.launcher().proc.pid, pids)
        # The claims are written: the reservation exists, the delete is
        # recorded.
        self.assertEqual(1, len(self.attachments_of(created)))
        self.assertEqual('detaching',
                         self.attachment(attachment_id)['status'])
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        for thread in threads:
            thread.join()
        # None was answered: the connection dropped with the worker.
        for key in ('create', 'update', 'delete'):
            self.assertIsInstance(answers[key], requests.RequestException,
                                  answers)
        os.unlink(self.spec_file)
        # Released, reverted and finished by the manager once the claims
        # expired.
        self.assertIsNone(self.settled(self.attachment, attachment_id))
        for volume_id in (created, deleted):
            self.assertEqual('available', self.settled(
                self.volume, volume_id)['status'])
        self.assertEqual([], self.attachments_of(created))
        # Still reserved, no connect recorded.
        self.assertEqual('reserved', self.attachment(reserved_id)['status'])
        self.assertTrue(self.launcher().running())
        # The update's attachment connects again.
        response = self.request('PUT', '/attachments/' + reserved_id,
                                {'attachment': {'connector': CONSUMER}},
                                service=True)
        self.assertEqual(200, response.status_code, response.text)
        self.assertEqual(200, self.request(
            'DELETE', '/attachments/' + reserved_id,
            service=True).status_code)
        self.assertIsNone(self.settled(self.attachment, reserved_id))
        # The API serves on (a replaced worker, the other one), and the
        # volumes take attachments again.
        again = self.connect(created)
        self.assertEqual(200, self.request(
            'DELETE', '/attachments/' + again, service=True).status_code)
        self.assertIsNone(self.settled(self.attachment, again))
        self.audit()


class APIWorkerKilledTestCase(_APIWorkerKilled, _KillBase):
    """``cinder-ma-api`` with two workers beside a ``cinder-ma-manager``
    (see :class:`_APIWorkerKilled`): the manager, untouched, releases and
    finishes what the killed worker claimed; a worker killed inside the
    RPC call (the manager took the claim over) changes nothing: the
    manager finishes the connect and the delete; a worker killed with a
    snapshot's create or delete, or a volume's revert, recorded and not
    yet cast leaves an unclaimed row, which the manager's reconcile loop
    finishes once it has not changed for a lease."""

    def setUp(self):
        super().setUp()
        admin_url = func_fixtures.require_deployment_services(self)
        self.server = self.useFixture(func_fixtures.Deployment(
            admin_url, config=_config(api={'workers': 2}), env=self.env))
        self.server.attach_logs_on_failure(self)

    def launcher(self):
        return self.server.api

    def test_killed_mid_call(self):
        # The workers are held before the call, then (the manager's flows
        # held) inside it, and killed there: the manager, which took the
        # claims over, finishes both flows all the same.
        created, deleted = self.create_volume(), self.create_volume()
        for volume_id in (created, deleted):
            self.assertEqual('available', self.settled(
                self.volume, volume_id)['status'])
        attachment_id = self.connect(deleted)
        before, inside = (os.path.join(self.holds, name)
                          for name in ('before', 'inside'))
        markers = self.hold_at(before, {'api_create_attachment': 0,
                                        'api_delete_attachment': 0})
        answers = {}
        threads = [
            self.in_thread(answers, 'create', 'POST', '/attachments',
                           {'attachment': {
                               'volume_uuid': created,
                               'instance_uuid': str(uuid.uuid4()),
                               'connector': CONSUMER}}, service=True),
            self.in_thread(answers, 'delete', 'DELETE',
                           '/attachments/' + attachment_id, service=True)]
        workers = self.wait_for_holds(before, markers, [self.server.api])
        flows_held = self.hold_at(inside, {
            flow: count - 1
            for flow, count in test_faults.CONSUMER_STEPS.items()})
        open(os.path.join(before, 'release'), 'w').close()
        self.wait_for_holds(inside, flows_held, [self.server.manager])
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        for thread in threads:
            thread.join()
        for key in ('create', 'delete'):
            self.assertIsInstance(answers[key], requests.RequestException,
                                  answers)
        open(os.path.join(inside, 'release'), 'w').close()
        os.unlink(self.spec_file)
        self.assertIsNone(self.settled(self.attachment, attachment_id))
        self.assertEqual('available', self.settled(
            self.volume, deleted)['status'])
        # Connected: its client may still complete it (or delete it).
        (made,) = self.attachments_of(created)
        func_fixtures.wait_for(
            lambda: self.attachment(made)['status'] == 'attaching',
            'attachment %s connected' % made,
            timeout=test_faults.RECOVERY_WAIT)
        self.audit()
        self.assertEqual(204, self.request(
            'POST', '/attachments/%s/action' % made,
            {'os-complete': None}, service=True).status_code)
        self.assertEqual(200, self.request(
            'DELETE', '/attachments/' + made, service=True).status_code)
        self.assertIsNone(self.settled(self.attachment, made))
        self.assertEqual('available', self.settled(
            self.volume, created)['status'])
        self.audit()


    def snapshots_of(self, volume_id):
        response = self.request('GET', '/snapshots')
        self.assertEqual(200, response.status_code, response.text)
        return [s['id'] for s in response.json()['snapshots']
                if s['volume_id'] == volume_id]

    def test_killed_before_the_snapshot_casts(self):
        # A snapshot taken, one deleted and a volume reverted: the API
        # records each (no claim: the manager claims when the cast
        # arrives) and its worker is killed before the cast. The
        # client got no answer; the reconcile loop of the manager takes
        # each row once unclaimed for a lease (as a lost cast) and
        # finishes it: nothing is left creating, deleting or reverting.
        taken, deleted, reverted = ids = [self.create_volume()
                                          for _ in range(3)]
        for volume_id in ids:
            self.assertEqual('available', self.settled(
                self.volume, volume_id)['status'])
        data = self.write(reverted)
        snapshot = self.create_snapshot(deleted)
        revert_to = self.create_snapshot(reverted)
        for snapshot_id in (snapshot, revert_to):
            self.assertEqual('available', self.settled(
                self.snapshot, snapshot_id)['status'])
        self.write(reverted)
        markers = self.hold_at(self.holds, {'api_create_snapshot': 0,
                                            'api_delete_snapshot': 0,
                                            'api_revert_volume': 0})
        answers = {}
        threads = [
            self.in_thread(answers, 'create', 'POST', '/snapshots',
                           {'snapshot': {'volume_id': taken}}),
            self.in_thread(answers, 'delete', 'DELETE',
                           '/snapshots/' + snapshot),
            self.in_thread(answers, 'revert', 'POST',
                           '/volumes/%s/action' % reverted,
                           {'revert': {'snapshot_id': revert_to}})]
        pids = self.wait_for_holds(self.holds, markers, [self.launcher()])
        self.assertNotIn(self.launcher().proc.pid, pids)
        # Recorded, not cast.
        (created,) = self.snapshots_of(taken)
        self.assertEqual('creating', self.snapshot(created)['status'])
        self.assertEqual('deleting', self.snapshot(snapshot)['status'])
        self.assertEqual('reverting', self.volume(reverted)['status'])
        self.assertEqual('restoring', self.snapshot(revert_to)['status'])
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        for thread in threads:
            thread.join()
        for key in ('create', 'delete', 'revert'):
            self.assertIsInstance(answers[key], requests.RequestException,
                                  answers)
        os.unlink(self.spec_file)
        # Finished by the manager once unclaimed for a lease.
        self.assertEqual('available', self.settled(
            self.snapshot, created)['status'])
        self.assertTrue(os.path.exists(self.path('snapshot', created)))
        self.assertIsNone(self.settled(self.snapshot, snapshot))
        self.assertFalse(os.path.exists(self.path('snapshot', snapshot)))
        volume = self.settled(self.volume, reverted)
        self.assertEqual(('available', None), (
            volume['status'], volume['cinder-ma-recovery:failure_reason']))
        self.assertEqual('available', self.settled(
            self.snapshot, revert_to)['status'])
        self.assertEqual(data, self.read('volume', reverted))
        for volume_id in (taken, deleted):
            self.assertEqual('available', self.settled(
                self.volume, volume_id)['status'])
        self.assertTrue(self.launcher().running())


class AllInOneAPIWorkerKilledTestCase(_APIWorkerKilled, _KillBase):
    """``cinder-ma-all`` with two workers, each serving the API and
    running a manager of the host (see :class:`_APIWorkerKilled`): a
    kill of the API worker is a kill of a manager too; the reconcile
    loop of the other worker (or of the replacement) releases and
    finishes what the killed one claimed."""

    def setUp(self):
        super().setUp()
        self.server = self.useFixture(func_fixtures.AllInOne(
            config=_config(DEFAULT={'rpc_transport': 'local',
                                    'enabled_backends': 'file'}),
            env=self.env))
        self.server.attach_logs_on_failure(self)

    def launcher(self):
        return self.server.process


#: Tasks of the flows of fencing that the manager of the volume's
#: backend runs under a claim, as their factories build them.
FENCING_STEPS = {
    module.FLOW_NAME: len(flows.tasks_of(module.get_flow()))
    for module in (fence_attachment, reconnect_attachment,
                   promote_attachment)}

FENCE = 'cinder-ma-fencing:fence'
PROMOTE = 'cinder-ma-fencing:promote'


class FencingFlowsKilledAtEveryStepTestCase(_KillBase):
    """The fence, reconnect and promote flows of consumers' attachments on
    an ``nbd`` backend (connections per attachment: an nbdkit export
    each), which the manager of the volume's backend runs under a claim
    with its ``pending_work``: in round N the manager is SIGKILLed with a
    fence, a reconnect (``PUT /attachments/{id}`` of a fenced attachment
    with a new connector) and a promotion each held before its N-th task
    (the last one for shorter flows), then a new manager is started.

    Each request was answered 503 (the manager died mid-call); the
    reconcile loop of the new manager then does what
    ``Manager._recover_consumer`` documents: the fence and the promotion
    are run again (the fenced attachments' exports are gone, the
    promoted standby's export is read-write), the reconnect is reverted
    (the attachment stays fenced, at its generation, without an export).
    Nothing is stuck (a reconnect asked again succeeds; every attachment
    is deleted), no nbdkit is left that no record names, and the audit
    is clean.
    """

    def setUp(self):
        super().setUp()
        test_nbd.require_programs(self)
        admin_url = func_fixtures.require_deployment_services(self)
        first = func_fixtures.free_port()
        # Its manager holds where the spec file says.
        self.server = self.useFixture(test_nbd_manager.NBDDeployment(
            admin_url, config=_config(nbd={
                'volume_driver': 'nbd',
                'nbd_port_min': first,
                'nbd_port_max': min(first + 40, 65535)}),
            manager_env=self.env))
        self.server.attach_logs_on_failure(self)

    def assertPromoted(self, volume_id, standby, writer, where):
        """``standby`` is the writer on a read-write export; ``writer``
        is fenced, read-only, without an export."""
        promoted, demoted = self.fencing(standby), self.fencing(writer)
        self.assertEqual(('rw', False), (
            promoted['attach_mode'],
            promoted['cinder-ma-fencing:fenced']), where)
        self.assertEqual(('ro', True), (
            demoted['attach_mode'],
            demoted['cinder-ma-fencing:fenced']), where)
        self.assertEqual('rw', self.record(volume_id,
                                           standby)['access_mode'], where)
        self.assertIsNone(self.record(volume_id, writer), where)

    def fencing(self, attachment_id):
        """The attachment's detail with the fencing fields."""
        headers = test_faults._headers(service=True)
        headers['Cinder-MA-Extensions'] = 'cinder-ma-fencing'
        response = requests.get(
            self.server.project_url(test_faults.PROJECT) +
            '/attachments/' + attachment_id, headers=headers,
            timeout=func_fixtures.HTTP_TIMEOUT)
        self.assertEqual(200, response.status_code, response.text)
        return response.json()['attachment']

    def record(self, volume_id, attachment_id):
        """The nbd driver's record of the attachment's export, or
        None."""
        path = os.path.join(self.server.exports_dir, '%s.att-%s.json' % (
            volume_id, attachment_id))
        try:
            with open(path) as f:
                return json.load(f)
        except FileNotFoundError:
            return None

    def one_writer_volume(self):
        response = self.request('POST', '/types', {'volume_type': {
            'name': func_fixtures.unique('one-writer'),
            'extra_specs': {'multiattach': '<is> True',
                            'multiattach:writers': 'one'}}}, admin=True)
        self.assertEqual(200, response.status_code, response.text)
        response = self.request('POST', '/volumes', {'volume': {
            'size': 1, 'volume_type': response.json()['volume_type']['id']}})
        self.assertEqual(202, response.status_code, response.text)
        return response.json()['volume']['id']

    def act(self, attachment_id, action):
        return self.request('POST', '/attachments/%s/action' % attachment_id,
                            {action: {}}, service=True)

    def recovered(self, op, attachment_id):
        """Wait until the manager's reconcile loop has recovered the
        interrupted ``op`` of the attachment."""
        line = 'Recovered the interrupted %s of attachment %s' % (
            op, attachment_id)

        def logged():
            with open(self.server.manager.log_path, errors='replace') as f:
                return line in f.read()

        func_fixtures.wait_for(logged, line,
                               timeout=test_faults.RECOVERY_WAIT,
                               processes=[self.server.manager])

    def test_kill_at_every_step(self):
        plain = [self.create_volume(), self.create_volume()]
        one_writer = self.one_writer_volume()
        for volume_id in plain + [one_writer]:
            self.assertEqual('available', self.settled(
                self.volume, volume_id)['status'])
        for step in range(max(FENCING_STEPS.values())):
            where = 'step %d' % step
            fenced = self.connect(plain[0])
            reconnected = self.connect(plain[1])
            self.assertEqual(200, self.act(reconnected, FENCE).status_code)
            before = self.fencing(reconnected)
            writer = self.connect(one_writer, {'host': 'node-a'}, 'rw')
            standby = self.connect(one_writer, {'host': 'node-b'}, 'ro')
            directory = os.path.join(self.holds, str(step))
            markers = self.hold_at(directory, {
                flow: min(step, count - 1)
                for flow, count in FENCING_STEPS.items()})
            answers = {}
            threads = [
                self.in_thread(answers, 'fence', 'POST',
                               '/attachments/%s/action' % fenced,
                               {FENCE: {}}, service=True),
                self.in_thread(answers, 'reconnect', 'PUT',
                               '/attachments/' + reconnected,
                               {'attachment': {
                                   'connector': {'host': 'node-c'}}},
                               service=True),
                self.in_thread(answers, 'promote', 'POST',
                               '/attachments/%s/action' % standby,
                               {PROMOTE: {}}, service=True)]
            self.wait_for_holds(directory, markers, [self.server.manager])
            self.server.manager.kill()
            os.unlink(self.spec_file)
            self.start_manager(self.env)
            for thread in threads:
                thread.join()
            # Killed mid-call: the manager did not answer in time.
            self.assertEqual({'fence': 503, 'reconnect': 503,
                              'promote': 503}, answers, where)

            # The fence is run again: the export is gone.
            self.recovered('fence', fenced)
            self.assertIs(True, self.fencing(fenced)[
                'cinder-ma-fencing:fenced'], where)
            self.assertIsNone(self.record(plain[0], fenced), where)
            # The reconnect is reverted: fenced as before, no export.
            self.recovered('reconnect', reconnected)
            after = self.fencing(reconnected)
            for key in ('cinder-ma-fencing:fenced',
                        'cinder-ma-fencing:generation', 'status'):
                self.assertEqual(before[key], after[key], where)
            self.assertIsNone(self.record(plain[1], reconnected), where)
            # The promotion is run again: the standby is the writer on a
            # read-write export, the old writer fenced without one.
            self.recovered('promote', standby)
            self.assertPromoted(one_writer, standby, writer, where)
            # Nothing is stuck: the reconnect, asked again, is done.
            response = self.request(
                'PUT', '/attachments/' + reconnected,
                {'attachment': {'connector': {'host': 'node-c'}}},
                service=True)
            self.assertEqual(200, response.status_code, response.text)
            self.assertEqual('node-c', self.record(
                plain[1], reconnected)['host'])
            if step == max(FENCING_STEPS.values()) - 1:
                # With fenced attachments (no export expected) and a
                # reconnected one.
                self.audit()
            for attachment_id in (fenced, reconnected, writer, standby):
                self.assertEqual(200, self.request(
                    'DELETE', '/attachments/' + attachment_id,
                    service=True).status_code, where)
                self.assertIsNone(self.settled(self.attachment,
                                               attachment_id), where)
            for volume_id in plain + [one_writer]:
                self.assertEqual('available', self.settled(
                    self.volume, volume_id)['status'], where)
        self.assertEqual((set(), set()), test_nbd.export_daemons(
            self.server.exports_dir))
        self.audit()


#: Tasks of the promotion flow that the manager of an attachment's host
#: runs (under a claim) for a standby it attached.
HOST_PROMOTE_STEPS = len(flows.tasks_of(promote_attachment.get_host_flow(
    None, None)))


class HostPromoteKilledAtEveryStepTestCase(
        FencingFlowsKilledAtEveryStepTestCase):
    """The promotion flow of a standby attached through a manager
    (``promote_attachment_on_host``: the manager is the instance's host,
    with the fake hypervisor driver, which switches a disk in place, and
    the manager of the ``nbd`` backend), run under a claim with its
    ``pending_work``: in round N the manager is SIGKILLed with the
    promotion held before its N-th task, then a new manager is started.

    The request was answered 503 (the manager died mid-call); the
    reconcile loop of the new manager runs the promotion again: the
    standby is the writer on a read-write export and its instance's
    disk is switched to it, the old writer is fenced without an export.
    Both detach, no nbdkit is left and the audit is clean.
    """

    def manager_attach(self, volume_id, mode):
        response = self.request('POST', '/attachments', {'attachment': {
            'volume_uuid': volume_id, 'instance_uuid': str(uuid.uuid4()),
            'mode': mode,
            'cinder-ma-manager-attach:instance_host': self.server.host}},
            admin=True)
        self.assertEqual(200, response.status_code, response.text)
        attachment_id = response.json()['attachment']['id']
        self.assertEqual('attached', self.settled(
            self.attachment, attachment_id)['status'])
        return attachment_id

    def disk(self, attachment_id):
        """The fake hypervisor's record of the attachment's disk."""
        path = os.path.join(self.server.state_path, 'fake-hypervisor.json')
        with open(path) as f:
            return json.load(f)['attachments'][attachment_id]

    def test_kill_at_every_step(self):
        for step in range(HOST_PROMOTE_STEPS):
            where = 'step %d' % step
            volume_id = self.one_writer_volume()
            self.assertEqual('available', self.settled(
                self.volume, volume_id)['status'], where)
            writer = self.manager_attach(volume_id, 'rw')
            standby = self.manager_attach(volume_id, 'ro')
            self.assertEqual('ro', self.disk(standby)['connection_info'][
                'data']['access_mode'], where)
            directory = os.path.join(self.holds, str(step))
            markers = self.hold_at(
                directory, {promote_attachment.HOST_FLOW_NAME: step})
            answers = {}
            thread = self.in_thread(answers, 'promote', 'POST',
                                    '/attachments/%s/action' % standby,
                                    {PROMOTE: {}}, service=True)
            self.wait_for_holds(directory, markers, [self.server.manager])
            self.server.manager.kill()
            os.unlink(self.spec_file)
            self.start_manager(self.env)
            thread.join()
            self.assertEqual({'promote': 503}, answers, where)

            self.recovered('promote', standby)
            self.assertPromoted(volume_id, standby, writer, where)
            # The instance's disk was switched in place to the new export.
            self.assertEqual('rw', self.disk(standby)['connection_info'][
                'data']['access_mode'], where)
            self.audit()
            for attachment_id in (writer, standby):
                self.assertEqual(200, self.request(
                    'DELETE', '/attachments/' + attachment_id,
                    service=True).status_code, where)
                self.assertIsNone(self.settled(self.attachment,
                                               attachment_id), where)
            self.assertEqual('available', self.settled(
                self.volume, volume_id)['status'], where)
        self.assertEqual((set(), set()), test_nbd.export_daemons(
            self.server.exports_dir))
        self.audit()


#: Tasks of the recovery flows the reconcile loop runs, as their
#: factories build them: the revert of a one-step create's connect (the
#: longest kind), and the rollback of an attach through a manager.
ABORT_CONNECT_STEPS = len(flows.tasks_of(abort_connect.get_flow('create')))
ROLLBACK_ATTACH_STEPS = len(flows.tasks_of(rollback_attach.get_flow(
    None, None)))
#: Where the flows they recover are killed: before their last write
#: (the connect made, not recorded; the disk attached, the attachment
#: 'attaching' and not yet 'attached').
CONNECT_KILLED_AT = len(flows.tasks_of(
    connect_attachment.get_flow('create'))) - 1
ATTACH_KILLED_AT = len(flows.tasks_of(attach_volume.get_flow(
    None, None))) - 2


class RecoveryFlowsKilledAtEveryStepTestCase(_KillBase):
    """The recovery flows of the reconcile loop, each killed at every
    step of it (one deployment for both, run one after the other): the
    manager is SIGKILLed in the flow a recovery flow recovers, before
    that flow's last write; then a chain of managers is started, the
    N-th of which recovers it with the recovery flow held before its
    N-th task and is SIGKILLed there (so the recovery is killed at every
    step, each run starting over from what the runs killed before it
    left); the last manager, which holds nothing, finishes the recovery.
    Each kill costs a lease (the shortest, 2 s, its claims renewed every
    second) and a manager's start.

    ``abort_connect`` recovers a one-step create (``POST /attachments``
    with a connector) whose connect was killed with its connection made
    and not recorded: its client was answered 503; the reservation is
    released, the connection ended, and the volume connects again.
    ``rollback_attach`` recovers an attach through the manager killed
    with the disk attached and the attachment 'attaching': the request
    was answered 200; the attach is rolled back (disk, host and backend
    connections) and run again, to 'attached', and it detaches. The
    audit is clean after each.
    """

    def setUp(self):
        super().setUp()
        admin_url = func_fixtures.require_deployment_services(self)
        self.server = self.useFixture(func_fixtures.Deployment(
            admin_url, config=_config(manager={'work_lease_time': 2}),
            env=self.env))
        self.server.attach_logs_on_failure(self)

    def kill_at_every_step(self, flow_name, steps):
        """Kill the manager held where :meth:`hold_first` says, then each
        one that recovers at the next step of ``flow_name`` (``steps``
        tasks); start the last manager."""
        self.wait_for_holds(self.first, self.first_markers,
                            [self.server.manager])
        for step in range(steps):
            self.server.manager.kill()
            directory = os.path.join(self.holds, flow_name, str(step))
            markers = self.hold_at(directory, {flow_name: step})
            self.start_manager(self.env)
            self.wait_for_holds(directory, markers, [self.server.manager])
        self.server.manager.kill()
        os.unlink(self.spec_file)
        self.start_manager(self.env)

    def hold_first(self, flow_name, index):
        """Hold the flow to recover at ``index``."""
        self.first = os.path.join(self.holds, flow_name)
        self.first_markers = self.hold_at(self.first, {flow_name: index})

    def test_kill_at_every_step(self):
        self.abort_connect_killed_at_every_step()
        self.rollback_attach_killed_at_every_step()

    def abort_connect_killed_at_every_step(self):
        volume_id = self.create_volume()
        self.assertEqual('available', self.settled(
            self.volume, volume_id)['status'])
        self.hold_first(connect_attachment.FLOW_NAME, CONNECT_KILLED_AT)
        answers = {}
        thread = self.in_thread(
            answers, 'create', 'POST', '/attachments',
            {'attachment': {'volume_uuid': volume_id,
                            'instance_uuid': str(uuid.uuid4()),
                            'connector': CONSUMER}}, service=True)
        self.kill_at_every_step(abort_connect.FLOW_NAME,
                                ABORT_CONNECT_STEPS)
        thread.join()
        # Killed mid-call: the manager did not answer in time.
        self.assertEqual({'create': 503}, answers)
        # The reservation its client never learned of is released.
        func_fixtures.wait_for(
            lambda: not self.attachments_of(volume_id),
            'reservation of %s released' % volume_id,
            timeout=test_faults.RECOVERY_WAIT,
            processes=[self.server.manager])
        self.assertEqual('available', self.settled(
            self.volume, volume_id)['status'])
        self.audit()
        # Nothing stuck: the volume connects again.
        again = self.connect(volume_id)
        self.assertEqual(200, self.request(
            'DELETE', '/attachments/' + again, service=True).status_code)
        self.assertIsNone(self.settled(self.attachment, again))
        self.assertEqual('available', self.settled(
            self.volume, volume_id)['status'])

    def rollback_attach_killed_at_every_step(self):
        volume_id = self.create_volume()
        self.assertEqual('available', self.settled(
            self.volume, volume_id)['status'])
        self.hold_first(attach_volume.FLOW_NAME, ATTACH_KILLED_AT)
        attachment_id = self.attach(volume_id, str(uuid.uuid4()))
        self.wait_for_holds(self.first, self.first_markers,
                            [self.server.manager])
        self.assertEqual('attaching',
                         self.attachment(attachment_id)['status'])
        self.kill_at_every_step(rollback_attach.FLOW_NAME,
                                ROLLBACK_ATTACH_STEPS)
        # Rolled back, attached again: the 200 took effect.
        self.assertEqual('attached', self.settled(
            self.attachment, attachment_id)['status'])
        self.assertEqual('in-use', self.volume(volume_id)['status'])
        self.audit()
        self.detach(attachment_id)
        self.assertIsNone(self.settled(self.attachment, attachment_id))
        self.assertEqual('available', self.settled(
            self.volume, volume_id)['status'])
        self.audit()
