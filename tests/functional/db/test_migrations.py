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

"""The alembic migrations on SQLite, PostgreSQL and MariaDB/MySQL.

Each database walks the migrations one revision at a time from an empty
schema, with data checks after the revisions that have them
(``_check_<revision>``), and then must hold exactly the schema the models
describe: a model changed without a migration (or the reverse) fails here.

PostgreSQL and MariaDB run in a throw-away database on the servers of
tests/fixtures.py; a server that is down skips its tests (fails them with
``CINDER_MA_REQUIRE_SERVICES=1``).
"""

import datetime
import os
import subprocess
import sys
import uuid

from alembic import autogenerate
from alembic import migration as alembic_migration
from alembic import script as alembic_script
import fixtures
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import engines
from oslo_db.sqlalchemy import test_migrations
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

from cinder_ma.db import api as db_api
from cinder_ma.db import migration
from cinder_ma.db import models
from tests import base
from tests import fixtures as cm_fixtures


def _script_directory():
    return alembic_script.ScriptDirectory(os.path.join(
        os.path.dirname(migration.__file__), 'migrations'))


class EmptyDatabase(cm_fixtures.Database):
    """The throw-away database of :class:`Database`, left unmigrated.

    The enginefacade points at it, as in the services, so migrations run on
    the engine the commands use (with its SQLite pragmas).
    """

    def _setUp(self):
        if self.admin_url is None:
            self.url = 'sqlite:///%s' % os.path.join(
                self.state_path, 'migrations.sqlite')
        else:
            self.url = self._create_server_db()
        self.useFixture(cm_fixtures.EngineFacade(self.url))
        self.engine = db_api.get_engine()


def _is_mysql_boolean(column_type):
    """MySQL has no boolean type: SQLAlchemy creates BOOL, a TINYINT(1)."""
    return (isinstance(column_type, mysql.TINYINT)
            and column_type.display_width == 1)


def compare_type(ctxt, insp_col, meta_col, insp_type, meta_type):
    """True when the reflected type differs from the model's.

    Only a model Boolean reflected as MySQL's TINYINT(1) is accepted beyond
    alembic's own comparison (None lets alembic decide).
    """
    if ctxt.dialect.name == 'mysql' and isinstance(meta_type, sa.Boolean):
        return not _is_mysql_boolean(insp_type)
    return None


def compare_server_default(ctxt, insp_col, meta_col, insp_def, meta_def,
                           rendered_meta_def):
    """True when the reflected server default differs from the model's.

    MySQL reports the default of a TINYINT(1) column as '0' or '1', where
    the model says false() or true(); other columns and databases are left
    to alembic (None).
    """
    if (ctxt.dialect.name == 'mysql' and isinstance(meta_col.type, sa.Boolean)
            and meta_def is not None and insp_def is not None):
        expected = {'false': '0', 'true': '1', '0': '0', '1': '1'}.get(
            str(rendered_meta_def).strip("'").lower())
        return insp_def.strip("'") != expected
    return None


