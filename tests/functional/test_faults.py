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

"""Fault tests: a manager SIGKILLed at every step of every flow, a worker
of cinder-ma-all SIGKILLed in the middle of work, the database
(PostgreSQL, MariaDB) and the broker restarted under load; everything
ends stable, every request answered 2xx takes effect, with nobody
restarting or repairing anything but the service supervisor, and
``cinder-ma-manage attachment audit`` finds nothing: no connection on a
backend and no disk on a host that no attachment accounts for, no
attached attachment without both.

A test hook (``CINDER_MA_TEST_HOLD_FLOW``, see
:mod:`cinder_ma.manager.flows`) holds a flow before its N-th task so that
the process can be killed exactly there. The lease on in-flight work is
short here (``[manager] work_lease_time``) so that recovery takes seconds.

The multi-process tests skip when PostgreSQL or RabbitMQ is down (they
fail instead under ``CINDER_MA_REQUIRE_SERVICES=1``). The fake
hypervisor driver keeps its records in the host's state directory, as a
real host keeps its domains' disks when the manager dies, so that the
audit compares the database with what the host really holds.
"""

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid

import fixtures
import requests
from testtools import content

from cinder_ma.manager import flows
from cinder_ma.manager.flows import attach_volume
from cinder_ma.manager.flows import connect_attachment
from cinder_ma.manager.flows import create_snapshot
from cinder_ma.manager.flows import create_volume
from cinder_ma.manager.flows import delete_snapshot
from cinder_ma.manager.flows import delete_volume
from cinder_ma.manager.flows import detach_volume
from cinder_ma.manager.flows import disconnect_attachment
from cinder_ma.manager.flows import extend_volume
from cinder_ma.manager.flows import revert_volume
from cinder_ma.manager.flows import TEST_HOLD_ENV
from tests import base
from tests import fixtures as cm_fixtures
from tests.functional import fixtures as func_fixtures

PROJECT = 'demo'
GIB = 1024 ** 3
LEASE = 4
#: Seconds to wait for a hold, and for recovery (lease + loop + a flow).
HOLD_WAIT = 60
RECOVERY_WAIT = 60
TRANSIENT = ('creating', 'deleting', 'extending', 'attaching',
             'detaching', 'reserved', 'reverting', 'restoring')
#: Seconds of load before and after a fault.
LOAD_AROUND = 2

#: Tasks per flow of the manager, as their factories build them (the
#: extend of a volume without attachments through a manager).
STEPS = {module.FLOW_NAME: len(flows.tasks_of(module.get_flow(*args)))
         for module, args in ((create_volume, (None,)),
                              (delete_volume, (None,)),
                              (extend_volume, (None,)),
                              (attach_volume, (None, None)),
                              (detach_volume, (None, None)))}

#: Bytes written at the start of a volume's file (what a snapshot must
#: hold, what a revert must bring back).
DATA_SIZE = 64 * 1024

FAULT_CONFIG = {
    # Load, not quotas, is what these tests are about.
    'DEFAULT': {'quota_volumes': -1, 'quota_gigabytes': -1},
    'manager': {'work_lease_time': LEASE, 'reconcile_interval': 1},
    'hypervisor': {'driver': 'fake'},
}


def _headers(service=False):
    headers = {'X-Auth-Token': 'alice:%s' % PROJECT,
               'X-Roles': 'member,reader',
               'OpenStack-API-Version': 'volume 3.55'}
    if service:
        headers['X-Service-Roles'] = 'service'
    return headers


class Load:
    """What the load of a fault test was answered.

    :ivar created: volumes whose create was answered 202.
    :ivar statuses: the status of every create.
    :ivar attached: {attachment id: volume id} of the attaches answered
        200 and not detached since.
    :ivar detached: attachments whose delete was answered 200 (or 404
        after a 503: done all the same).
    :ivar uncertain: attachments whose delete was not answered 200 or
        404 when the load stopped: attached or gone.
    :ivar attach_statuses, detach_statuses: of every attach and detach.
    :ivar refusals: the bodies of the attaches answered neither 200 nor
        503.
    """

    def __init__(self):
        self.created = []
        self.statuses = []
        self.attached = {}
        self.detached = []
        self.attach_statuses = []
        self.detach_statuses = []
        self.uncertain = []
        self.refusals = []

    def __repr__(self):
        return ('<Load created=%r statuses=%r attached=%r detached=%r '
                'uncertain=%r attach_statuses=%r detach_statuses=%r '
                'refusals=%r>' % (
                    self.created, self.statuses, self.attached,
                    self.detached, self.uncertain, self.attach_statuses,
                    self.detach_statuses, self.refusals))


