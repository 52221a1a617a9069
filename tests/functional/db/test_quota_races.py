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

"""Concurrent volume creates against one quota on SQLite, PostgreSQL and
MariaDB.

32 threads create volumes of one project at once, through the quota
service and the database as the API does; the compare-and-swap of the
usage counters must let exactly as many through as the quota allows, and
leave the counters equal to what the volumes hold, whatever the database.
"""

import threading

from cinder_ma.db import quotas as quota_db
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.volume import quotas
from tests import base

THREADS = 32
PROJECT = 'race-project'


class _RaceMixin:

    def setUp(self):
        super().setUp()
        self.vtype = type_db.volume_type_create(self.admin_context,
                                                {'name': 'racy'})

    def _create(self, context, size):
        charge = quotas.charge_create(context, PROJECT, size, self.vtype.id)
        return quotas.run_charged(context, volume_db.volume_create, context, {
            'project_id': PROJECT, 'size': size, 'status': 'available',
            'volume_type_id': self.vtype.id}, quota=charge)

    def _race(self, size=1, count=THREADS):
        barrier = threading.Barrier(count)
        results = [None] * count

        def create(index):
            context = self.admin_context.elevated()
            barrier.wait()
            try:
                self._create(context, size)
                results[index] = 'ok'
            except exception.CinderMAException as exc:
                results[index] = exc

        threads = [threading.Thread(target=create, args=(i,))
                   for i in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return results

    def _usage(self):
        return quota_db.usage_get_all(self.admin_context, PROJECT)

    def _volumes(self):
        return volume_db.volume_get_all(self.admin_context, PROJECT)

    def test_volumes_quota_holds(self):
        quota_db.quota_set(self.admin_context, PROJECT, {'volumes': 5})
        results = self._race()
        self.assertEqual(5, results.count('ok'), results)
        for result in results:
            if result != 'ok':
                self.assertIsInstance(result, exception.VolumeLimitExceeded)
        self.assertEqual(5, len(self._volumes()))
        usage = self._usage()
        self.assertEqual((5, 5), (usage['volumes'], usage['gigabytes']))

    def test_gigabytes_quota_holds(self):
        quota_db.quota_set(self.admin_context, PROJECT, {'gigabytes': 20})
        results = self._race(size=3)
        self.assertEqual(6, results.count('ok'), results)
        self.assertEqual(6, len(self._volumes()))
        self.assertEqual(18, self._usage()['gigabytes'])

    def test_per_type_quota_holds(self):
        quota_db.quota_set(self.admin_context, PROJECT, {
            quota_db.type_resource('volumes', self.vtype.id): 3})
        results = self._race()
        self.assertEqual(3, results.count('ok'), results)
        self.assertEqual(3, len(self._volumes()))

    def test_counters_created_once_under_race(self):
        """No counter yet and volumes present: the concurrent first
        creates agree on one counter that counts every volume."""
        quota_db.quota_set(self.admin_context, PROJECT, {'volumes': -1})
        for _ in range(2):
            volume_db.volume_create(self.admin_context, {
                'project_id': PROJECT, 'size': 2, 'status': 'available',
                'volume_type_id': self.vtype.id})
        results = self._race()
        self.assertEqual(['ok'] * THREADS, results)
        usage = self._usage()
        self.assertEqual((THREADS + 2, THREADS + 4),
                         (usage['volumes'], usage['gigabytes']))


class SQLiteQuotaRaceTestCase(_RaceMixin, base.DBTestCase):
    DATABASE = 'sqlite'


class PostgreSQLQuotaRaceTestCase(_RaceMixin, base.DBTestCase):
    DATABASE = 'postgresql'


class MySQLQuotaRaceTestCase(_RaceMixin, base.DBTestCase):
    DATABASE = 'mysql'
