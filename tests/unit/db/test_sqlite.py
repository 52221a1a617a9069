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

"""The embedded default's SQLite: its tuning and the library internals
it relies on (the writer lock across processes is tested in
tests/functional/db/test_writer_lock.py)."""

import os

from oslo_db.sqlalchemy import engines
import sqlalchemy as sa

from cinder_ma.db import sqlite
from tests import base


class LibraryInternalsTestCase(base.TestCase):
    """What cinder_ma.db.sqlite uses of oslo.db and SQLAlchemy without a
    public API (see its docstring). A failure here means a new release
    changed it: SQLite writers would start with a deferred BEGIN (and
    fail with "database is locked" under load) or open a connection per
    transaction."""

    def _engine(self):
        url = 'sqlite:///' + os.path.join(self.state_path, 'internals.db')
        engine = engines.create_engine(url)
        self.addCleanup(engine.dispose)
        return engine

    def test_oslo_db_begin_listener_is_found_by_its_name(self):
        engine = self._engine()
        self.assertEqual(
            1, len(sqlite.oslo_db_begin_listeners(engine)),
            'oslo.db no longer registers a SQLite "begin" listener named '
            '%r: cinder_ma.db.sqlite.tune() cannot remove it, and writers '
            'cannot begin with BEGIN IMMEDIATE; find what oslo.db does now'
            % sqlite.OSLO_DB_BEGIN_LISTENER)

    def test_oslo_db_gives_a_null_pool_that_can_be_replaced(self):
        engine = self._engine()
        pool = engine.pool
        self.assertIsInstance(pool, sa.pool.NullPool)
        for name in ('_creator', '_dialect'):
            self.assertTrue(
                hasattr(pool, name),
                'SQLAlchemy pools have no %s any more: '
                'cinder_ma.db.sqlite.tune() cannot replace the NullPool '
                'oslo.db gives a SQLite file' % name)

    def test_tuned_engine_pools_and_writers_begin_immediate(self):
        engine = self._engine()
        reader = []
        sqlite.tune(engine, lambda: bool(reader))
        self.assertEqual([], sqlite.oslo_db_begin_listeners(engine))
        self.assertIsInstance(engine.pool, sa.pool.QueuePool)
        begins = []

        def _record(conn, cursor, statement, *args):
            if statement.startswith('BEGIN'):
                begins.append(statement)

        sa.event.listen(engine, 'before_cursor_execute', _record)
        with engine.begin() as conn:
            mode = conn.exec_driver_sql('PRAGMA journal_mode').scalar()
        reader.append(True)
        with engine.begin() as conn:
            conn.exec_driver_sql('SELECT 1')
        # One BEGIN each (oslo.db's own would have come first), and the
        # pool's connections still run the connect listeners.
        self.assertEqual(['BEGIN IMMEDIATE', 'BEGIN'], begins)
        self.assertEqual('wal', mode)
