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

"""What volume create reads and writes, on SQLite, PostgreSQL and MariaDB.

The type of a new volume and the quota limits are read in one query
each, its quota charged in two statements and its record built from what
the INSERT returned: each must give what the database holds, whatever the
database (MariaDB's DATETIME keeps whole seconds, its EXISTS is an
integer).
"""

from cinder_ma.db import api as db_api
from cinder_ma.db import quotas as quota_db
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from tests import base


class _CreateMixin:

    def setUp(self):
        super().setUp()
        self.vtype = type_db.volume_type_create(
            self.context, {'name': 'private', 'is_public': False},
            extra_specs={'multiattach:writers': 'one', 'k': 'v'})
        type_db.volume_type_access_add(self.context, self.vtype.id, 'p1')

    def _create(self):
        return volume_db.volume_create(self.context, {
            'project_id': 'p1', 'size': 2, 'status': 'creating',
            'volume_type_id': self.vtype.id, 'name': 'n',
            'metadata': {'b': '1', 'a': '2'}})

    def test_record_is_the_volume_as_read(self):
        created = self._create()
        self.assertEqual(volume_db.volume_get(self.context, created.id),
                         created)

    def test_record_is_the_volume_as_read_without_returning(self):
        self.patch(db_api.get_engine().dialect, 'insert_returning', False)
        created = self._create()
        self.assertEqual(volume_db.volume_get(self.context, created.id),
                         created)

    def test_type_found_in_one_query(self):
        found = type_db.volume_type_find(self.context, name='private',
                                         project_id='p1')
        self.assertEqual(
            (self.vtype.id, 'private', False, ('p1',), None,
             {'multiattach:writers': 'one', 'k': 'v'}),
            (found.id, found.name, found.is_public, found.projects,
             found.encryption, found.extra_specs))
        self.assertEqual((), type_db.volume_type_find(
            self.context, type_id=self.vtype.id, project_id='p2').projects)

    def test_quota_charge(self):
        quota_db.ensure_usages(self.context, 'p1', ['a', 'b', 'c'])

        @db_api.writer
        def change(context, deltas, limits):
            quota_db.change_usage(context, 'p1', deltas, limits)

        change(self.context, {'a': 1, 'b': 5, 'c': -2}, {'b': 5})
        self.assertRaises(exception.OverQuota, change, self.context,
                          {'a': 1, 'b': 1}, {'b': 5})
        self.assertEqual({'a': 1, 'b': 5, 'c': -2},
                         quota_db.usage_get_all(self.context, 'p1'))

    def test_limits_in_one_query(self):
        quota_db.quota_class_set(self.context, 'default', {'volumes': 10})
        quota_db.quota_set(self.context, 'p1', {'volumes': 3,
                                                'gigabytes': 7})
        self.assertEqual(({'volumes': 10}, {'volumes': 3, 'gigabytes': 7}),
                         quota_db.quota_get_all(self.context, 'p1',
                                                'default'))


class SQLiteCreateTestCase(_CreateMixin, base.DBTestCase):
    DATABASE = 'sqlite'


class PostgreSQLCreateTestCase(_CreateMixin, base.DBTestCase):
    DATABASE = 'postgresql'


class MySQLCreateTestCase(_CreateMixin, base.DBTestCase):
    DATABASE = 'mysql'
