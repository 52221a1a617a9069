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

"""Real clients against ``cinder-ma-all`` over real HTTP.

python-cinderclient (its noauth plugin with a keystoneauth session), the
README's ``cinder`` and ``openstack`` commands, openstacksdk, and raw HTTP
for what clients never send (bad microversions, malformed JSON). One
``cinder-ma-all`` process serves the tests of a class.
"""

import concurrent.futures
import json
import os
import subprocess
import time

from cinderclient import api_versions
from cinderclient import client as cinder_client
from cinderclient.contrib import noauth
from cinderclient import exceptions as cinder_exc
from keystoneauth1 import session as ks_session
import openstack
from openstack import exceptions as sdk_exc
import requests

from cinder_ma.api import microversions as mv
from tests import base
from tests.functional import fixtures as func_fixtures

#: Microversion of the clients (the last one of Cinder's that cinder_ma
#: serves: attachment modes).
VERSION = '3.54'
PROJECT = 'demo'
GIB = 1024 ** 3
WAIT = 30
#: Concurrent clients of test_concurrent_clients.
CLIENTS = 16

# Roles of a project member (noauth makes a caller without X-Roles an
# admin).
MEMBER_ROLES = 'member,reader'


def cinder(server, user='alice', project=PROJECT, roles=MEMBER_ROLES,
           version=VERSION):
    """A cinderclient of ``user`` in ``project`` (an admin when ``roles``
    is None)."""
    auth = noauth.CinderNoAuthPlugin(user, project,
                                     endpoint=server.endpoint)
    headers = {'X-Roles': roles} if roles else None
    session = ks_session.Session(auth=auth, additional_headers=headers)
    return cinder_client.Client(version, session=session)


def wait_for_volume(client, volume_id, statuses=('creating',)):
    """The volume once its status has left ``statuses``."""
    deadline = time.monotonic() + WAIT
    volume = client.volumes.get(volume_id)
    while volume.status in statuses and time.monotonic() < deadline:
        time.sleep(0.05)
        volume = client.volumes.get(volume_id)
    return volume


