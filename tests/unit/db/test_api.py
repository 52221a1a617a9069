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

"""Tests of cinder_ma.db.api's compare-and-swap on the SQLite file
database."""

import datetime


from cinder_ma.db import api as db_api
from cinder_ma.db import models
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from tests import base


class ConditionalUpdateTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        vtype = type_db.volume_type_create(self.context, {'name': 'd'})
        self.volume_id = volume_db.volume_create(self.context, {
            'project_id': 'fake-project', 'size': 1, 'status': 'creating',
            'volume_type_id': vtype.id}).id

    def _update(self, values, expected=None, row_id=None):
        with db_api.main_context_manager.writer.connection.using(
                self.context):
            return db_api.conditional_update(
                self.context, models.Volume,
                row_id or self.volume_id, values, expected)

    def _row(self):
        return volume_db.volume_get(self.context, self.volume_id,
                                    children=False)

    def test_each_kind_of_condition(self):
        self.assertFalse(self._update({'status': 'x'},
                                      {'status': 'available'}))
        self.assertFalse(self._update({'status': 'x'},
                                      {'status': ('a', 'b')}))
        self.assertFalse(self._update({'status': 'x'}, {'status': []}))
        self.assertFalse(self._update({'status': 'x'}, {'host': 'h'}))
        self.assertFalse(self._update({'status': 'x'}, {'size': None}))
        self.assertFalse(self._update(
            {'status': 'x'}, {'size': models.Volume.size > 1}))
        self.assertFalse(self._update({'status': 'x'},
                                      row_id='no-such-volume'))
        self.assertEqual('creating', self._row().status)
        self.assertTrue(self._update(
            {'status': 'available', 'host': 'h'},
            {'status': ['creating', 'error'], 'host': None,
             'size': models.Volume.size == 1}))
        row = self._row()
        self.assertEqual(('available', 'h'), (row.status, row.host))
        self.assertIsNotNone(row.updated_at)
        self.assertTrue(self._update({'status': 'error'},
                                     {'status': 'available', 'host': 'h'}))
        self.assertEqual('error', self._row().status)

    def test_values_of_every_type_and_expressions(self):
        when = datetime.datetime(2026, 1, 2, 3, 4, 5)
        self.assertTrue(self._update({
            'multiattach': True, 'claimed_until': when, 'updated_at': when,
            'name': None, 'size': models.Volume.size + 2}))
        row = self._row()
        self.assertEqual((True, when, when, None, 3),
                         (row.multiattach, row.claimed_until,
                          row.updated_at, row.name, row.size))

    def test_a_deleted_row_is_not_updated(self):
        self.assertTrue(self._update({'deleted': True}))
        self.assertFalse(self._update({'status': 'x'}))

    def test_statement_built_once_per_shape(self):
        self._update({'status': 'a'}, {'status': 'creating'})
        info = db_api._conditional_statement.cache_info()
        self._update({'status': 'b'}, {'status': 'a'})
        self.assertEqual(info.hits + 1,
                         db_api._conditional_statement.cache_info().hits)
        self.assertEqual('b', self._row().status)


class EngineTestCase(base.DBTestCase):

    def test_the_engine_of_the_test_database(self):
        # The test's fixture replaced the enginefacade's factory after
        # the data layer was imported.
        self.assertIs(self.db.engine, db_api.get_engine())
        self.assertEqual(self.db.url, str(db_api.get_engine().url))
        with db_api.reading(self.context):
            self.assertIs(self.db.engine,
                          db_api.connection_of(self.context).engine)
