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

"""Tests of cinder-ma-manage, run through main() with an argv."""

import datetime
import io
import os

import fixtures
import sqlalchemy as sa

from cinder_ma.cmd import manage
from cinder_ma import context
from cinder_ma.db import api as db_api
from cinder_ma.db import migration
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from tests import base
from tests import fixtures as cm_fixtures


class CommandFixture(fixtures.Fixture):
    """Captures stdout/stderr; keeps logging setup out of the tests."""

    def _setUp(self):
        self.stdout = io.StringIO()
        self.stderr = io.StringIO()
        self.useFixture(fixtures.MonkeyPatch('sys.stdout', self.stdout))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', self.stderr))
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.cmd.logging.setup'))
        # Whatever cinder-ma-all left in the directory the tests run
        # from is not theirs (tests.unit.cmd.test_init tests the search).
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.cmd.ALL_IN_ONE_STATE_PATH', '/nonexistent/state'))


class EmptyDatabase(fixtures.Fixture):
    """The enginefacade pointed at a SQLite file that is not migrated."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def _setUp(self):
        self.useFixture(cm_fixtures.EngineFacade('sqlite:///%s' % self.path))


class DbCommandsTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.cmd = self.useFixture(CommandFixture())
        self.db_path = os.path.join(self.state_path, 'sub', 'manage.sqlite')
        os.makedirs(os.path.dirname(self.db_path))
        self.useFixture(EmptyDatabase(self.db_path))

    def test_version_sync_version(self):
        self.assertEqual(0, manage.main(['cinder-ma-manage', 'db',
                                         'version']))
        self.assertIn('None (run "cinder-ma-manage db sync")',
                      self.cmd.stdout.getvalue())
        self.assertEqual(0, manage.main(['cinder-ma-manage', 'db', 'sync']))
        out = self.cmd.stdout.getvalue()
        self.assertIn('Database at revision', out)
        self.assertIn('default volume type __DEFAULT__', out)
        self.cmd.stdout.truncate(0)
        self.cmd.stdout.seek(0)
        self.assertEqual(0, manage.main(['cinder-ma-manage', 'db',
                                         'version']))
        self.assertEqual(migration.version(),
                         self.cmd.stdout.getvalue().strip())
        # Twice is fine and keeps one default type.
        self.assertEqual(0, manage.main(['cinder-ma-manage', 'db', 'sync']))
        self.assertEqual(1, len(type_db.volume_type_get_all(
            context.get_admin_context())))

    def test_config_file(self):
        conf_file = os.path.join(self.state_path, 'test.conf')
        with open(conf_file, 'w') as f:
            f.write('[DEFAULT]\ndefault_volume_type = gold\n')
        self.assertEqual(0, manage.main(['cinder-ma-manage', '--config-file',
                                         conf_file, 'db', 'sync']))
        self.assertIn('default volume type gold',
                      self.cmd.stdout.getvalue())

    def test_service_list_before_sync_fails_clearly(self):
        self.assertEqual(1, manage.main(['cinder-ma-manage', 'service',
                                         'list']))
        err = self.cmd.stderr.getvalue()
        self.assertIn('cinder-ma-manage: error: service list failed', err)
        self.assertIn('db sync', err)
        self.assertIn('pass the --config-file files the services run with',
                      err)

    def test_help_of_every_command_is_a_whole_sentence(self):
        for category, (cls, actions) in manage.CATEGORIES.items():
            for doc in [cls.__doc__] + [getattr(cls, a).__doc__
                                        for a in actions]:
                summary = manage._summary(doc)
                self.assertNotIn('\n', summary)
                # The sentence goes to its end: its parentheses close.
                self.assertEqual(summary.count('('), summary.count(')'),
                                 summary)
        self.assertEqual(
            'Compare every live attachment with its backend\'s connections '
            'and its host\'s hypervisor: attachments without a connection '
            'or disk, connections and disks that no attachment accounts '
            'for', manage._summary(manage.AttachmentCommands.audit.__doc__))
        self.assertEqual('One thing', manage._summary(
            'One thing. Then\n    another.'))

    def test_bad_command_line(self):
        self.assertEqual(2, manage.main(['cinder-ma-manage', 'db', 'nope']))
        self.assertEqual(2, manage.main(['cinder-ma-manage', 'bogus']))
        self.assertEqual(2, manage.main(['cinder-ma-manage']))
        self.assertEqual(2, manage.main(['cinder-ma-manage', 'db', 'sync',
                                         '--config-file', '/nonexistent']))


class ServiceCommandsTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.cmd = self.useFixture(CommandFixture())

    def test_service_list(self):
        self.make_backend('node1@file', zone='zone1')
        self.make_backend('node2@file', heartbeat=False)
        self.assertEqual(0, manage.main(['cinder-ma-manage', 'service',
                                         'list']))
        lines = self.cmd.stdout.getvalue().splitlines()
        header = [c.strip() for c in lines[1].strip('|').split('|')]
        self.assertEqual(['Host', 'Binary', 'Zone', 'Status', 'State',
                          'Updated'], header)
        rows = [[c.strip() for c in line.strip('|').split('|')]
                for line in lines[3:-1]]
        self.assertEqual(['node1@file', 'cinder-ma-volume', 'zone1',
                          'enabled', 'up'], rows[0][:5])
        self.assertEqual(['node2@file', 'cinder-ma-volume', 'nova',
                          'enabled', 'down'], rows[1][:5])
        self.assertRegex(rows[0][5], r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$')

    def test_service_list_empty(self):
        self.assertEqual(0, manage.main(['cinder-ma-manage', 'service',
                                         'list']))
        self.assertEqual(4, len(self.cmd.stdout.getvalue().splitlines()))


class MaintenanceCommandsTestCase(base.DBTestCase):
    """db purge, volume check and the attachment audit's comparison."""

    def setUp(self):
        super().setUp()
        self.cmd = self.useFixture(CommandFixture())
        from cinder_ma.volume import types as vtypes
        self.vtype = vtypes.ensure_default_type(self.admin_context)

    def _volume(self, status='available', host='node1@file#file', **values):
        record = {'project_id': 'p', 'user_id': 'u', 'size': 1,
                  'status': status, 'host': host,
                  'volume_type_id': self.vtype.id}
        record.update(values)
        return volume_db.volume_create(self.admin_context, record)

    def _age(self, model, row_id, seconds):
        import datetime

        from oslo_utils import timeutils

        @db_api.writer
        def age(context):
            when = timeutils.utcnow() - datetime.timedelta(seconds=seconds)
            db_api.connection_of(context).execute(
                sa.update(model).where(model.id == row_id).values(
                    updated_at=when, created_at=when))
        age(self.admin_context)

    def test_db_purge(self):
        from cinder_ma.db import models
        old = self._volume()
        volume_db.volume_destroy(self.admin_context, old.id)
        kept = self._volume()
        self.assertEqual(0, manage.main([
            'cinder-ma-manage', 'db', 'purge', '--before', '2000-01-01']))

        @db_api.reader
        def ids(context):
            return set(db_api.connection_of(context).execute(
                sa.select(models.Volume.id)).scalars())

        self.assertIn(old.id, ids(self.admin_context))  # too recent
        import datetime

        from oslo_utils import timeutils
        tomorrow = (timeutils.utcnow() + datetime.timedelta(days=1))
        self.assertEqual(1, manage.main([
            'cinder-ma-manage', 'db', 'purge', '--before',
            tomorrow.isoformat()]))
        self.assertIn('is in the future', self.cmd.stderr.getvalue())
        now = timeutils.utcnow().isoformat()
        self.assertEqual(0, manage.main([
            'cinder-ma-manage', 'db', 'purge', '--before', now]))
        self.assertEqual({kept.id}, ids(self.admin_context))
        self.assertRegex(self.cmd.stdout.getvalue(), r'\| volumes +\| 1 ')

    def test_db_purge_bad_date(self):
        self.assertEqual(2, manage.main([
            'cinder-ma-manage', 'db', 'purge', '--before', 'yesterday']))

    def test_volume_check(self):
        from cinder_ma.db import models
        self.assertEqual(0, manage.main(['cinder-ma-manage', 'volume',
                                         'check']))
        self.assertIn('Nothing stuck', self.cmd.stdout.getvalue())
        stuck = self._volume(status='creating')
        self._age(models.Volume, stuck.id, 3600)
        fresh = self._volume(status='creating')
        wrong = self._volume(status='in-use')  # no attachment
        self.assertEqual(manage.FOUND, manage.main([
            'cinder-ma-manage', 'volume', 'check', '--older-than', '60']))
        out = self.cmd.stdout.getvalue()
        self.assertIn(stuck.id, out)
        self.assertNotIn(fresh.id, out)
        self.assertIn(wrong.id, out)
        self.assertIn('its attachments give available', out)

    def test_audit_compares_reports(self):
        import uuid

        from cinder_ma.db import attachments as attachment_db

        volume = self._volume(multiattach=True)
        atts = []
        for host in ('compute1', 'compute2'):
            att = attachment_db.attachment_reserve(
                self.admin_context, volume.id, str(uuid.uuid4()),
                manager_host=host)
            attachment_db.attachment_update(
                self.admin_context, att.id,
                {'attach_status': 'attached', 'attached_host': host,
                 'connector': {'host': host}})
            atts.append(att)
        reports = {
            # The storage node: one of the two connections is missing, and
            # one nobody accounts for is there.
            'node1': {'host': 'node1', 'hypervisor': None, 'backends': {
                'file': [{'volume_id': volume.id, 'host': 'compute1'},
                         {'volume_id': 'gone', 'host': 'compute9'}]}},
            'compute1': {'host': 'compute1', 'backends': {}, 'hypervisor': [
                {'instance_uuid': atts[0].instance_uuid,
                 'attachment_id': atts[0].id},
                {'instance_uuid': 'i-x', 'attachment_id': 'stray'}]},
            'compute2': 'the manager is down',
        }
        rows = manage.audit(self.admin_context, reports)
        problems = {(r[0], r[1]): r[3] for r in rows}
        self.assertEqual({
            ('attachment', atts[1].id):
                'no connection on backend node1@file',
            ('connection', 'gone'):
                'connected on node1@file but no live attachment uses it',
            ('disk', 'stray'):
                'attached to instance i-x but no live attachment has this '
                'id',
            ('host', 'compute2'): 'not audited: the manager is down',
        }, problems)

    def test_audit_of_per_attachment_connections(self):
        import uuid

        from cinder_ma.db import attachments as attachment_db
        from cinder_ma.db import fencing as fencing_db

        volume = self._volume(multiattach=True, host='node1@nbd#nbd')
        atts = []
        for _ in range(3):
            att = attachment_db.attachment_reserve(
                self.admin_context, volume.id, str(uuid.uuid4()))
            attachment_db.attachment_update(
                self.admin_context, att.id,
                {'attach_status': 'attached', 'attached_host': 'consumer',
                 'connector': {'host': 'consumer'},
                 'connection_info': {'driver_volume_type': 'nbd',
                                     'data': {'attachment_id': att.id}}})
            atts.append(att)
        fenced, kept, leaked = atts
        fencing_db.attachment_fence(self.admin_context, fenced.id)
        fencing_db.attachment_fence(self.admin_context, leaked.id)

        def connection(attachment_id):
            return {'volume_id': volume.id, 'host': 'consumer',
                    'attachment_id': attachment_id}

        # The fenced attachment has no connection, as it should; the
        # other fenced one still has its own, and one belongs to no
        # live attachment.
        reports = {'node1': {'host': 'node1', 'hypervisor': None,
                             'backends': {'nbd': [
                                 connection(kept.id), connection(leaked.id),
                                 connection('gone')]}}}
        rows = manage.audit(self.admin_context, reports)
        self.assertEqual(sorted([
            ['connection', volume.id, 'consumer',
             'connection of attachment %s, which is fenced on node1@nbd'
             % leaked.id],
            ['connection', volume.id, 'consumer',
             'connection of attachment gone, which is not a live '
             'attachment of the volume on node1@nbd']]), sorted(rows))
        reports['node1']['backends']['nbd'] = [connection(kept.id)]
        self.assertEqual([], manage.audit(self.admin_context, reports))

    def test_audit_compares_each_backend_with_its_volumes(self):
        """Two backends on one node: each backend's connections are
        compared with the attachments of its own volumes; a fenced
        attachment is expected to hold none."""
        import uuid

        from cinder_ma.db import attachments as attachment_db
        from cinder_ma.db import fencing as fencing_db

        def attached(volume, host):
            att = attachment_db.attachment_reserve(
                self.admin_context, volume.id, str(uuid.uuid4()))
            attachment_db.attachment_update(
                self.admin_context, att.id,
                {'attach_status': 'attached', 'attached_host': host,
                 'connector': {'host': host},
                 'connection_info': {'driver_volume_type': 'nbd',
                                     'data': {}}})
            return att

        on_file = self._volume(multiattach=True)
        on_nbd = self._volume(multiattach=True, host='node1@nbd#nbd')
        file_att = attached(on_file, 'compute1')
        fenced = attached(on_file, 'compute2')
        fencing_db.attachment_fence(self.admin_context, fenced.id)
        nbd_att = attached(on_nbd, 'compute1')
        reports = {'node1': {'host': 'node1', 'hypervisor': None,
                             'backends': {
                                 'file': [{'volume_id': on_file.id,
                                           'host': 'compute1'}],
                                 'nbd': [{'volume_id': on_file.id,
                                          'host': 'compute9'}]}}}
        rows = manage.audit(self.admin_context, reports)
        self.assertEqual([
            ['attachment', nbd_att.id, 'compute1',
             'no connection on backend node1@nbd'],
            ['connection', on_file.id, 'compute9',
             'connected on node1@nbd but no live attachment uses it'],
        ], rows)
        self.assertNotIn(file_att.id, str(rows))
        self.assertNotIn(fenced.id, str(rows))


class AttachmentDetachTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.cmd = self.useFixture(CommandFixture())

    def test_detaches_exactly_the_named_attachment(self):
        # The detach flow itself is the service layer's (tested there);
        # here: one attachment, forced, waited for.
        delete = self.useFixture(fixtures.MockPatch(
            'cinder_ma.volume.attachments.delete_attachment')).mock
        self.flags(rpc_transport='oslo')
        self.assertEqual(0, manage.main(['cinder-ma-manage', 'attachment',
                                         'detach', 'att-1']))
        (ctxt, att_id), kwargs = delete.call_args
        self.assertEqual('att-1', att_id)
        self.assertEqual({'force': True, 'wait': True}, kwargs)
        self.assertTrue(ctxt.is_admin)


class AttachmentCommandsTestCase(base.DBTestCase):
    """attachment audit and detach through main(), with the all-in-one's local
    transport: the command runs the host's manager in its own process and
    asks it over the (local) RPC API 1.4."""

    def setUp(self):
        super().setUp()
        self.cmd = self.useFixture(CommandFixture())
        self.flags(rpc_transport='local', enabled_backends=['file'])
        self.flags(group='hypervisor', driver='fake')
        from cinder_ma import rpc
        self.addCleanup(rpc.cleanup)

    def test_finds_the_missing_disk_and_the_stray_connection(self):
        import uuid

        from cinder_ma.db import attachments as attachment_db
        from cinder_ma.manager import manager as manager_lib
        from cinder_ma.manager import service as manager_service
        from cinder_ma.volume import types as vtypes

        vtype = vtypes.ensure_default_type(self.admin_context)
        backend = manager_service.load_backend(self.conf, 'testhost',
                                               'file')
        volume = volume_db.volume_create(self.admin_context, {
            'project_id': 'p', 'user_id': 'u', 'size': 1,
            'status': 'available', 'host': 'testhost@file#file',
            'volume_type_id': vtype.id})
        ref = manager_lib.volume_ref(volume)
        backend.driver.create_volume(ref)
        att = attachment_db.attachment_reserve(
            self.admin_context, volume.id, str(uuid.uuid4()),
            manager_host='testhost')
        attachment_db.attachment_update(
            self.admin_context, att.id,
            {'attach_status': 'attached', 'attached_host': 'testhost',
             'connector': {'host': 'testhost'}})
        backend.driver.initialize_connection(ref, {'host': 'testhost'},
                                             'rw')
        backend.driver.initialize_connection(ref, {'host': 'elsewhere'},
                                             'rw')
        self.assertEqual(manage.FOUND, manage.main(
            ['cinder-ma-manage', 'attachment', 'audit']),
            self.cmd.stderr.getvalue())
        out = self.cmd.stdout.getvalue()
        # The fake hypervisor of the command's own manager holds no disk.
        self.assertIn('not attached to instance %s on the hypervisor' %
                      att.instance_uuid, out)
        self.assertIn('connected on testhost@file but no live attachment',
                      out)
        self.assertIn('elsewhere', out)
        self.assertNotIn('no connection on backend', out)
        # Recorded for GET /cinder-ma-audits, as printed.
        from cinder_ma.db import audits as audit_db

        [run] = audit_db.audit_get_all(self.admin_context)
        self.assertEqual((self.conf.host, 1), (run.host, run.hosts_audited))
        self.assertEqual(run.findings_count, len(run.findings))
        self.assertIn(['attachment', att.id, 'testhost',
                       'not attached to instance %s on the hypervisor' %
                       att.instance_uuid], run.findings)

    def test_counts_hosts_and_names_external_consumers(self):
        import uuid

        from cinder_ma.db import attachments as attachment_db
        from cinder_ma.volume import types as vtypes

        vtype = vtypes.ensure_default_type(self.admin_context)
        volume = volume_db.volume_create(self.admin_context, {
            'project_id': 'p', 'user_id': 'u', 'size': 1,
            'status': 'available', 'host': 'testhost@file#file',
            'volume_type_id': vtype.id, 'multiattach': True})
        for host in ('compute-a', 'compute-a', 'compute-b'):
            att = attachment_db.attachment_reserve(
                self.admin_context, volume.id, str(uuid.uuid4()))
            attachment_db.attachment_update(
                self.admin_context, att.id,
                {'attach_status': 'reserved', 'connector': {'host': host}})
        self.assertEqual([('compute-a', 2), ('compute-b', 1)],
                         manage.external_hosts(self.admin_context))
        self.assertEqual(0, manage.main(
            ['cinder-ma-manage', 'attachment', 'audit']),
            self.cmd.stdout.getvalue() + self.cmd.stderr.getvalue())
        out = self.cmd.stdout.getvalue()
        self.assertIn('Every attachment of 1 host checked out.', out)
        from cinder_ma.db import audits as audit_db

        [run] = audit_db.audit_get_all(self.admin_context)
        self.assertEqual((1, 0, []), (run.hosts_audited,
                                      run.findings_count, run.findings))
        self.assertIn('the disks of the external consumers on compute-a '
                      '(2 attachments), compute-b (1 attachment)', out)

    def test_audit_not_recorded_is_logged(self):
        from cinder_ma.db import audits as audit_db

        self.useFixture(fixtures.MockPatchObject(
            audit_db, 'audit_create', side_effect=RuntimeError('db')))
        logged = self.expect_logged_errors()
        self.assertEqual(0, manage.main(
            ['cinder-ma-manage', 'attachment', 'audit']),
            self.cmd.stdout.getvalue() + self.cmd.stderr.getvalue())
        self.assertIn('checked out', self.cmd.stdout.getvalue())
        self.assertIn('Could not record the result of the attachment '
                      'audit', logged.output)

    def test_disks_attached_by_another_process_are_seen(self):
        # The fake hypervisor driver keeps its records in the host's state
        # directory, as a real host keeps its domains: what a worker of
        # cinder-ma-all attached, the command's own manager finds.
        import uuid

        from cinder_ma.db import attachments as attachment_db
        from cinder_ma.hypervisor.drivers import fake
        from cinder_ma.manager import manager as manager_lib
        from cinder_ma.manager import service as manager_service
        from cinder_ma.volume import types as vtypes

        vtype = vtypes.ensure_default_type(self.admin_context)
        backend = manager_service.load_backend(self.conf, 'testhost',
                                               'file')
        volume = volume_db.volume_create(self.admin_context, {
            'project_id': 'p', 'user_id': 'u', 'size': 1,
            'status': 'available', 'host': 'testhost@file#file',
            'volume_type_id': vtype.id})
        ref = manager_lib.volume_ref(volume)
        backend.driver.create_volume(ref)
        att = attachment_db.attachment_reserve(
            self.admin_context, volume.id, str(uuid.uuid4()),
            manager_host='testhost')
        attachment_db.attachment_update(
            self.admin_context, att.id,
            {'attach_status': 'attached', 'attached_host': 'testhost',
             'connector': {'host': 'testhost'}})
        info = backend.driver.initialize_connection(
            ref, {'host': 'testhost'}, 'rw')
        fake.FakeDriver(self.conf).attach_volume(att.instance_uuid, info,
                                                 att.id)
        self.assertEqual(0, manage.main(
            ['cinder-ma-manage', 'attachment', 'audit']),
            self.cmd.stdout.getvalue() + self.cmd.stderr.getvalue())
        self.assertIn('checked out', self.cmd.stdout.getvalue())

    def test_detach_one_of_a_shared_volume(self):
        import uuid

        from cinder_ma.db import attachments as attachment_db
        from cinder_ma.manager import manager as manager_lib
        from cinder_ma.manager import service as manager_service
        from cinder_ma.volume import types as vtypes

        vtype = vtypes.ensure_default_type(self.admin_context)
        backend = manager_service.load_backend(self.conf, 'testhost',
                                               'file')
        volume = volume_db.volume_create(self.admin_context, {
            'project_id': 'p', 'user_id': 'u', 'size': 1,
            'status': 'available', 'host': 'testhost@file#file',
            'volume_type_id': vtype.id, 'multiattach': True})
        ref = manager_lib.volume_ref(volume)
        backend.driver.create_volume(ref)
        atts = []
        for _ in range(2):
            att = attachment_db.attachment_reserve(
                self.admin_context, volume.id, str(uuid.uuid4()),
                manager_host='testhost')
            info = backend.driver.initialize_connection(
                ref, {'host': 'testhost'}, 'rw')
            attachment_db.attachment_update(
                self.admin_context, att.id,
                {'attach_status': 'attached', 'attached_host': 'testhost',
                 'connector': {'host': 'testhost'},
                 'connection_info': info})
            atts.append(att)
        self.assertEqual(0, manage.main(
            ['cinder-ma-manage', 'attachment', 'detach', atts[0].id]),
            self.cmd.stderr.getvalue())
        left = attachment_db.attachment_get_all(
            self.admin_context, filters={'volume_id': volume.id})
        self.assertEqual([atts[1].id], [a.id for a in left])
        self.assertEqual('in-use',
                         volume_db.volume_get(self.admin_context,
                                              volume.id).status)
        # The other attachment on the host still uses the connection.
        self.assertEqual([{'volume_id': volume.id, 'host': 'testhost'}],
                         backend.driver.list_connections())


class MessageCommandsTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.cmd = self.useFixture(CommandFixture())

    def test_message_purge_deletes_the_expired(self):
        from cinder_ma.db import messages as message_db
        from cinder_ma import message_field

        def record():
            return message_db.record(
                self.admin_context, 'p',
                message_field.Action.SCHEDULE_ALLOCATE_VOLUME)

        self.flags(message_ttl=1, group='message')
        expired = record()
        self.flags(message_ttl=3600, group='message')
        kept = record()
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.db.messages.utcnow',
            return_value=expired.expires_at + datetime.timedelta(
                seconds=1)))
        self.assertEqual(0, manage.main(['cinder-ma-manage', 'message',
                                         'purge']))
        self.assertIn('Purged 1 expired user messages',
                      self.cmd.stdout.getvalue())
        self.assertEqual([kept.id], [m.id for m in message_db.message_get_all(
            self.admin_context)])


class NbdCommandsTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.cmd = self.useFixture(CommandFixture())
        self.conf_file = os.path.join(self.state_path, 'nbd.conf')
        with open(self.conf_file, 'w') as f:
            f.write('[DEFAULT]\nenabled_backends = nbd-1,files\n'
                    'state_path = %s\n'
                    '[nbd-1]\nvolume_driver = nbd\n'
                    'nbd_export_host = 192.0.2.10\n'
                    '[files]\nvolume_driver = file\n' % self.state_path)

    def run_manage(self, *argv):
        return manage.main(['cinder-ma-manage', '--config-file',
                            self.conf_file, 'nbd', 'credentials'] +
                           list(argv))

    def test_writes_the_hosts_credentials(self):
        from cryptography import x509

        out = os.path.join(self.state_path, 'out')
        self.assertEqual(0, self.run_manage('nbd-1', 'compute-1', out),
                         self.cmd.stderr.getvalue())
        self.assertIn('nbd_tls_x509_cert_dir', self.cmd.stdout.getvalue())
        self.assertEqual(['ca-cert.pem', 'client-cert.pem',
                          'client-key.pem'], sorted(os.listdir(out)))
        self.assertEqual(0o600, os.stat(os.path.join(
            out, 'client-key.pem')).st_mode & 0o777)
        with open(os.path.join(out, 'client-cert.pem'), 'rb') as f:
            cert = x509.load_pem_x509_certificate(f.read())
        self.assertIn('compute-1', cert.subject.rfc4514_string())
        # The backend's directory keeps them: the same ones next time.
        again = os.path.join(self.state_path, 'again')
        self.assertEqual(0, self.run_manage('nbd-1', 'compute-1', again))
        for name in os.listdir(out):
            with open(os.path.join(out, name), 'rb') as a, \
                    open(os.path.join(again, name), 'rb') as b:
                self.assertEqual(a.read(), b.read())

    def test_refuses_other_backends(self):
        out = os.path.join(self.state_path, 'out')
        self.assertEqual(1, self.run_manage('files', 'compute-1', out))
        self.assertIn('not nbd', self.cmd.stderr.getvalue())
        self.assertEqual(1, self.run_manage('nope', 'compute-1', out))
        self.assertIn('not in enabled_backends', self.cmd.stderr.getvalue())
        self.assertEqual(1, self.run_manage('nbd-1', '../x', out))
        self.assertIn('cannot name', self.cmd.stderr.getvalue())
        self.assertFalse(os.path.exists(out))