def wait_until_gone(client, volume_id):
    """None once the volume is not found, else its last status."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            volume = client.volumes.get(volume_id)
        except cinder_exc.NotFound:
            return None
        time.sleep(0.05)
    return volume.status


class _AllInOneTestCase(base.BaseTestCase):
    """Tests sharing one ``cinder-ma-all`` per class."""

    def setUp(self):
        super().setUp()
        self.server = func_fixtures.class_fixture(self,
                                                  func_fixtures.AllInOne)
        self.server.attach_logs_on_failure(self)

    def volume_path(self, volume_id):
        return os.path.join(self.server.volumes_dir, 'volume-' + volume_id)


class CinderClientTestCase(_AllInOneTestCase):

    def setUp(self):
        super().setUp()
        self.cinder = cinder(self.server)
        self.admin = cinder(self.server, user='admin', project='admin',
                            roles=None)

    def _create(self, client=None, size=1, **kwargs):
        """A new available volume, deleted at cleanup if still there."""
        client = client or self.cinder
        volume = client.volumes.create(size, **kwargs)
        self.addCleanup(self._delete_quietly, client, volume.id)
        self.assertEqual('creating', volume.status)
        volume = wait_for_volume(client, volume.id)
        self.assertEqual('available', volume.status)
        return volume

    def _delete_quietly(self, client, volume_id):
        try:
            # A delete the test sent may still be running: wait for it
            # (the volume is gone then) rather than send a second one.
            wait_for_volume(client, volume_id,
                            statuses=('creating', 'deleting'))
            client.volumes.delete(volume_id)
        except cinder_exc.NotFound:
            return
        wait_until_gone(client, volume_id)

    def test_volume_lifecycle(self):
        volume = self._create(size=2, name='data', description='first',
                              metadata={'purpose': 'test'})
        self.assertEqual(2, volume.size)
        self.assertEqual('data', volume.name)
        self.assertEqual('first', volume.description)
        self.assertEqual({'purpose': 'test'}, volume.metadata)
        self.assertEqual('__DEFAULT__', volume.volume_type)
        self.assertFalse(volume.multiattach)
        self.assertEqual('false', volume.bootable)
        self.assertEqual(PROJECT, getattr(volume,
                                          'os-vol-tenant-attr:tenant_id'))
        # The manager made the sparse file, in the state directory that
        # cinder-ma-all reported.
        self.assertEqual(self.server.state_path,
                         self.server.reported_state_path)
        path = self.volume_path(volume.id)
        self.assertEqual(2 * GIB, os.stat(path).st_size)

        summary = {v.id: v for v in self.cinder.volumes.list(
            detailed=False)}
        self.assertIn(volume.id, summary)
        self.assertEqual('data', summary[volume.id].name)
        self.assertFalse(hasattr(summary[volume.id], 'status'))
        detail = {v.id: v for v in self.cinder.volumes.list()}
        self.assertEqual('available', detail[volume.id].status)
        self.assertEqual(2, detail[volume.id].size)
        filtered = self.cinder.volumes.list(search_opts={'name': 'data'})
        self.assertEqual([volume.id], [v.id for v in filtered])

        self.cinder.volumes.update(volume, name='renamed',
                                   description='second')
        self.cinder.volumes.update(volume,
                                   metadata={'purpose': 'prod', 'k': 'v'})
        shown = self.cinder.volumes.get(volume.id)
        self.assertEqual('renamed', shown.name)
        self.assertEqual('second', shown.description)
        self.assertEqual({'purpose': 'prod', 'k': 'v'}, shown.metadata)
        self.assertEqual('available', shown.status)

        self.cinder.volumes.delete(volume)
        self.assertIsNone(wait_until_gone(self.cinder, volume.id))
        self.assertFalse(os.path.exists(path))
        self.assertNotIn(volume.id,
                         [v.id for v in self.cinder.volumes.list()])

    def test_concurrent_clients(self):
        # The embedded SQLite database holds up under concurrent writers.
        # More volumes than the default quota (10).
        self.admin.quotas.update(PROJECT, volumes=-1)
        self.addCleanup(self.admin.quotas.delete, PROJECT)
        def create(index):
            client = cinder(self.server)
            return client.volumes.create(1, name='parallel-%d' % index).id

        def delete(volume_id):
            client = cinder(self.server)
            self.assertEqual('available',
                             wait_for_volume(client, volume_id).status)
            client.volumes.delete(volume_id)
            return wait_until_gone(client, volume_id)

        with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
            ids = list(pool.map(create, range(CLIENTS)))
            for volume_id in ids:
                self.addCleanup(self._delete_quietly, self.cinder, volume_id)
            self.assertEqual(CLIENTS, len(set(ids)))
            self.assertEqual([None] * CLIENTS, list(pool.map(delete, ids)))
        for volume_id in ids:
            self.assertFalse(os.path.exists(self.volume_path(volume_id)))

    def test_calls_at_start(self):
        """What dashboards and the CLI ask first: limits, quotas, zones,
        pools and the volume summary."""
        self.addCleanup(self.admin.quotas.delete, PROJECT)
        volume = self._create(size=2, metadata={'tier': 'gold'})

        absolute = {limit.name: limit.value
                    for limit in self.cinder.limits.get().absolute}
        self.assertEqual(10, absolute['maxTotalVolumes'])
        self.assertEqual(1000, absolute['maxTotalVolumeGigabytes'])
        self.assertGreaterEqual(absolute['totalVolumesUsed'], 1)
        self.assertGreaterEqual(absolute['totalGigabytesUsed'], 2)

        quotas = self.cinder.quotas.get(PROJECT)
        self.assertEqual((10, 1000, -1), (quotas.volumes, quotas.gigabytes,
                                          quotas.per_volume_gigabytes))
        usage = self.cinder.quotas.get(PROJECT, usage=True)
        self.assertEqual(10, usage.volumes['limit'])
        self.assertGreaterEqual(usage.volumes['in_use'], 1)
        self.assertEqual(10, self.cinder.quotas.defaults(PROJECT).volumes)
        self.assertRaises(cinder_exc.Forbidden, self.cinder.quotas.update,
                          PROJECT, volumes=50)
        updated = self.admin.quotas.update(PROJECT, volumes=50,
                                           per_volume_gigabytes=3)
        self.assertEqual(50, updated.volumes)
        exc = self.assertRaises(cinder_exc.OverLimit,
                                self.cinder.volumes.create, 4)
        self.assertEqual(413, exc.code)
        self.assertEqual('Requested volume size 4 is larger than maximum '
                         'allowed limit 3.', exc.message)
        self.admin.quotas.delete(PROJECT)
        self.assertEqual(10, self.cinder.quotas.get(PROJECT).volumes)
        self.assertEqual(
            10, self.admin.quota_classes.get('default').volumes)

        zones = self.cinder.availability_zones.list()
        self.assertEqual([('nova', {'available': True})],
                         [(z.zoneName, z.zoneState) for z in zones])

        pools = self.admin.pools.list(detailed=True)
        self.assertEqual(1, len(pools))
        self.assertTrue(pools[0].name.endswith('@file#file'))
        self.assertTrue(pools[0].multiattach)
        self.assertRaises(cinder_exc.Forbidden, self.cinder.pools.list)

        summary = self.cinder.volumes.summary(all_tenants=False)
        self.assertGreaterEqual(summary['volume-summary']['total_count'], 1)
        self.assertGreaterEqual(summary['volume-summary']['total_size'], 2)
        self.assertIn('gold',
                      summary['volume-summary']['metadata']['tier'])
        self.cinder.volumes.delete(volume)

    def test_encryption_metadata(self):
        """What Nova reads of an encrypted volume and Horizon shows of
        one (GET /volumes/{id}/encryption)."""
        volume = self._create()
        self.assertEqual({'encryption_key_id': None},
                         self.cinder.volumes.get_encryption_metadata(
                             volume.id))

    def test_resources_cinder_ma_does_not_have(self):
        """The lists Horizon and the CLI make of backups, groups, group
        types and group snapshots are empty, as a Cinder deployment
        without them answers; an id is not found; a
        creation names the missing feature."""
        volume = self._create()
        latest = cinder(self.server, version=mv.MAX_VERSION)
        for client in (self.cinder, latest):
            self.assertEqual([], client.backups.list())
            self.assertEqual([], client.groups.list())
            self.assertEqual([], client.group_types.list())
            self.assertEqual([], client.group_snapshots.list())
        # Horizon's paged backup list asks for the count (3.45).
        backups, count = latest.backups.list(search_opts={
            'with_count': True})
        self.assertEqual(([], 0), (list(backups), count))

        missing = '4d9a2b1c-8e7f-4a3b-9c2d-1e0f5a6b7c8d'
        exc = self.assertRaises(cinder_exc.NotFound,
                                self.cinder.backups.get, missing)
        self.assertEqual('Backup %s could not be found.' % missing,
                         exc.message)
        for create, feature in (
                (lambda: self.cinder.backups.create(volume.id),
                 'volume backups'),
                (lambda: latest.groups.create('group-type', 'vt'),
                 'generic volume groups')):
            exc = self.assertRaises(cinder_exc.BadRequest, create)
            self.assertEqual('cinder_ma does not support %s.' % feature,
                             exc.message)
        # Horizon looks for Cinder's extensions by name, as it lists them.
        from cinderclient.v3.contrib import list_extensions
        names = {ext.name for ext in list_extensions.ListExtManager(
            self.cinder).show_all()}
        self.assertLessEqual({'AvailabilityZones', 'VolumeTypeEncryption',
                              'Services'}, names)

    def test_volume_transfer(self):
        """A member offers a volume; another project accepts it with the
        key (once); a second offer is withdrawn."""
        volume = self._create()
        latest = cinder(self.server, version=mv.MAX_VERSION)
        transfer = latest.transfers.create(volume.id, name='gift',
                                           no_snapshots=True)
        self.assertTrue(transfer.auth_key)
        self.assertTrue(transfer.no_snapshots)
        self.assertEqual('awaiting-transfer',
                         self.cinder.volumes.get(volume.id).status)
        self.assertEqual([transfer.id],
                         [t.id for t in self.cinder.transfers.list()])
        # The key is not shown again.
        self.assertFalse(hasattr(self.cinder.transfers.get(transfer.id),
                                 'auth_key'))
        bob = cinder(self.server, user='bob', project='other')
        self.assertEqual([], bob.transfers.list())
        exc = self.assertRaises(cinder_exc.BadRequest, bob.transfers.accept,
                                transfer.id, 'not-the-key')
        self.assertIn('Invalid auth key', exc.message)
        bob.transfers.accept(transfer.id, transfer.auth_key)
        # Bob's now: Alice no longer sees it.
        self.assertEqual('available', bob.volumes.get(volume.id).status)
        self.assertRaises(cinder_exc.NotFound, self.cinder.volumes.get,
                          volume.id)
        self.assertRaises(cinder_exc.NotFound, bob.transfers.accept,
                          transfer.id, transfer.auth_key)
        # Withdrawn: the volume is available to its owner again.
        again = bob.transfers.create(volume.id)
        bob.transfers.delete(again.id)
        self.assertEqual('available', bob.volumes.get(volume.id).status)
        bob.volumes.delete(volume.id)
        self.assertIsNone(wait_until_gone(bob, volume.id))

    def test_volume_transfer_with_snapshots(self):
        """Without no_snapshots a volume's snapshots go with it (and
        must be available); with it they stay with the donor."""
        volume = self._create()
        snapshot = self._snapshot(self.cinder, volume.id)
        latest = cinder(self.server, version=mv.MAX_VERSION)
        transfer = latest.transfers.create(volume.id)
        self.assertFalse(transfer.no_snapshots)
        bob = cinder(self.server, user='bob', project='other')
        bob.transfers.accept(transfer.id, transfer.auth_key)
        self.assertEqual([snapshot.id],
                         [s.id for s in bob.volume_snapshots.list()])
        self.assertEqual([], self.cinder.volume_snapshots.list())
        # Bob gives it back without the snapshot: it stays his.
        bob_latest = cinder(self.server, user='bob', project='other',
                            version=mv.MAX_VERSION)
        back = bob_latest.transfers.create(volume.id, no_snapshots=True)
        self.cinder.transfers.accept(back.id, back.auth_key)
        self.assertEqual('available',
                         self.cinder.volumes.get(volume.id).status)
        self.assertEqual([snapshot.id],
                         [s.id for s in bob.volume_snapshots.list()])
        bob.volume_snapshots.delete(snapshot.id)
        deadline = time.monotonic() + WAIT
        while bob.volume_snapshots.list() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.cinder.volumes.delete(volume.id)
        self.assertIsNone(wait_until_gone(self.cinder, volume.id))

    def _snapshot(self, client, volume_id, **kwargs):
        snapshot = client.volume_snapshots.create(volume_id, **kwargs)
        deadline = time.monotonic() + WAIT
        while snapshot.status == 'creating' and \
                time.monotonic() < deadline:
            time.sleep(0.05)
            snapshot = client.volume_snapshots.get(snapshot.id)
        self.assertEqual('available', snapshot.status)
        return snapshot

    def test_snapshots_copies_and_cascade(self):
        """Snapshots with python-cinderclient: create, list, show,
        update, metadata; a volume made from one holds its data; a clone
        of a volume likewise; a volume with
        snapshots is deleted only with cascade."""
        volume = self._create(name='with-snapshots')
        with open(self.volume_path(volume.id), 'r+b') as f:
            f.write(b'first')
        latest = cinder(self.server, version=mv.MAX_VERSION)
        snapshot = self._snapshot(latest, volume.id, name='s1',
                                  metadata={'k': 'v'})
        self.assertEqual(('s1', 1, volume.id, {'k': 'v'}),
                         (snapshot.name, snapshot.size, snapshot.volume_id,
                          snapshot.metadata))
        self.assertIn(snapshot.id, [s.id for s in
                                    latest.volume_snapshots.list()])
        latest.volume_snapshots.update(snapshot, name='s2')
        latest.volume_snapshots.set_metadata(snapshot, {'a': 'b'})
        shown = latest.volume_snapshots.get(snapshot.id)
        self.assertEqual(('s2', {'k': 'v', 'a': 'b'}),
                         (shown.name, shown.metadata))
        with open(self.volume_path(volume.id), 'r+b') as f:
            f.write(b'later')

        made = self._create(client=latest, size=2, snapshot_id=snapshot.id)
        self.assertEqual((2, snapshot.id), (made.size, made.snapshot_id))
        with open(self.volume_path(made.id), 'rb') as f:
            self.assertEqual(b'first', f.read(5))
        self.assertEqual(2 * GIB, os.path.getsize(self.volume_path(made.id)))
        clone = self._create(client=latest, source_volid=volume.id)
        self.assertEqual(volume.id, clone.source_volid)
        with open(self.volume_path(clone.id), 'rb') as f:
            self.assertEqual(b'later', f.read(5))

        exc = self.assertRaises(cinder_exc.BadRequest,
                                latest.volumes.delete, volume)
        self.assertIn('have snapshots', exc.message)
        latest.volumes.delete(volume, cascade=True)
        self.assertIsNone(wait_until_gone(latest, volume.id))
        self.assertRaises(cinder_exc.NotFound, latest.volume_snapshots.get,
                          snapshot.id)
        self.assertFalse(os.path.exists(os.path.join(
            self.server.volumes_dir, 'snapshot-' + snapshot.id)))

    def test_revert_and_in_use_snapshots(self):
        volume = self._create()
        with open(self.volume_path(volume.id), 'r+b') as f:
            f.write(b'kept!')
        latest = cinder(self.server, version=mv.MAX_VERSION)
        snapshot = self._snapshot(latest, volume.id)
        with open(self.volume_path(volume.id), 'r+b') as f:
            f.write(b'lost!')
        latest.volumes.revert_to_snapshot(volume, snapshot)
        volume = wait_for_volume(latest, volume.id, ('reverting',))
        self.assertEqual('available', volume.status)
        with open(self.volume_path(volume.id), 'rb') as f:
            self.assertEqual(b'kept!', f.read(5))
        # An attached volume: force below 3.66, not needed from it.
        attachment = self.admin.attachments.create(
            volume.id, {'host': 'h', 'initiator': 'i'},
            '8b3e7a5c-0c1d-4f3e-9a8b-6c5d4e3f2a1b')
        self.admin.attachments.complete(attachment['id'])
        self.assertEqual('in-use', latest.volumes.get(volume.id).status)
        exc = self.assertRaises(cinder_exc.BadRequest,
                                self.cinder.volume_snapshots.create,
                                volume.id)
        self.assertIn('current status is: in-use', exc.message)
        self._snapshot(self.cinder, volume.id, force=True)
        in_use = self._snapshot(latest, volume.id)
        exc = self.assertRaises(cinder_exc.ClientException,
                                latest.volumes.revert_to_snapshot, volume,
                                in_use)
        self.assertEqual(409, exc.code)
        # As the compute service that attached it (its service token).
        service = cinder_client.Client(VERSION, session=ks_session.Session(
            auth=noauth.CinderNoAuthPlugin('admin', 'admin',
                                           endpoint=self.server.endpoint),
            additional_headers={'X-Service-Roles': 'service'}))
        service.attachments.delete(attachment['id'])
        self.assertEqual('available', wait_for_volume(
            latest, volume.id, ('in-use', 'detaching')).status)
        latest.volumes.delete(volume, cascade=True)
        self.assertIsNone(wait_until_gone(latest, volume.id))

    def test_invalid_sizes(self):
        cases = {
            0: 'Invalid input for field/attribute size. Value: 0. 0 is '
               'less than the minimum of 1',
            -1: 'Invalid input for field/attribute size. Value: -1. -1 is '
                'less than the minimum of 1',
            2 ** 31: 'Invalid input for field/attribute size. Value: '
                     '2147483648. 2147483648 is greater than the maximum '
                     'of 2147483647',
            'abc': 'Invalid input for field/attribute size. Value: "abc". '
                   "'abc' does not match '^[0-9]+$'",
        }
        for size, message in cases.items():
            exc = self.assertRaises(cinder_exc.BadRequest,
                                    self.cinder.volumes.create, size)
            self.assertEqual(400, exc.code)
            self.assertEqual(message, exc.message)

    def test_no_backend_is_an_error_volume_with_a_user_message(self):
        """A type whose extra specs no backend meets: as Cinder, the
        volume is 'error' and its project reads why in a user message
        (3.3), which it may delete."""
        vtype = self.admin.volume_types.create('no-backend-has-it')
        self.addCleanup(self.admin.volume_types.delete, vtype.id)
        vtype.set_keys({'capabilities:no_such_feature': '<is> True'})
        volume = self.cinder.volumes.create(1, volume_type=vtype.id)
        self.addCleanup(self._delete_quietly, self.cinder, volume.id)
        self.assertEqual('error', wait_for_volume(self.cinder,
                                                  volume.id).status)
        client = cinder(self.server, version='3.5')
        mine = client.messages.list(
            search_opts={'resource_uuid': volume.id})
        self.assertEqual(1, len(mine), mine)
        message = client.messages.get(mine[0].id)
        self.assertEqual(
            ('VOLUME_VOLUME_001_003', 'VOLUME', volume.id, 'ERROR'),
            (message.event_id, message.resource_type,
             message.resource_uuid, message.message_level))
        self.assertEqual('schedule allocate volume:Could not find any '
                         'available weighted backend.',
                         message.user_message)
        # Members are not told where the backends are.
        self.assertNotIn('@', message.user_message)
        # Another project does not see it; its own project deletes it.
        other = cinder(self.server, user='bob', project='other',
                       version='3.5')
        self.assertRaises(cinder_exc.NotFound, other.messages.get,
                          message.id)
        client.messages.delete(message)
        self.assertRaises(cinder_exc.NotFound, client.messages.get,
                          message.id)
        # The error volume is deleted as any.
        self.cinder.volumes.delete(volume.id)
        self.assertIsNone(wait_until_gone(self.cinder, volume.id))

    def test_show_unknown_volume(self):
        missing = '2f1b0a4e-0f5c-4c8e-9b1e-6d9e1c1d0a11'
        exc = self.assertRaises(cinder_exc.NotFound,
                                self.cinder.volumes.get, missing)
        self.assertEqual(404, exc.code)
        self.assertEqual('Volume %s could not be found.' % missing,
                         exc.message)
        # Not a UUID: not found either, as in Cinder.
        self.assertRaises(cinder_exc.NotFound, self.cinder.volumes.get,
                          'not-a-uuid')
        self.assertRaises(cinder_exc.NotFound, self.cinder.volumes.delete,
                          missing)

    def test_negotiates_the_highest_version(self):
        base = cinder(self.server, version='3.0')
        version = api_versions.discover_version(
            base, api_versions.APIVersion(api_versions.MAX_VERSION))
        self.assertEqual(api_versions.APIVersion(mv.MAX_VERSION), version)
        negotiated = cinder(self.server, version=version)
        self.assertIsInstance(negotiated.volumes.list(), list)

    def test_multiattach_volume_type(self):
        name = func_fixtures.unique('shareable')
        vtype = self.admin.volume_types.create(name, description='shared',
                                               is_public=True)
        self.addCleanup(self.admin.volume_types.delete, vtype.id)
        vtype.set_keys({'multiattach': '<is> True'})
        self.assertEqual({'multiattach': '<is> True'},
                         self.admin.volume_types.get(vtype.id).get_keys())
        self.assertIn(name, [t.name for t in
                             self.cinder.volume_types.list()])

        # Members may create shareable volumes of the type the
        # administrator made (volume:multiattach, as in Cinder); a cloud
        # may close the rule to them.
        by_member = self._create(volume_type=name, name='members')
        self.assertTrue(by_member.multiattach)
        volume = self._create(client=self.admin, volume_type=name,
                              name='shared')
        self.assertTrue(volume.multiattach)
        self.assertEqual(name, volume.volume_type)
        plain = self._create(client=self.admin, name='plain')
        self.assertFalse(plain.multiattach)
        shareable = self.admin.volumes.list(
            search_opts={'multiattach': True})
        self.assertIn(volume.id, [v.id for v in shareable])
        self.assertNotIn(plain.id, [v.id for v in shareable])

    def test_other_project_cannot_see_the_volume(self):
        volume = self._create(name='private')
        other = cinder(self.server, user='bob', project='other')
        exc = self.assertRaises(cinder_exc.NotFound, other.volumes.get,
                                volume.id)
        self.assertEqual('Volume %s could not be found.' % volume.id,
                         exc.message)
        self.assertNotIn(volume.id, [v.id for v in other.volumes.list()])
        self.assertRaises(cinder_exc.NotFound, other.volumes.update,
                          volume.id, name='stolen')
        self.assertRaises(cinder_exc.NotFound, other.volumes.delete,
                          volume.id)
        # Even all_tenants shows a member nothing of other projects.
        self.assertNotIn(volume.id, [v.id for v in other.volumes.list(
            search_opts={'all_tenants': 1})])
        # Untouched, and an admin sees it.
        self.assertEqual('private', self.cinder.volumes.get(volume.id).name)
        self.assertEqual(volume.id, self.admin.volumes.get(volume.id).id)


class CommandLineTestCase(_AllInOneTestCase):
    """The README's commands: the cinder and openstack command lines."""

    def _run(self, name, *args, **env):
        environ = {k: v for k, v in func_fixtures.environ().items()
                   if not k.startswith('OS_')}
        environ.update(env)
        result = subprocess.run(
            [os.path.join(func_fixtures.BIN_DIR, name)] + list(args),
            env=environ, capture_output=True, text=True,
            timeout=func_fixtures.START_TIMEOUT, check=False)
        self.assertEqual(0, result.returncode, result.stderr)
        return result.stdout

    def _cinder(self, *args):
        return self._run(
            'cinder', '--os-endpoint', self.server.project_url(PROJECT),
            *args, OS_AUTH_TYPE='noauth', OS_USER_ID='alice',
            OS_PROJECT_ID=PROJECT)

    def test_cinder(self):
        name = func_fixtures.unique('cli')
        out = self._cinder('--os-volume-api-version', VERSION, 'create',
                           '--name', name, '1')
        (volume_id,) = [line.split('|')[2].strip()
                        for line in out.splitlines()
                        if line.startswith('| id ')]
        client = cinder(self.server, roles=None)
        self.addCleanup(client.volumes.delete, volume_id)
        self.assertEqual('available',
                         wait_for_volume(client, volume_id).status)
        out = self._cinder('list')
        (line,) = [line for line in out.splitlines() if volume_id in line]
        self.assertIn('| available |', line)
        self.assertIn('| %s |' % name, line)

    def test_openstack(self):
        if not os.access(os.path.join(func_fixtures.BIN_DIR, 'openstack'),
                         os.X_OK):
            self.skipTest('python-openstackclient is not installed')
        volume = cinder(self.server).volumes.create(1, name='osc')
        self.addCleanup(self._delete, volume.id)
        out = self._run(
            'openstack', '--os-auth-type', 'admin_token',
            '--os-token', 'alice:%s' % PROJECT,
            '--os-endpoint', self.server.project_url(PROJECT),
            '--os-volume-api-version', VERSION, 'volume', 'list',
            '-f', 'json')
        self.assertIn(volume.id, [v['ID'] for v in json.loads(out)])

    def _openstack(self, version, *args):
        return json.loads(self._run(
            'openstack', '--os-auth-type', 'admin_token',
            '--os-token', 'alice:%s' % PROJECT,
            '--os-endpoint', self.server.project_url(PROJECT),
            '--os-volume-api-version', version, *args, '-f', 'json'))

    def test_openstack_snapshots_transfers_messages(self):
        """The openstack command line on what issue 23 added: a snapshot
        made, listed, shown and deleted; a transfer offered and withdrawn;
        the user messages listed."""
        if not os.access(os.path.join(func_fixtures.BIN_DIR, 'openstack'),
                         os.X_OK):
            self.skipTest('python-openstackclient is not installed')
        client = cinder(self.server)
        volume = client.volumes.create(1, name='osc-snap')
        self.addCleanup(self._delete, volume.id, True)
        wait_for_volume(client, volume.id)
        made = self._openstack('3.55', 'volume', 'snapshot', 'create',
                               '--volume', volume.id, 'osc-s1')
        self.assertEqual(volume.id, made['volume_id'])
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            shown = self._openstack('3.55', 'volume', 'snapshot', 'show',
                                    made['id'])
            if shown['status'] != 'creating':
                break
            time.sleep(0.2)
        self.assertEqual('available', shown['status'])
        self.assertIn(made['id'], [s['ID'] for s in self._openstack(
            '3.55', 'volume', 'snapshot', 'list')])
        self._run('openstack', '--os-auth-type', 'admin_token',
                  '--os-token', 'alice:%s' % PROJECT,
                  '--os-endpoint', self.server.project_url(PROJECT),
                  '--os-volume-api-version', '3.55', 'volume', 'snapshot',
                  'delete', made['id'])
        offer = self._openstack('3.55', 'volume', 'transfer', 'request',
                                'create', '--name', 'osc-gift', volume.id)
        self.assertTrue(offer['auth_key'])
        self.assertEqual('awaiting-transfer',
                         client.volumes.get(volume.id).status)
        self.assertIn(offer['id'], [t['ID'] for t in self._openstack(
            '3.55', 'volume', 'transfer', 'request', 'list')])
        self._run('openstack', '--os-auth-type', 'admin_token',
                  '--os-token', 'alice:%s' % PROJECT,
                  '--os-endpoint', self.server.project_url(PROJECT),
                  '--os-volume-api-version', '3.55', 'volume', 'transfer',
                  'request', 'delete', offer['id'])
        self.assertEqual('available', client.volumes.get(volume.id).status)
        self.assertIsInstance(self._openstack(
            '3.55', 'volume', 'message', 'list'), list)

    def _delete(self, volume_id, cascade=False):
        client = cinder(self.server)
        wait_for_volume(client, volume_id)
        client.volumes.delete(volume_id, cascade=cascade)