class MigrationsTestCase(test_migrations.ModelsMigrationsSync,
                         base.TestCase):
    """Walk the migrations and compare the result with the models.

    The comparison is oslo.db's ``ModelsMigrationsSync.test_models_sync``
    (the migrations to head, then alembic's autogenerate comparison with
    the models), with this module's type and server-default rules.
    """

    DATABASE = 'sqlite'

    def setUp(self):
        super().setUp()
        url = cm_fixtures.server_url_or_skip(self, self.DATABASE)
        self.db = self.useFixture(EmptyDatabase(
            url, state_path=self.state_path))
        self.engine = self.db.engine
        self._sync_engine = None
        self.script = _script_directory()

    def _revisions(self):
        """Revisions from the first to the head."""
        return list(reversed(list(self.script.walk_revisions())))

    def test_walk_versions(self):
        self.assertIsNone(migration.version(engine=self.engine))
        for rev in self._revisions():
            pre = getattr(self, '_pre_upgrade_%s' % rev.revision, None)
            data = pre() if pre else None
            migration.upgrade(rev.revision, engine=self.engine)
            self.assertEqual(rev.revision,
                             migration.version(engine=self.engine))
            check = getattr(self, '_check_%s' % rev.revision, None)
            if check:
                check(data)

    def test_upgrade_twice_is_a_no_op(self):
        migration.upgrade(engine=self.engine)
        migration.upgrade(engine=self.engine)
        self.assertEqual(self.script.get_current_head(),
                         migration.version(engine=self.engine))

    # ModelsMigrationsSync's hooks.

    def get_engine(self):
        # An engine of oslo.db's own making on the same database, as
        # oslo.db's fixtures give: test_models_sync's cleanup
        # (provision's drop_all_objects) holds a transaction while it
        # inspects on a second connection, which the services' SQLite
        # writers (BEGIN IMMEDIATE) would wait for. The other tests run
        # the migrations on the services' engine.
        if self._sync_engine is None:
            self._sync_engine = engines.create_engine(self.db.url)
            self.addCleanup(self._sync_engine.dispose)
        return self._sync_engine

    def db_sync(self, engine):
        migration.upgrade('head', engine=engine)

    def get_metadata(self):
        return models.BASE.metadata

    def compare_type(self, ctxt, insp_col, meta_col, insp_type, meta_type):
        # Stricter than oslo.db's default, which takes any integer column
        # for a boolean on every database.
        return compare_type(ctxt, insp_col, meta_col, insp_type, meta_type)

    def compare_server_default(self, ctxt, insp_col, meta_col, insp_def,
                               meta_def, rendered_meta_def):
        return compare_server_default(ctxt, insp_col, meta_col, insp_def,
                                      meta_def, rendered_meta_def)

    def _diff(self, metadata):
        """What test_models_sync compares, against ``metadata``, on the
        services' engine."""
        with self.engine.connect() as conn:
            ctxt = alembic_migration.MigrationContext.configure(
                conn, opts={'include_object': self.include_object,
                            'compare_type': self.compare_type,
                            'compare_server_default':
                                self.compare_server_default})
            return autogenerate.compare_metadata(ctxt, metadata)

    def test_models_sync_sees_a_difference(self):
        # test_models_sync (inherited) fails on a difference: a model
        # with a column that no migration creates.
        metadata = sa.MetaData()
        for table in models.BASE.metadata.sorted_tables:
            table.to_metadata(metadata)
        metadata.tables['volumes'].append_column(
            sa.Column('extra', sa.Integer))
        self.useFixture(fixtures.MockPatchObject(
            self, 'get_metadata', return_value=metadata))
        error = self.assertRaises(self.failureException,
                                  self.test_models_sync)
        self.assertIn("aren't in sync", str(error))
        self.assertIn('extra', str(error))

    def test_comparison_sees_drift(self):
        # The comparison is not blind where it is lenient (MySQL booleans):
        # a changed boolean default, an integer column that the model calls
        # boolean, and a new column, all show.
        migration.upgrade(engine=self.engine)
        metadata = sa.MetaData()
        for table in models.BASE.metadata.sorted_tables:
            table.to_metadata(metadata)
        volumes = metadata.tables['volumes']
        volumes.c.multiattach.server_default = sa.schema.DefaultClause(
            sa.true())
        volumes.c.size.type = sa.Boolean()
        volumes.append_column(sa.Column('extra', sa.Boolean,
                                        server_default=sa.false()))
        changes = set()
        for entry in self._diff(metadata):
            for change in (entry if isinstance(entry, list) else [entry]):
                changes.add((change[0], change[3] if change[0].startswith(
                    'modify') else change[3].name))
        self.assertEqual({('modify_default', 'multiattach'),
                          ('modify_type', 'size'),
                          ('add_column', 'extra')}, changes)

    def test_db_version_command(self):
        migration.upgrade(engine=self.engine)
        conf_file = os.path.join(self.state_path, 'cinder-ma.conf')
        with open(conf_file, 'w') as f:
            f.write('[DEFAULT]\nstate_path = %s\n[database]\n'
                    'connection = %s\n' % (self.state_path, self.db.url))
        # The console script operators run; the module from a bare tree.
        script = os.path.join(os.path.dirname(sys.executable),
                              'cinder-ma-manage')
        command = ([script] if os.path.exists(script) else
                   [sys.executable, '-m', 'cinder_ma.cmd.manage'])
        proc = subprocess.run(
            command + ['--config-file', conf_file, 'db', 'version'],
            capture_output=True, text=True, check=False, timeout=120)
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertIn(self.script.get_current_head(), proc.stdout)

    # Data checks, run by test_walk_versions after their revision.

    def _check_0001(self, data):
        meta = sa.MetaData()
        meta.reflect(bind=self.engine)
        types_t = meta.tables['volume_types']
        volumes = meta.tables['volumes']
        attachments = meta.tables['volume_attachment']
        services = meta.tables['services']
        type_id, volume_id = str(uuid.uuid4()), str(uuid.uuid4())
        attachment_id = str(uuid.uuid4())
        with self.engine.begin() as conn:
            conn.execute(types_t.insert().values(id=type_id, name='t'))
            conn.execute(volumes.insert().values(
                id=volume_id, project_id='p', size=1, status='available',
                volume_type_id=type_id))
            conn.execute(attachments.insert().values(
                id=attachment_id, volume_id=volume_id,
                attach_status='reserved'))
            conn.execute(services.insert().values(
                uuid=str(uuid.uuid4()), host='h', binary='b', topic='t'))
        with self.engine.connect() as conn:
            vtype = conn.execute(sa.select(types_t)).one()
            volume = conn.execute(sa.select(volumes)).one()
            att = conn.execute(sa.select(attachments)).one()
            service = conn.execute(sa.select(services)).one()
        # Server defaults: the API's compare-and-swap UPDATEs filter on them.
        self.assertIs(True, bool(vtype.is_public))
        for row in (vtype, volume, att, service):
            self.assertIs(False, bool(row.deleted))
        for flag in ('multiattach', 'bootable', 'encrypted',
                     'shared_targets'):
            self.assertIs(False, bool(getattr(volume, flag)), flag)
        self.assertEqual('rw', att.attach_mode)
        self.assertIs(False, bool(service.disabled))
        # Foreign keys hold on every database.
        with self.engine.begin() as conn:
            self.assertRaises(
                db_exc.DBReferenceError, conn.execute,
                attachments.insert().values(
                    id=str(uuid.uuid4()), volume_id=str(uuid.uuid4()),
                    attach_status='reserved'))


    def _check_0005(self, data):
        # The rows written after 0001 get the new columns' defaults: not
        # frozen (the scheduler and the API filter on it), no QoS specs.
        meta = sa.MetaData()
        meta.reflect(bind=self.engine)
        with self.engine.connect() as conn:
            service = conn.execute(sa.select(meta.tables['services'])).one()
            vtype = conn.execute(sa.select(meta.tables['volume_types'])).one()
        self.assertIs(False, bool(service.frozen))
        self.assertIsNone(vtype.qos_specs_id)
        qos = meta.tables['quality_of_service_specs']
        root = str(uuid.uuid4())
        with self.engine.begin() as conn:
            conn.execute(qos.insert().values(id=root, key='QoS_Specs_Name',
                                             value='gold'))
            conn.execute(qos.insert().values(id=str(uuid.uuid4()),
                                             specs_id=root, key='consumer',
                                             value='both'))
        with self.engine.begin() as conn:
            self.assertRaises(
                db_exc.DBReferenceError, conn.execute,
                qos.insert().values(id=str(uuid.uuid4()),
                                    specs_id=str(uuid.uuid4()), key='k'))

    def _check_0009(self, data):
        # The attachment written after 0001 is at its first generation,
        # not fenced; new rows get the same defaults from the server.
        meta = sa.MetaData()
        meta.reflect(bind=self.engine)
        attachments = meta.tables['volume_attachment']
        with self.engine.connect() as conn:
            old = conn.execute(sa.select(attachments)).one()
            volume_id = old.volume_id
        self.assertEqual(1, old.generation)
        self.assertIsNone(old.fenced_at)
        new_id = str(uuid.uuid4())
        with self.engine.begin() as conn:
            conn.execute(attachments.insert().values(
                id=new_id, volume_id=volume_id, attach_status='reserved'))
            new = conn.execute(sa.select(attachments).where(
                attachments.c.id == new_id)).one()
            self.assertEqual(1, new.generation)
            self.assertIsNone(new.fenced_at)
            # The column refuses no generation at all (oslo.db logs the
            # database's refusal: kept out of the run's output).
            self.expect_logged_errors()
            self.assertRaises(
                db_exc.DBError, conn.execute,
                attachments.update().where(
                    attachments.c.id == new_id).values(generation=None))

    def _check_0010(self, data):
        # The live attachments of a volume are indexed in the order they
        # were made; the narrower index is gone.
        indexes = {index['name']: index['column_names']
                   for index in sa.inspect(self.engine).get_indexes(
                       'volume_attachment')}
        self.assertEqual(['volume_id', 'deleted', 'created_at'],
                         indexes['volume_attachment_volume_order_idx'])
        self.assertNotIn('volume_attachment_volume_id_idx', indexes)

    def _check_0011(self, data):
        # Existing attachments have no os-begin_detaching mark; the
        # column takes a time and None.
        meta = sa.MetaData()
        meta.reflect(bind=self.engine)
        attachments = meta.tables['volume_attachment']
        with self.engine.begin() as conn:
            rows = conn.execute(sa.select(attachments)).all()
            self.assertTrue(rows)
            self.assertEqual({None}, {row.detach_begun_at for row in rows})
            conn.execute(attachments.update().where(
                attachments.c.id == rows[0].id).values(
                    detach_begun_at=datetime.datetime(2026, 11, 27, 8, 0)))
            self.assertEqual(
                datetime.datetime(2026, 11, 27, 8, 0),
                conn.execute(sa.select(attachments.c.detach_begun_at).where(
                    attachments.c.id == rows[0].id)).scalar())

    def _check_0013(self, data):
        # The new tables take a message and a transfer of an existing
        # volume, with their defaults.
        meta = sa.MetaData()
        meta.reflect(bind=self.engine)
        messages = meta.tables['messages']
        transfers = meta.tables['transfers']
        with self.engine.begin() as conn:
            volume_id = conn.execute(sa.select(
                meta.tables['volumes'].c.id)).scalars().first()
            self.assertIsNotNone(volume_id)
            conn.execute(messages.insert().values(
                id='m-0013', project_id='p', event_id='VOLUME_VOLUME_001_003',
                message_level='ERROR'))
            conn.execute(transfers.insert().values(
                id='t-0013', volume_id=volume_id, salt='s', crypt_hash='h'))
            row = conn.execute(sa.select(transfers)).one()
            self.assertEqual((False, False, False),
                             (bool(row.no_snapshots), bool(row.accepted),
                              bool(row.deleted)))
            self.assertFalse(conn.execute(sa.select(
                messages.c.deleted)).scalar())
            conn.execute(transfers.delete())
            conn.execute(messages.delete())

    def _check_0015(self, data):
        # The audit's runs: a row with its findings as text.
        meta = sa.MetaData()
        meta.reflect(bind=self.engine)
        audits = meta.tables['attachment_audits']
        findings = '[["disk", "a", "h", "%s"]]' % ('p' * 5000)
        with self.engine.begin() as conn:
            conn.execute(audits.insert().values(
                id='a-0015', host='ctl', hosts_audited=2, findings_count=1,
                findings=findings))
            row = conn.execute(sa.select(audits)).one()
            self.assertEqual(('ctl', 2, 1, False),
                             (row.host, row.hosts_audited,
                              row.findings_count, bool(row.deleted)))
            self.assertEqual(findings, row.findings)
            conn.execute(audits.delete())


    def _check_0014(self, data):
        # Existing attachments run no flow; the column takes JSON text.
        meta = sa.MetaData()
        meta.reflect(bind=self.engine)
        attachments = meta.tables['volume_attachment']
        with self.engine.begin() as conn:
            rows = conn.execute(sa.select(attachments)).all()
            self.assertTrue(rows)
            self.assertEqual({None}, {row.pending_work for row in rows})
            conn.execute(attachments.update().where(
                attachments.c.id == rows[0].id).values(
                    pending_work='{"op": "connect"}'))
            self.assertEqual(
                '{"op": "connect"}',
                conn.execute(sa.select(attachments.c.pending_work).where(
                    attachments.c.id == rows[0].id)).scalar())


