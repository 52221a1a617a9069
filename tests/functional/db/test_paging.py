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

"""Paging by nullable keys on SQLite, PostgreSQL and MariaDB.

Volumes and attachments whose sort keys are partly NULL (and partly
equal) are listed page after page, following each page's last row as the
marker, in both directions and with small pages; every row must come
exactly once, in the order of the keys with NULL as the smallest value,
on every database (whose own orders of NULL differ).
"""

import datetime
import uuid

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import models
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from tests import base

# Values of the sort keys: NULLs, ties, and distinct values.
NAMES = [None, None, 'b', 'a', None, 'b', 'c', 'a', None, 'B', '', 'b']
ZONES = ['nova', None, 'nova', 'az2', None, None, 'az1', 'nova', 'az1',
         None, 'az2', 'nova']
_BASE = datetime.datetime(2026, 11, 1, 12, 0, 0)
TIMES = [None, _BASE, None, _BASE + datetime.timedelta(hours=1), _BASE,
         None, _BASE + datetime.timedelta(hours=2), None, _BASE, None,
         _BASE + datetime.timedelta(hours=1), _BASE]


def _sort_value(value):
    """A sort key of Python's that puts None first."""
    return (value is not None, value)


class _PagingMixin:

    def setUp(self):
        super().setUp()
        self.vtype = type_db.volume_type_create(self.context,
                                                {'name': 'default'})
        self.volumes = []
        for index, name in enumerate(NAMES):
            self.volumes.append(volume_db.volume_create(self.context, {
                'project_id': 'fake-project', 'size': 1,
                'status': 'available', 'volume_type_id': self.vtype.id,
                'name': name, 'description': NAMES[-1 - index],
                'availability_zone': ZONES[index], 'multiattach': True}))
        self.attachments = []
        with db_api.main_context_manager.writer.using(self.admin_context):
            for index, when in enumerate(TIMES):
                row = models.VolumeAttachment(
                    id=str(uuid.uuid4()),
                    volume_id=self.volumes[index % 3].id,
                    instance_uuid=(None if index % 4 == 0 else
                                   str(uuid.uuid4()) if index % 4 == 1 else
                                   '00000000-0000-0000-0000-00000000000%d'
                                   % (index % 2)),
                    attach_time=when, attach_status='attached',
                    attach_mode='rw')
                self.admin_context.session.add(row)
                self.attachments.append(row.id)

    def _pages(self, fetch, key, direction, limit):
        seen = []
        marker = None
        for _page in range(100):
            page = fetch(marker=marker, limit=limit, sort_keys=[key],
                         sort_dirs=[direction])
            if not page:
                return seen
            seen.extend(page)
            marker = page[-1].id
        self.fail('paging did not end')

    def _check(self, fetch, rows, key, value_of):
        for direction in ('asc', 'desc'):
            for limit in (1, 2, 5):
                seen = self._pages(fetch, key, direction, limit)
                ids = [row.id for row in seen]
                what = '%s %s limit %d' % (key, direction, limit)
                self.assertEqual(len(rows), len(ids), what)
                self.assertEqual(sorted(rows), sorted(ids), what)
                values = [_sort_value(value_of(row)) for row in seen]
                # The key orders the rows (ties in any order the database
                # picks, the same on every page: they are broken by id).
                expected = sorted(values, reverse=direction == 'desc')
                if key not in ('name', 'description'):
                    # Collations order text of different case their own
                    # way; other keys compare the same everywhere.
                    self.assertEqual(expected, values, what)
                else:
                    nulls = [value is None for value in
                             (value_of(row) for row in seen)]
                    self.assertEqual(sorted(nulls,
                                            reverse=direction == 'asc'),
                                     nulls, what)

    def _volumes(self, **kwargs):
        return volume_db.volume_get_all(self.context,
                                        project_id='fake-project', **kwargs)

    def test_volumes_by_name(self):
        self._check(self._volumes, [v.id for v in self.volumes], 'name',
                    lambda row: row.name)

    def test_volumes_by_description(self):
        self._check(self._volumes, [v.id for v in self.volumes],
                    'description', lambda row: row.description)

    def test_volumes_by_availability_zone(self):
        self._check(self._volumes, [v.id for v in self.volumes],
                    'availability_zone', lambda row: row.availability_zone)

    def _attachments(self, **kwargs):
        return attachment_db.attachment_get_all(
            self.context, project_id='fake-project', **kwargs)

    def test_attachments_by_instance_uuid(self):
        self._check(self._attachments, self.attachments, 'instance_uuid',
                    lambda row: row.instance_uuid)

    def test_attachments_by_attach_time(self):
        self._check(self._attachments, self.attachments, 'attach_time',
                    lambda row: row.attach_time)

    def test_two_nullable_keys(self):
        for dirs in (['asc', 'desc'], ['desc', 'asc'], ['asc', 'asc']):
            seen, marker = [], None
            for _page in range(100):
                page = self._volumes(marker=marker, limit=2,
                                     sort_keys=['availability_zone',
                                                'name'],
                                     sort_dirs=dirs)
                if not page:
                    break
                seen.extend(row.id for row in page)
                marker = page[-1].id
            self.assertEqual(sorted(v.id for v in self.volumes),
                             sorted(seen), dirs)


class SQLitePagingTestCase(_PagingMixin, base.DBTestCase):
    DATABASE = 'sqlite'


class PostgreSQLPagingTestCase(_PagingMixin, base.DBTestCase):
    DATABASE = 'postgresql'


class MySQLPagingTestCase(_PagingMixin, base.DBTestCase):
    DATABASE = 'mysql'