class _FaultBase(base.BaseTestCase):

    def use_holds(self):
        """A directory of hold markers (:attr:`holds`) and the
        environment of a manager whose hold points read the spec file
        :attr:`spec_file` (:attr:`hold_env`, see :mod:`cinder_ma.holds`);
        returns the environment."""
        self.holds = self.useFixture(fixtures.TempDir()).path
        self.spec_file = os.path.join(self.holds, 'spec')
        self.hold_env = func_fixtures.environ(
            **{TEST_HOLD_ENV: self.spec_file})
        return self.hold_env

    def request(self, method, path, body=None, service=False, admin=False):
        headers = _headers(service)
        if admin:
            del headers['X-Roles']
            headers['Cinder-MA-Extensions'] = 'cinder-ma-recovery'
        return requests.request(
            method, self.server.project_url(PROJECT) + path, json=body,
            headers=headers, timeout=func_fixtures.HTTP_TIMEOUT)

    def shown(self, path, key, admin=False):
        """The resource at ``path`` as shown (its ``key``), or None when
        it is gone (404)."""
        response = self.request('GET', path, admin=admin)
        if response.status_code == 404:
            return None
        self.assertEqual(200, response.status_code, response.text)
        return response.json()[key]

    def volume(self, volume_id):
        return self.shown('/volumes/' + volume_id, 'volume', admin=True)

    def attachment(self, attachment_id):
        return self.shown('/attachments/' + attachment_id, 'attachment')

    def snapshot(self, snapshot_id):
        return self.shown('/snapshots/' + snapshot_id, 'snapshot')

    def create_snapshot(self, volume_id):
        response = self.request('POST', '/snapshots',
                                {'snapshot': {'volume_id': volume_id}})
        self.assertEqual(202, response.status_code, response.text)
        return response.json()['snapshot']['id']

    # The file backend's files (the deployment's volumes_dir).

    def path(self, kind, item_id):
        return os.path.join(self.server.volumes_dir,
                            '%s-%s' % (kind, item_id))

    def write(self, volume_id):
        """New bytes at the start of the volume's file; returns them."""
        data = os.urandom(DATA_SIZE)
        with open(self.path('volume', volume_id), 'r+b') as f:
            f.write(data)
        return data

    def read(self, kind, item_id):
        with open(self.path(kind, item_id), 'rb') as f:
            return f.read(DATA_SIZE)

    def settled(self, getter, item_id, timeout=RECOVERY_WAIT):
        """The item once out of a transient status (None: gone)."""
        deadline = time.monotonic() + timeout
        while True:
            item = getter(item_id)
            if item is None or item['status'] not in TRANSIENT:
                return item
            if time.monotonic() > deadline:
                self.fail('%s still %s after %s s' % (item_id,
                                                      item['status'],
                                                      timeout))
            time.sleep(0.2)

    def create_volume(self, size=1):
        response = self.request('POST', '/volumes',
                                {'volume': {'size': size}})
        self.assertEqual(202, response.status_code, response.text)
        return response.json()['volume']['id']

    def attach(self, volume_id, instance):
        # As an administrator: the fake hypervisor driver does not know
        # who owns these instances, and members attach only into their
        # own.
        response = self.request('POST', '/attachments', {'attachment': {
            'volume_uuid': volume_id, 'instance_uuid': instance,
            'cinder-ma-manager-attach:instance_host': self.server.host}},
            admin=True)
        self.assertEqual(200, response.status_code, response.text)
        return response.json()['attachment']['id']

    def detach(self, attachment_id):
        response = self.request('DELETE', '/attachments/' + attachment_id,
                                service=True)
        self.assertEqual(200, response.status_code, response.text)

    def load_during(self, fault):
        """Run ``fault()`` under load (:data:`LOAD_AROUND` seconds of it
        before and after): one thread creates volumes without pause,
        three others each attach a volume through the manager of the
        host and detach it again, over and over, as :meth:`attach` and
        :meth:`detach` do.

        :returns: a :class:`Load`.
        """
        load = Load()
        self.addDetail('load', content.Content(
            content.UTF8_TEXT, lambda: [repr(load).encode('utf-8')]))
        volumes = [self.create_volume() for _ in range(3)]
        for volume_id in volumes:
            self.assertEqual('available',
                             self.settled(self.volume, volume_id)['status'])
        stop = threading.Event()

        def creates():
            while not stop.is_set():
                try:
                    response = self.request('POST', '/volumes',
                                            {'volume': {'size': 1}})
                except requests.RequestException:
                    continue
                load.statuses.append(response.status_code)
                if response.status_code == 202:
                    load.created.append(response.json()['volume']['id'])

        def attaches(volume_id):
            while not stop.is_set():
                self._attach_and_detach(volume_id, load, stop)

        threads = [threading.Thread(target=creates)] + [
            threading.Thread(target=attaches, args=(volume_id,))
            for volume_id in volumes]
        for thread in threads:
            thread.start()
        try:
            time.sleep(LOAD_AROUND)
            fault()
            time.sleep(LOAD_AROUND)
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        return load

    def _try(self, method, path, body=None, **kwargs):
        try:
            return self.request(method, path, body, **kwargs)
        except requests.RequestException:
            return None

    def _attach_and_detach(self, volume_id, load, stop):
        """One cycle of the attach load: attach, wait until attached,
        detach, wait until gone; what was answered 200 goes into
        ``load``."""
        response = self._try('POST', '/attachments', {'attachment': {
            'volume_uuid': volume_id, 'instance_uuid': str(uuid.uuid4()),
            'cinder-ma-manager-attach:instance_host': self.server.host}},
            admin=True)
        if response is None:
            return
        load.attach_statuses.append(response.status_code)
        if response.status_code not in (200, 503):
            load.refusals.append(response.text[:300])
        if response.status_code != 200:
            # The volume is busy, or the services are (seen) down.
            stop.wait(0.1)
            return
        attachment_id = response.json()['attachment']['id']
        load.attached[attachment_id] = volume_id
        if self._wait_while_transient(attachment_id, stop) != 'attached':
            return
        # As a client does: again while it is not answered (a 503 may
        # have been done all the same: the database went away after the
        # detach was recorded; 404 then).
        del load.attached[attachment_id]
        while not stop.is_set():
            response = self._try('DELETE', '/attachments/' + attachment_id,
                                 service=True)
            if response is not None:
                load.detach_statuses.append(response.status_code)
                if response.status_code in (200, 404):
                    load.detached.append(attachment_id)
                    self._wait_while_transient(attachment_id, stop)
                    return
            stop.wait(0.1)
        load.uncertain.append(attachment_id)

    def _wait_while_transient(self, attachment_id, stop):
        """The attachment's status once out of a transient one (None:
        gone), or None when the load stops first."""
        while not stop.is_set():
            response = self._try('GET', '/attachments/' + attachment_id)
            if response is not None:
                if response.status_code == 404:
                    return None
                if response.status_code == 200:
                    status = response.json()['attachment']['status']
                    if status not in TRANSIENT:
                        return status
            stop.wait(0.05)
        return None

    def check_load(self, load):
        """Every request of the load answered 2xx took effect, and
        nothing it made is left in a transient status."""
        for volume_id in load.created:
            # A create that saw no backend up (their heartbeats could not
            # be written meanwhile) made an 'error' volume, as Cinder.
            self.assertIn(self.settled(self.volume, volume_id)['status'],
                          ('available', 'error'), volume_id)
        self.assertTrue(load.attached or load.detached, load)
        for attachment_id in load.attached:
            self.assertEqual('attached', self.settled(
                self.attachment, attachment_id)['status'], attachment_id)
        for attachment_id in load.detached:
            self.assertIsNone(self.settled(self.attachment, attachment_id),
                              attachment_id)
        for attachment_id in load.uncertain:
            attachment = self.settled(self.attachment, attachment_id)
            if attachment is not None:
                self.assertEqual('attached', attachment['status'],
                                 attachment_id)
        # Attachments whose request was not answered 200 (the database
        # went away after their reservation) end stable too.
        response = self.request('GET', '/attachments')
        self.assertEqual(200, response.status_code, response.text)
        for attachment in response.json()['attachments']:
            self.settled(self.attachment, attachment['id'])

    def audit(self):
        """``cinder-ma-manage attachment audit`` with the fixture's
        configuration finds nothing (exit status 0)."""
        result = func_fixtures.run_command(
            func_fixtures.command('cinder-ma-manage') + [
                '--config-file', self.server.config_file, 'attachment',
                'audit'],
            self.server.directory, timeout=120)
        self.addDetail('attachment audit', content.text_content(
            result.stdout + result.stderr))
        self.assertEqual(
            0, result.returncode,
            'cinder-ma-manage attachment audit exited %s\nstdout:\n%s\n'
            'stderr:\n%s' % (result.returncode, result.stdout,
                             result.stderr))

    def start_manager(self, env=None):
        """Start a manager; return once it reported and serves (so that
        the API sees it up)."""
        manager = self.server.start_manager(env=env)
        ready = 'Manager of %s started' % self.server.host

        def started():
            if not os.path.exists(manager.log_path):
                return False
            with open(manager.log_path, errors='replace') as f:
                return ready in f.read()
        func_fixtures.wait_for(started, ready, processes=[manager])
        return manager

    def wait_for_holds(self, directory, names, processes):
        def held():
            # A marker is created, then its process id written: wait for
            # the id too.
            return all(os.path.exists(os.path.join(directory, name)) and
                       os.path.getsize(os.path.join(directory, name))
                       for name in names)
        func_fixtures.wait_for(held, 'flows held at %s' % ', '.join(names),
                               timeout=HOLD_WAIT, processes=processes)
        pids = set()
        for name in names:
            with open(os.path.join(directory, name)) as f:
                pids.add(int(f.read()))
        return pids