class RawHTTPTestCase(_AllInOneTestCase):
    """What no client sends: bad versions, broken bodies, wrong URLs."""

    def _request(self, method, path, body=None, version=None, data=None,
                 token='alice:%s' % PROJECT, project=PROJECT,
                 roles=MEMBER_ROLES):
        headers = {'Accept': 'application/json'}
        if token:
            headers['X-Auth-Token'] = token
        if roles:
            headers['X-Roles'] = roles
        if version:
            headers['OpenStack-API-Version'] = version
        if body is not None:
            data = json.dumps(body)
        if data is not None:
            headers['Content-Type'] = 'application/json'
        return requests.request(
            method, '%s/%s%s' % (self.server.endpoint, project, path),
            data=data, headers=headers,
            timeout=func_fixtures.HTTP_TIMEOUT)

    def assertFault(self, response, code, name, message=None):
        self.assertEqual(code, response.status_code, response.text)
        self.assertEqual('application/json',
                         response.headers['Content-Type'].split(';')[0])
        body = response.json()
        self.assertEqual([name], list(body))
        self.assertEqual(code, body[name]['code'])
        if message is not None:
            self.assertEqual(message, body[name]['message'])
        return body[name]['message']

    def test_unsupported_microversion(self):
        for version in ('volume 3.99', 'volume 4.0', 'volume 2.0'):
            response = self._request('GET', '/volumes', version=version)
            message = self.assertFault(response, 406, 'computeFault')
            self.assertIn('is not supported by the API. Minimum is 3.0 '
                          'and maximum is %s.' % mv.MAX_VERSION, message)

    def test_malformed_microversion(self):
        response = self._request('GET', '/volumes', version='volume 3.x')
        self.assertFault(response, 400, 'badRequest',
                         'API Version String 3.x is of invalid format. '
                         'Must be of format MajorNum.MinorNum.')

    def test_microversion_in_response(self):
        for asked, served in ((None, '3.0'), ('volume 3.27', '3.27'),
                              ('volume latest', mv.MAX_VERSION),
                              ('compute 2.1, volume 3.50', '3.50')):
            response = self._request('GET', '/volumes', version=asked)
            self.assertEqual(200, response.status_code)
            self.assertEqual('volume ' + served,
                             response.headers['OpenStack-API-Version'])
            self.assertIn('OpenStack-API-Version', response.headers['Vary'])

    def test_malformed_json(self):
        for data in ('{"volume": {"size": 1}', 'not json', '{"volume": '):
            response = self._request('POST', '/volumes', data=data,
                                     version='volume 3.54')
            self.assertFault(response, 400, 'badRequest',
                             'Malformed request body')
        response = self._request('PUT', '/volumes/%s' % (
            '2f1b0a4e-0f5c-4c8e-9b1e-6d9e1c1d0a11'), data='{',
            version='volume 3.54')
        self.assertFault(response, 400, 'badRequest',
                         'Malformed request body')

    def test_unknown_field(self):
        body = {'volume': {'size': 1, 'colour': 'blue'}}
        for version in ('volume 3.53', 'volume 3.54'):
            response = self._request('POST', '/volumes', body=body,
                                     version=version)
            message = self.assertFault(response, 400, 'badRequest')
            self.assertIn("'colour' was unexpected", message)
        # Below 3.53 unknown keys are ignored, as in Cinder.
        response = self._request('POST', '/volumes', body=body,
                                 version='volume 3.52')
        self.assertEqual(202, response.status_code, response.text)
        volume_id = response.json()['volume']['id']
        self.addCleanup(self._delete, volume_id)

    def _delete(self, volume_id):
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            response = self._request('DELETE', '/volumes/' + volume_id)
            if response.status_code in (202, 404):
                return
            time.sleep(0.05)

    def test_legacy_multiattach_flag_refused_from_350(self):
        body = {'volume': {'size': 1, 'multiattach': True}}
        response = self._request('POST', '/volumes', body=body,
                                 version='volume 3.50')
        message = self.assertFault(response, 400, 'badRequest')
        self.assertIn('The multiattach flag of volume create is not '
                      'accepted from microversion 3.50 on', message)

    def test_url_of_another_project(self):
        # What a cinderclient user meets whose --os-project-id is not the
        # endpoint's project: Cinder's message, and what differs.
        response = self._request('GET', '/volumes', project='other')
        message = self.assertFault(response, 400, 'badRequest')
        self.assertIn('Malformed request url: the URL names project other '
                      'but the token is scoped to project %s' % PROJECT,
                      message)
        self.assertIn("cinderclient's --os-project-id", message)

    def test_no_token(self):
        response = self._request('GET', '/volumes', token=None)
        self.assertFault(response, 401, 'unauthorized')

    def test_version_documents_are_public(self):
        response = requests.get(self.server.url + '/',
                                timeout=func_fixtures.HTTP_TIMEOUT)
        self.assertEqual(300, response.status_code)
        (v3,) = response.json()['versions']
        self.assertEqual(('v3.0', '3.0', mv.MAX_VERSION),
                         (v3['id'], v3['min_version'], v3['version']))
        response = requests.get(self.server.endpoint + '/',
                                timeout=func_fixtures.HTTP_TIMEOUT)
        self.assertEqual(200, response.status_code)