class PostgreSQLMigrationsTestCase(MigrationsTestCase):
    DATABASE = 'postgresql'


class MySQLMigrationsTestCase(MigrationsTestCase):
    DATABASE = 'mysql'

    def test_tables_are_innodb_utf8mb4(self):
        migration.upgrade(engine=self.engine)
        with self.engine.connect() as conn:
            rows = conn.execute(sa.text(
                'SELECT table_name, engine, table_collation '
                'FROM information_schema.tables '
                'WHERE table_schema = DATABASE()')).all()
        tables = {row[0]: (row[1], row[2]) for row in rows}
        self.assertEqual(
            sorted(list(models.BASE.metadata.tables) + ['alembic_version']),
            sorted(tables))
        for name, (engine, collation) in tables.items():
            if name == 'alembic_version':
                continue
            self.assertEqual('InnoDB', engine, name)
            self.assertTrue(collation.startswith('utf8mb4'),
                            '%s: %s' % (name, collation))


class MigrationScriptsTestCase(base.TestCase):
    """Properties of the migration scripts themselves."""

    def test_single_head(self):
        self.assertEqual(1, len(_script_directory().get_heads()))

    def test_revisions_chain_from_one_base(self):
        script = _script_directory()
        self.assertEqual(1, len(script.get_bases()))
        for rev in script.walk_revisions():
            self.assertTrue(rev.module.__doc__, rev.revision)