class ManagerKilledAtEveryStepTestCase(_FaultBase):
    """The API and a manager as separate processes on RabbitMQ and
    PostgreSQL; in round N the manager is SIGKILLed with a create, a
    delete, an extend, an attach and a detach each held before its N-th
    task (the last one for shorter flows), then a new manager is
    started."""

    def setUp(self):
        super().setUp()
        admin_url = func_fixtures.require_deployment_services(self)
        self.server = self.useFixture(func_fixtures.Deployment(
            admin_url, config=FAULT_CONFIG, manager_env=self.use_holds()))
        self.server.attach_logs_on_failure(self)

    def prepare(self):
        """A volume to delete, one to extend, one to attach and one
        attached, made by the running manager."""
        ids = [self.create_volume() for _ in range(4)]
        for volume_id in ids:
            self.assertEqual('available',
                             self.settled(self.volume, volume_id)['status'])
        attachment = self.attach(ids[3], str(uuid.uuid4()))
        self.assertEqual('attached', self.settled(
            self.attachment, attachment)['status'])
        return {'delete': ids[0], 'extend': ids[1], 'attach': ids[2],
                'detach': attachment, 'detach_volume': ids[3]}

    def test_kill_at_every_step(self):
        # The deployment's manager holds where the spec file says.
        spec_file, env = self.spec_file, self.hold_env
        for step in range(max(STEPS.values())):
            todo = self.prepare()
            directory = os.path.join(self.holds, str(step))
            os.makedirs(directory)
            holds = {flow: min(step, count - 1)
                     for flow, count in STEPS.items()}
            with open(spec_file, 'w') as f:
                f.write('%s;%s' % (directory, ','.join(
                    '%s:%d' % item for item in sorted(holds.items()))))
            created = self.create_volume()
            self.assertEqual(202, self.request(
                'DELETE', '/volumes/' + todo['delete']).status_code)
            self.assertEqual(202, self.request(
                'POST', '/volumes/%s/action' % todo['extend'],
                {'os-extend': {'new_size': 2}}).status_code)
            attached = self.attach(todo['attach'], str(uuid.uuid4()))
            self.detach(todo['detach'])
            self.wait_for_holds(
                directory, ['held-%s-%d' % item for item in holds.items()],
                [self.server.manager])
            self.server.manager.kill()
            # The new manager finds the markers: it holds nothing.
            self.start_manager(env)
            # Every request answered 2xx took effect.
            self.assertEqual('available', self.settled(
                self.volume, created)['status'], 'step %d' % step)
            self.assertIsNone(self.settled(self.volume, todo['delete']),
                              'step %d' % step)
            self.assertFalse(os.path.exists(os.path.join(
                self.server.volumes_dir, 'volume-' + todo['delete'])))
            extended = self.settled(self.volume, todo['extend'])
            self.assertEqual(('available', 2),
                             (extended['status'], extended['size']),
                             'step %d' % step)
            self.assertEqual(2 * GIB, os.stat(os.path.join(
                self.server.volumes_dir,
                'volume-' + todo['extend'])).st_size)
            self.assertEqual('attached', self.settled(
                self.attachment, attached)['status'], 'step %d' % step)
            self.assertIsNone(self.settled(self.attachment, todo['detach']),
                              'step %d' % step)
            self.assertEqual('available', self.settled(
                self.volume, todo['detach_volume'])['status'])
            self.assertIsNone(self.volume(created)[
                'cinder-ma-recovery:failure_reason'])
            os.unlink(spec_file)
        self.audit()



