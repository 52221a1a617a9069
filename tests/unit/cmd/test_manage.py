"""Tests of cinder-ma-manage, run through main() with an argv."""

import io
import os

import fixtures
from oslo_db.sqlalchemy import enginefacade

from cinder_ma.cmd import manage
from cinder_ma import context
from cinder_ma.db import api as db_api
from cinder_ma.db import migration
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


class EmptyDatabase(fixtures.Fixture):
    """The enginefacade pointed at a SQLite file that is not migrated."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def _setUp(self):
        url = 'sqlite:///%s' % self.path
        cm_fixtures.CONF.set_override('connection', url,
                                           group='database')
        self.addCleanup(cm_fixtures.CONF.clear_override, 'connection',
                        group='database')
        factory = enginefacade._TransactionFactory()
        factory.configure(connection=url)
        original = db_api.main_context_manager._root_factory
        db_api.main_context_manager._root_factory = factory
        self.addCleanup(setattr, db_api.main_context_manager,
                        '_root_factory', original)
        self.addCleanup(factory.dispose_pool)


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
        self.assertEqual(1, len(db_api.volume_type_get_all(
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