class OpenStackSDKTestCase(_AllInOneTestCase):
    """openstacksdk's block_storage proxy.

    openstacksdk's ``none`` auth type sends no token at all, which noauth
    refuses; ``admin_token`` sends a fixed X-Auth-Token, the noauth
    "user:project", to a fixed endpoint.
    """

    def setUp(self):
        super().setUp()
        endpoint = self.server.project_url(PROJECT)
        self.conn = openstack.connection.Connection(
            auth_type='admin_token',
            auth={'token': 'alice:%s' % PROJECT, 'endpoint': endpoint},
            block_storage_endpoint_override=endpoint,
            block_storage_api_version='3')
        self.addCleanup(self.conn.close)

    def test_create_list_delete(self):
        storage = self.conn.block_storage
        volume = storage.create_volume(size=1, name='sdk-volume',
                                       metadata={'via': 'openstacksdk'})
        volume = storage.wait_for_status(volume, 'available', wait=WAIT,
                                         interval=0.1)
        self.assertEqual('sdk-volume', volume.name)
        self.assertEqual(1, volume.size)
        self.assertEqual({'via': 'openstacksdk'}, volume.metadata)
        self.assertTrue(os.path.exists(self.volume_path(volume.id)))

        listed = {v.id: v for v in storage.volumes()}
        self.assertEqual('available', listed[volume.id].status)
        self.assertEqual([volume.id], [v.id for v in storage.volumes(
            name='sdk-volume')])
        self.assertEqual('sdk-volume', storage.get_volume(volume.id).name)

        storage.delete_volume(volume)
        storage.wait_for_delete(volume, wait=WAIT, interval=0.1)
        self.assertRaises(sdk_exc.NotFoundException, storage.get_volume,
                          volume.id)
        self.assertFalse(os.path.exists(self.volume_path(volume.id)))

    def test_snapshots(self):
        storage = self.conn.block_storage
        volume = storage.wait_for_status(storage.create_volume(size=1),
                                         'available', wait=WAIT,
                                         interval=0.1)
        snapshot = storage.create_snapshot(volume_id=volume.id,
                                           name='sdk-snapshot')
        snapshot = storage.wait_for_status(snapshot, 'available',
                                           wait=WAIT, interval=0.1)
        self.assertEqual(('sdk-snapshot', 1),
                         (snapshot.name, snapshot.size))
        self.assertIn(snapshot.id, [s.id for s in storage.snapshots()])
        made = storage.wait_for_status(
            storage.create_volume(snapshot_id=snapshot.id), 'available',
            wait=WAIT, interval=0.1)
        self.assertEqual(snapshot.id, made.snapshot_id)
        storage.delete_snapshot(snapshot)
        storage.wait_for_delete(snapshot, wait=WAIT, interval=0.1)
        storage.delete_volume(made)
        storage.delete_volume(volume)
        storage.wait_for_delete(volume, wait=WAIT, interval=0.1)

    def test_resources_cinder_ma_does_not_have(self):
        storage = self.conn.block_storage
        self.assertEqual([], list(storage.backups()))
        self.assertEqual([], list(storage.groups()))
        self.assertEqual([], list(storage.group_types()))
        self.assertEqual([], list(storage.group_snapshots()))
        exc = self.assertRaises(sdk_exc.NotFoundException,
                                storage.get_backup,
                                '4d9a2b1c-8e7f-4a3b-9c2d-1e0f5a6b7c8d')
        self.assertIn('could not be found', str(exc))