#: Tasks per flow of a consumer's attachment, run by the manager of the
#: volume's backend (a one-step create's connect, a delete's disconnect).
CONSUMER_STEPS = {
    connect_attachment.FLOW_NAME: len(flows.tasks_of(
        connect_attachment.get_flow('create'))),
    disconnect_attachment.FLOW_NAME: len(flows.tasks_of(
        disconnect_attachment.get_flow())),
}

CONSUMER = {'host': 'consumer-host', 'initiator': 'iqn.2026-11.test:c'}


class ConsumerFlowsKilledAtEveryStepTestCase(_FaultBase):
    """The flows of an external consumer's attachments, which the manager
    of the volume's backend runs under a claim (the API runs none): in
    round N the manager is SIGKILLed with a one-step create (``POST
    /attachments`` with a connector) and a delete each held before its
    N-th task, then a new manager is started. The create's client never
    learns of its attachment: its reservation is released; the delete
    is finished; no connection is left (audit clean)."""

    def setUp(self):
        super().setUp()
        admin_url = func_fixtures.require_deployment_services(self)
        config = {section: dict(values)
                  for section, values in FAULT_CONFIG.items()}
        # The API waits this long for a manager killed mid-call.
        config['DEFAULT']['rpc_response_timeout'] = 5
        self.server = self.useFixture(func_fixtures.Deployment(
            admin_url, config=config, manager_env=self.use_holds()))
        self.server.attach_logs_on_failure(self)

    def connect(self, volume_id):
        """A consumer's attachment, connected and completed; its id."""
        response = self.request('POST', '/attachments', {'attachment': {
            'volume_uuid': volume_id, 'instance_uuid': str(uuid.uuid4()),
            'connector': CONSUMER}}, service=True)
        self.assertEqual(200, response.status_code, response.text)
        attachment_id = response.json()['attachment']['id']
        self.assertEqual(204, self.request(
            'POST', '/attachments/%s/action' % attachment_id,
            {'os-complete': None}, service=True).status_code)
        return attachment_id

    def in_thread(self, answers, key, *args, **kwargs):
        def run():
            try:
                answers[key] = self.request(*args, **kwargs).status_code
            except requests.RequestException as exc:
                answers[key] = exc
        thread = threading.Thread(target=run)
        thread.start()
        return thread

    def test_kill_at_every_step(self):
        # The deployment's manager holds where the spec file says.
        spec_file, env = self.spec_file, self.hold_env
        for step in range(max(CONSUMER_STEPS.values())):
            created, deleted = self.create_volume(), self.create_volume()
            for volume_id in (created, deleted):
                self.assertEqual('available', self.settled(
                    self.volume, volume_id)['status'])
            attachment_id = self.connect(deleted)
            directory = os.path.join(self.holds, str(step))
            os.makedirs(directory)
            holds = {flow: min(step, count - 1)
                     for flow, count in CONSUMER_STEPS.items()}
            with open(spec_file, 'w') as f:
                f.write('%s;%s' % (directory, ','.join(
                    '%s:%d' % item for item in sorted(holds.items()))))
            answers = {}
            threads = [
                self.in_thread(answers, 'create', 'POST', '/attachments',
                               {'attachment': {
                                   'volume_uuid': created,
                                   'instance_uuid': str(uuid.uuid4()),
                                   'connector': CONSUMER}}, service=True),
                self.in_thread(answers, 'delete', 'DELETE',
                               '/attachments/' + attachment_id,
                               service=True)]
            self.wait_for_holds(
                directory, ['held-%s-%d' % item for item in holds.items()],
                [self.server.manager])
            self.server.manager.kill()
            for thread in threads:
                thread.join()
            # Killed mid-call: the manager did not answer in time.
            self.assertEqual({'create': 503, 'delete': 503}, answers,
                             'step %d' % step)
            os.unlink(spec_file)
            self.start_manager(env)
            # The create's reservation, which its client never learned
            # of, is released; the delete is finished.
            self.assertIsNone(self.settled(self.attachment, attachment_id),
                              'step %d' % step)
            for volume_id in (created, deleted):
                self.assertEqual('available', self.settled(
                    self.volume, volume_id)['status'], 'step %d' % step)
        self.audit()


