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

"""Tests of cinder_ma.db.quotas' usage counters on the SQLite file
database (the races are tests/functional/db/test_quota_races.py)."""

import sqlalchemy as sa

from cinder_ma.db import api as db_api
from cinder_ma.db import quotas as quota_db
from cinder_ma import exception
from tests import base

PROJECT = 'p'


class ChangeUsageTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        quota_db.ensure_usages(self.context, PROJECT,
                               ['a', 'b', 'c', 'volumes'])

    def _change(self, deltas, limits=None, skip_missing=False):
        @db_api.writer
        def change(context):
            quota_db.change_usage(context, PROJECT, deltas, limits,
                                  skip_missing)
        change(self.context)

    def _usage(self):
        return quota_db.usage_get_all(self.context, PROJECT)

    def test_changes_every_counter(self):
        self._change({'a': 2, 'b': 3, 'c': 0, 'volumes': 1},
                     {'a': 2, 'b': -1})
        self.assertEqual({'a': 2, 'b': 3, 'c': 0, 'volumes': 1},
                         self._usage())
        # A negative delta is not checked.
        self._change({'a': -1, 'b': 1}, {'a': 0, 'b': 4})
        self.assertEqual({'a': 1, 'b': 4, 'c': 0, 'volumes': 1},
                         self._usage())

    def test_two_statements(self):
        statements = []

        def record(conn, cursor, statement, *args):
            if statement.lstrip().upper().startswith(('SELECT', 'UPDATE')):
                statements.append(statement)

        engine = db_api.get_engine()
        sa.event.listen(engine, 'before_cursor_execute', record)
        self.addCleanup(sa.event.remove, engine, 'before_cursor_execute',
                        record)
        self._change({'a': 1, 'b': 1, 'c': 1, 'volumes': 1})
        self.assertEqual(2, len(statements), statements)

    def test_over_quota_changes_nothing(self):
        self._change({'b': 2})
        exc = self.assertRaises(exception.OverQuota, self._change,
                                {'a': 1, 'b': 2, 'c': 5},
                                {'b': 3, 'c': 4})
        # The first over its limit in the order of the keys.
        self.assertEqual(('b', 3, 2, 2),
                         (exc.resource, exc.limit, exc.in_use,
                          exc.requested))
        self.assertEqual({'a': 0, 'b': 2, 'c': 0, 'volumes': 0},
                         self._usage())

    def test_missing_counters(self):
        exc = self.assertRaises(quota_db.UsageMissing, self._change,
                                {'a': 1, 'x': 1, 'y': -1})
        self.assertEqual((PROJECT, ('x', 'y')),
                         (exc.project_id, exc.resources))
        self.assertEqual(0, self._usage()['a'])
        # Over quota wins over missing.
        self.assertRaises(exception.OverQuota, self._change,
                          {'a': 1, 'x': 1}, {'a': 0})

    def test_skip_missing(self):
        self._change({'a': -1, 'x': -1}, skip_missing=True)
        self.assertEqual({'a': -1, 'b': 0, 'c': 0, 'volumes': 0},
                         self._usage())
        self._change({'x': -1}, skip_missing=True)
        self.assertNotIn('x', self._usage())

    def test_retrying_creates_missing_counters(self):
        calls = []

        @db_api.writer
        def charge(context):
            calls.append(context)
            quota_db.change_usage(context, 'q', {'volumes': 1},
                                  {'volumes': 1})

        quota_db.retrying(self.context, charge, self.context)
        self.assertEqual(2, len(calls))
        self.assertEqual({'volumes': 1},
                         quota_db.usage_get_all(self.context, 'q'))
        self.assertRaises(exception.OverQuota, quota_db.retrying,
                          self.context, charge, self.context)


class LimitsTestCase(base.DBTestCase):

    def test_class_and_own_limits_in_one_query(self):
        quota_db.quota_class_set(self.context, 'default',
                                 {'volumes': 10, 'gigabytes': 100})
        quota_db.quota_class_set(self.context, 'gold', {'volumes': 50})
        quota_db.quota_set(self.context, PROJECT, {'volumes': 3})
        quota_db.quota_set(self.context, 'other', {'gigabytes': 1})
        self.assertEqual(({'volumes': 10, 'gigabytes': 100},
                          {'volumes': 3}),
                         quota_db.quota_get_all(self.context, PROJECT,
                                                'default'))
        self.assertEqual(({'volumes': 50}, {}),
                         quota_db.quota_get_all(self.context, 'nobody',
                                                'gold'))