class AllInOneWorkerKilledTestCase(_FaultBase):
    """cinder-ma-all with two workers: the worker running a create and an
    attach is SIGKILLed mid-flow; the launcher replaces it and the
    reconcile loop of the workers finishes both."""

    def setUp(self):
        super().setUp()
        self.holds = self.useFixture(fixtures.TempDir()).path
        spec_file = os.path.join(self.holds, 'spec')
        with open(spec_file, 'w') as f:
            f.write('%s;create_volume:1,attach_volume:5' % self.holds)
        # What cinder-ma-all takes by default, written down for
        # cinder-ma-manage (the audit) to run with the same configuration.
        config = dict(FAULT_CONFIG)
        config['DEFAULT'] = dict(FAULT_CONFIG['DEFAULT'],
                                 rpc_transport='local',
                                 enabled_backends='file')
        self.server = self.useFixture(func_fixtures.AllInOne(
            config=config,
            env=func_fixtures.environ(**{TEST_HOLD_ENV: spec_file})))
        self.server.attach_logs_on_failure(self)

    def test_killed_worker(self):
        target = self.create_volume()
        # The create is held: make a volume to attach with a second
        # create (held flows run only once per process tree).
        attached = None
        pids = self.wait_for_holds(self.holds, ['held-create_volume-1'],
                                   [self.server.process])
        volume = self.create_volume()
        self.assertEqual('available',
                         self.settled(self.volume, volume)['status'])
        attached = self.attach(volume, str(uuid.uuid4()))
        pids |= self.wait_for_holds(self.holds, ['held-attach_volume-5'],
                                    [self.server.process])
        self.assertNotIn(self.server.process.proc.pid, pids)
        for pid in pids:
            os.kill(pid, 9)
        self.assertEqual('available',
                         self.settled(self.volume, target)['status'])
        self.assertEqual('attached',
                         self.settled(self.attachment, attached)['status'])
        self.assertTrue(self.server.process.running())
        self.audit()


class SnapshotWorkerKilledTestCase(_FaultBase):
    """cinder-ma-all with two workers: the worker taking a snapshot, and
    then the one deleting another, is SIGKILLed before the driver step;
    the reconcile loop of the workers takes the snapshot again and
    finishes the delete."""

    def setUp(self):
        super().setUp()
        self.holds = self.useFixture(fixtures.TempDir()).path
        spec_file = os.path.join(self.holds, 'spec')
        with open(spec_file, 'w') as f:
            f.write('%s;create_snapshot:1,delete_snapshot:1' % self.holds)
        config = dict(FAULT_CONFIG)
        config['DEFAULT'] = dict(FAULT_CONFIG['DEFAULT'],
                                 rpc_transport='local',
                                 enabled_backends='file',
                                 quota_snapshots=-1)
        self.server = self.useFixture(func_fixtures.AllInOne(
            config=config,
            env=func_fixtures.environ(**{TEST_HOLD_ENV: spec_file})))
        self.server.attach_logs_on_failure(self)

    def test_killed_worker(self):
        volume = self.create_volume()
        self.assertEqual('available',
                         self.settled(self.volume, volume)['status'])
        held = self.create_snapshot(volume)
        pids = self.wait_for_holds(self.holds, ['held-create_snapshot-1'],
                                   [self.server.process])
        # Another worker takes another snapshot (a flow is held once
        # per process tree), to delete.
        deleted = self.create_snapshot(volume)
        self.assertEqual('available',
                         self.settled(self.snapshot, deleted)['status'])
        self.assertEqual(202, self.request(
            'DELETE', '/snapshots/' + deleted).status_code)
        pids |= self.wait_for_holds(self.holds, ['held-delete_snapshot-1'],
                                    [self.server.process])
        self.assertNotIn(self.server.process.proc.pid, pids)
        for pid in pids:
            os.kill(pid, 9)
        self.assertEqual('available',
                         self.settled(self.snapshot, held)['status'])
        self.assertIsNone(self.settled(self.snapshot, deleted))
        self.assertTrue(os.path.exists(os.path.join(
            self.server.volumes_dir, 'snapshot-' + held)))
        self.assertFalse(os.path.exists(os.path.join(
            self.server.volumes_dir, 'snapshot-' + deleted)))
        self.assertTrue(self.server.process.running())


#: Tasks of the snapshot flows of the manager of a volume's backend, as
#: their factories build them.
SNAPSHOT_STEPS = {
    module.FLOW_NAME: len(flows.tasks_of(module.get_flow(None)))
    for module in (create_snapshot, delete_snapshot, revert_volume)}


class SnapshotFlowsKilledAtEveryStepTestCase(_FaultBase):
    """The API and a manager as separate processes on RabbitMQ and
    PostgreSQL; in round N the manager is SIGKILLed with a snapshot
    taken, one deleted and a volume reverted to its snapshot each held
    before its N-th task (the last one for shorter flows), then a new
    manager is started. Its reconcile loop takes the snapshot again
    (holding the volume's bytes of the request), finishes the delete
    (record and file gone) and runs the revert again (the volume's file
    holds the snapshot's bytes); nothing is left creating, deleting,
    reverting or restoring."""

    def setUp(self):
        super().setUp()
        admin_url = func_fixtures.require_deployment_services(self)
        config = {section: dict(values)
                  for section, values in FAULT_CONFIG.items()}
        config['DEFAULT']['quota_snapshots'] = -1
        self.server = self.useFixture(func_fixtures.Deployment(
            admin_url, config=config, manager_env=self.use_holds()))
        self.server.attach_logs_on_failure(self)

    def prepare(self):
        """A volume to snapshot, a snapshot to delete, and a volume with
        a snapshot to revert to (written over since), made by the
        running manager."""
        ids = [self.create_volume() for _ in range(3)]
        for volume_id in ids:
            self.assertEqual('available',
                             self.settled(self.volume, volume_id)['status'])
        todo = {'snap': ids[0], 'snap_data': self.write(ids[0]),
                'revert': ids[2], 'revert_data': self.write(ids[2])}
        todo['delete'] = self.create_snapshot(ids[1])
        todo['revert_to'] = self.create_snapshot(ids[2])
        for snapshot_id in (todo['delete'], todo['revert_to']):
            self.assertEqual('available', self.settled(
                self.snapshot, snapshot_id)['status'])
        self.assertEqual(todo['revert_data'],
                         self.read('snapshot', todo['revert_to']))
        self.write(ids[2])
        return todo

    def test_kill_at_every_step(self):
        # The deployment's manager holds where the spec file says.
        spec_file, env = self.spec_file, self.hold_env
        for step in range(max(SNAPSHOT_STEPS.values())):
            where = 'step %d' % step
            todo = self.prepare()
            directory = os.path.join(self.holds, str(step))
            os.makedirs(directory)
            holds = {flow: min(step, count - 1)
                     for flow, count in SNAPSHOT_STEPS.items()}
            with open(spec_file, 'w') as f:
                f.write('%s;%s' % (directory, ','.join(
                    '%s:%d' % item for item in sorted(holds.items()))))
            taken = self.create_snapshot(todo['snap'])
            self.assertEqual(202, self.request(
                'DELETE', '/snapshots/' + todo['delete']).status_code)
            response = self.request(
                'POST', '/volumes/%s/action' % todo['revert'],
                {'revert': {'snapshot_id': todo['revert_to']}})
            self.assertEqual(202, response.status_code, response.text)
            self.wait_for_holds(
                directory, ['held-%s-%d' % item for item in holds.items()],
                [self.server.manager])
            self.server.manager.kill()
            # The new manager finds the markers: it holds nothing.
            self.start_manager(env)
            # Every request answered 2xx took effect.
            self.assertEqual('available', self.settled(
                self.snapshot, taken)['status'], where)
            self.assertEqual(todo['snap_data'], self.read('snapshot', taken),
                             where)
            self.assertIsNone(self.settled(self.snapshot, todo['delete']),
                              where)
            self.assertFalse(os.path.exists(
                self.path('snapshot', todo['delete'])), where)
            reverted = self.settled(self.volume, todo['revert'])
            self.assertEqual(('available', None), (
                reverted['status'],
                reverted['cinder-ma-recovery:failure_reason']), where)
            self.assertEqual('available', self.settled(
                self.snapshot, todo['revert_to'])['status'], where)
            self.assertEqual(todo['revert_data'],
                             self.read('volume', todo['revert']), where)
            self.assertEqual(GIB, os.stat(
                self.path('volume', todo['revert'])).st_size, where)
            os.unlink(spec_file)
        # Nothing is left in a transient status.
        response = self.request('GET', '/snapshots')
        self.assertEqual(200, response.status_code, response.text)
        for snapshot in response.json()['snapshots']:
            self.assertEqual('available', self.settled(
                self.snapshot, snapshot['id'])['status'])
        response = self.request('GET', '/volumes')
        self.assertEqual(200, response.status_code, response.text)
        for volume in response.json()['volumes']:
            self.assertEqual('available', self.settled(
                self.volume, volume['id'])['status'])
        self.audit()


class PrivatePostgreSQL(fixtures.Fixture):
    """A PostgreSQL cluster of its own, made with initdb as the postgres
    user in a temporary directory and served on a free port, so that a
    test can stop and start it (never the shared server)."""

    def __init__(self, testcase):
        super().__init__()
        self.testcase = testcase

    def _setUp(self):
        bindirs = sorted(glob.glob('/usr/lib/postgresql/*/bin'))
        try:
            user = pwd.getpwnam('postgres')
        except KeyError:
            user = None
        if not bindirs or user is None or os.geteuid() != 0:
            cm_fixtures.skip_or_fail(
                self.testcase, 'a private PostgreSQL needs initdb and '
                'root to run it as postgres')
        self.bindir = bindirs[-1]
        self.directory = tempfile.mkdtemp(prefix='cinder-ma-pg-')
        self.addCleanup(shutil.rmtree, self.directory, True)
        os.chown(self.directory, user.pw_uid, user.pw_gid)
        self.data = os.path.join(self.directory, 'data')
        self.port = func_fixtures.free_port()
        self._as_postgres('initdb', '-D', self.data, '-A', 'trust', '-U',
                          'postgres')
        self.start()
        self.addCleanup(self.stop, 'immediate')
        self.admin_url = ('postgresql+psycopg2://postgres@127.0.0.1:%d/'
                          'postgres' % self.port)

    def _as_postgres(self, program, *args):
        subprocess.run(
            ['runuser', '-u', 'postgres', '--',
             os.path.join(self.bindir, program)] + list(args),
            check=True, cwd=self.directory, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, timeout=120)

    def start(self):
        self._as_postgres(
            'pg_ctl', '-D', self.data, '-w', '-l',
            os.path.join(self.directory, 'postgresql.log'), '-o',
            '-p %d -k %s -c listen_addresses=127.0.0.1' % (
                self.port, self.directory), 'start')

    def stop(self, mode='immediate'):
        """Stop the cluster (by default ``immediate``: an abrupt database
        failure, no checkpoint)."""
        try:
            self._as_postgres('pg_ctl', '-D', self.data, '-w', '-m', mode,
                              'stop')
        except subprocess.CalledProcessError:
            pass


class _DatabaseRestart:
    """The deployment's database server stops abruptly and starts again
    under load: requests meanwhile get 2xx or 503 (never 500), every
    request answered 2xx takes effect and nothing is left in a transient
    status or unaccounted for on the host.

    A mixin of test cases (with :class:`_FaultBase`) that name the
    server.

    :cvar SERVER: the fixture of a private server (``stop()``,
        ``start()``, ``admin_url``).
    """

    SERVER = None

    def setUp(self):
        super().setUp()
        func_fixtures.require_deployment_services(self)
        self.database = self.useFixture(self.SERVER(self))
        self.server = self.useFixture(func_fixtures.Deployment(
            self.database.admin_url, config=FAULT_CONFIG))
        self.server.attach_logs_on_failure(self)

    def test_restart_under_load(self):
        def fault():
            self.database.stop()
            time.sleep(3)
            self.database.start()

        load = self.load_during(fault)
        # 400: no host is up for an attach while the managers'
        # heartbeats could not be written (a create makes an 'error'
        # volume instead, see check_load).
        self.assertEqual(set(), set(load.statuses) - {202, 400, 503},
                         load)
        self.assertIn(503, load.statuses)
        self.assertEqual(set(), set(load.attach_statuses) -
                         {200, 400, 503}, load)
        self.assertEqual(set(), set(load.detach_statuses) -
                         {200, 404, 503}, load)
        self.check_load(load)
        # The API answers again.
        self.assertEqual('available', self.settled(
            self.volume, self.create_volume())['status'])
        self.audit()


class PostgreSQLRestartTestCase(_DatabaseRestart, _FaultBase):
    SERVER = PrivatePostgreSQL


class PrivateMariaDB(fixtures.Fixture):
    """A MariaDB server of its own: ``mariadb-install-db`` into a
    temporary directory owned by the mysql user, ``mariadbd`` run as that
    user on a free loopback port with its own socket and pid file, root
    without a password over TCP. :meth:`stop` SIGKILLs it by the process
    id in its pid file; :meth:`start` starts it again on the same data
    (never the shared server).
    """

    INSTALL = '/usr/bin/mariadb-install-db'
    SERVER = '/usr/sbin/mariadbd'

    def __init__(self, testcase):
        super().__init__()
        self.testcase = testcase
        self.proc = None

    def _setUp(self):
        try:
            user = pwd.getpwnam('mysql')
        except KeyError:
            user = None
        if (user is None or os.geteuid() != 0 or
                not all(os.path.exists(p) for p in (self.INSTALL,
                                                    self.SERVER))):
            cm_fixtures.skip_or_fail(
                self.testcase, 'a private MariaDB needs '
                'mariadb-install-db, mariadbd and root to run them as mysql')
        self.directory = tempfile.mkdtemp(prefix='cinder-ma-mariadb-')
        self.addCleanup(shutil.rmtree, self.directory, True)
        os.chown(self.directory, user.pw_uid, user.pw_gid)
        self.data = os.path.join(self.directory, 'data')
        self.pid_file = os.path.join(self.directory, 'mariadbd.pid')
        self.port = func_fixtures.free_port()
        # Small buffers and logs: a test server starts in a second.
        self.options = ['--no-defaults', '--datadir=' + self.data,
                        '--innodb-buffer-pool-size=16M',
                        '--innodb-log-file-size=8M', '--skip-log-bin']
        with open(os.path.join(self.directory, 'install.log'), 'w') as out:
            subprocess.run(
                ['runuser', '-u', 'mysql', '--', self.INSTALL] +
                self.options + ['--auth-root-authentication-method=normal',
                                '--skip-test-db', '--skip-name-resolve'],
                check=True, cwd=self.directory, stdin=subprocess.DEVNULL,
                stdout=out, stderr=subprocess.STDOUT, timeout=120)
        self.start()
        self.addCleanup(self.stop)
        self.admin_url = 'mysql+pymysql://root@127.0.0.1:%d/mysql' % (
            self.port)

    def _server_pid(self):
        """The pid in the pid file when it is our server's (a child of
        the runuser we started), else None."""
        try:
            with open(self.pid_file) as f:
                pid = int(f.read().strip() or 0)
            with open('/proc/%d/stat' % pid) as f:
                ppid = int(f.read().rsplit(')', 1)[1].split()[1])
        except (OSError, ValueError):
            return None
        return pid if ppid == self.proc.pid else None

    def start(self):
        out = open(os.path.join(self.directory, 'mariadbd.out'), 'a')
        self.addCleanup(out.close)
        self.proc = subprocess.Popen(
            ['runuser', '-u', 'mysql', '--', self.SERVER] + self.options +
            ['--port=%d' % self.port, '--bind-address=127.0.0.1',
             '--socket=' + os.path.join(self.directory, 'mariadbd.sock'),
             '--pid-file=' + self.pid_file, '--skip-name-resolve',
             '--log-error=' + os.path.join(self.directory, 'error.log')],
            cwd=self.directory, stdin=subprocess.DEVNULL, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True)
        func_fixtures.wait_for(
            lambda: (self._server_pid() and
                     cm_fixtures.port_open('127.0.0.1', self.port)),
            'private MariaDB on port %d' % self.port, timeout=60)

    def stop(self):
        """SIGKILL the server (an abrupt database failure)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        pid = self._server_pid()
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
        # runuser exits once its child is gone.
        self.proc.wait(timeout=30)
        func_fixtures.wait_for(
            lambda: not cm_fixtures.port_open('127.0.0.1', self.port),
            'private MariaDB to stop', timeout=30)


class MariaDBRestartTestCase(_DatabaseRestart, _FaultBase):
    SERVER = PrivateMariaDB


class PrivateRabbitMQ(fixtures.Fixture):
    """A RabbitMQ node of its own (node name, ports, database, config and
    plugins file in a temporary directory), run as the rabbitmq user, so
    that a test can kill and restart it (never the shared broker)."""

    SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server'

    def __init__(self, testcase):
        super().__init__()
        self.testcase = testcase
        self.proc = None

    def _setUp(self):
        try:
            user = pwd.getpwnam('rabbitmq')
        except KeyError:
            user = None
        if (user is None or os.geteuid() != 0 or
                not os.path.exists(self.SERVER)):
            cm_fixtures.skip_or_fail(
                self.testcase, 'a private RabbitMQ needs rabbitmq-server '
                'and root')
        self.directory = tempfile.mkdtemp(prefix='cinder-ma-rmq-')
        self.addCleanup(shutil.rmtree, self.directory, True)
        self.port = func_fixtures.free_port()
        files = {'rabbitmq.conf': 'listeners.tcp.local = 127.0.0.1:%d\n'
                                  % self.port,
                 'enabled_plugins': '[].\n', 'rabbitmq-env.conf': ''}
        for name, text in files.items():
            with open(os.path.join(self.directory, name), 'w') as f:
                f.write(text)
        for root, dirs, names in os.walk(self.directory):
            for name in [root] + [os.path.join(root, n) for n in names]:
                os.chown(name, user.pw_uid, user.pw_gid)
        self.env = func_fixtures.environ(
            HOME=self.directory,
            RABBITMQ_NODENAME='cmtest%d@localhost' % self.port,
            RABBITMQ_NODE_PORT=str(self.port),
            RABBITMQ_DIST_PORT=str(func_fixtures.free_port()),
            RABBITMQ_MNESIA_BASE=os.path.join(self.directory, 'mnesia'),
            RABBITMQ_LOG_BASE=os.path.join(self.directory, 'log'),
            RABBITMQ_CONFIG_FILE=os.path.join(self.directory,
                                              'rabbitmq.conf'),
            RABBITMQ_ENABLED_PLUGINS_FILE=os.path.join(self.directory,
                                                       'enabled_plugins'),
            RABBITMQ_CONF_ENV_FILE=os.path.join(self.directory,
                                                'rabbitmq-env.conf'),
            RABBITMQ_PID_FILE=os.path.join(self.directory, 'pid'),
            ERL_EPMD_ADDRESS='127.0.0.1')
        self.url = 'rabbit://guest:guest@127.0.0.1:%d/' % self.port
        self.start()
        self.addCleanup(self.kill)

    def start(self):
        out = open(os.path.join(self.directory, 'out'), 'a')
        self.addCleanup(out.close)
        self.proc = subprocess.Popen(
            ['runuser', '-u', 'rabbitmq', '--', 'env'] +
            ['%s=%s' % item for item in self.env.items()
             if item[0].startswith(('RABBITMQ_', 'ERL_', 'HOME'))] +
            [self.SERVER], cwd=self.directory, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True)
        func_fixtures.wait_for(
            lambda: cm_fixtures.port_open('127.0.0.1',
                                                        self.port),
            'private RabbitMQ on port %d' % self.port, timeout=120)

    def kill(self):
        """SIGKILL the node (an abrupt broker failure)."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 9)
            except ProcessLookupError:
                pass
            self.proc.wait()
        func_fixtures.wait_for(
            lambda: not cm_fixtures.port_open(
                '127.0.0.1', self.port),
            'private RabbitMQ to stop', timeout=30)


class BrokerRestartTestCase(_FaultBase):
    """The broker is killed and restarted under load: every request
    answered 2xx takes effect (casts lost with the broker are run by the
    reconcile loop), requests meanwhile get 2xx or 503, never 500, and
    nothing is left unaccounted for on the host."""

    def setUp(self):
        super().setUp()
        admin_url = func_fixtures.require_deployment_services(self)
        self.broker = self.useFixture(PrivateRabbitMQ(self))
        config = dict(FAULT_CONFIG)
        config['DEFAULT'] = dict(FAULT_CONFIG['DEFAULT'],
                                 transport_url=self.broker.url)
        self.server = self.useFixture(func_fixtures.Deployment(
            admin_url, config=config))
        self.server.attach_logs_on_failure(self)

    def test_kill_and_restart_under_load(self):
        def fault():
            self.broker.kill()
            time.sleep(2)
            self.broker.start()

        load = self.load_during(fault)
        self.assertEqual(set(), set(load.statuses) - {202, 503}, load)
        self.assertTrue(load.created)
        self.assertEqual(set(), set(load.attach_statuses) - {200, 503},
                         load)
        self.assertEqual(set(), set(load.detach_statuses) -
                         {200, 404, 503}, load)
        self.check_load(load)
        self.audit()
