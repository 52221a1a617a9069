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

"""The one-writer policy under concurrent reservations, on SQLite,
PostgreSQL and MariaDB.

32 threads reserve attachments of one volume of a ``multiattach:writers
= one`` type at once, half of them read-write: exactly one rw wins, every
ro wins, and each refused rw is told which attachment is the writer.
"""

import threading

from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from tests import base

THREADS = 32


class _WriterRaceMixin:

    def setUp(self):
        super().setUp()
        self.volume = self.make_shared_volume('one-w')

    def _race(self, modes):
        barrier = threading.Barrier(len(modes))
        results = [None] * len(modes)

        def reserve(index):
            context = self.context.elevated()
            barrier.wait()
            try:
                results[index] = attachment_db.attachment_reserve(
                    context, self.volume.id, 'instance-%02d' % index,
                    attach_mode=modes[index], one_writer=True)
            except exception.CinderMAException as exc:
                results[index] = exc

        threads = [threading.Thread(target=reserve, args=(i,))
                   for i in range(len(modes))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return results

    def test_one_writer_many_readers(self):
        modes = ['rw' if i % 2 else 'ro' for i in range(THREADS)]
        results = self._race(modes)
        won = [r for r in results
               if not isinstance(r, exception.CinderMAException)]
        writers = [r for r in won if r.attach_mode == 'rw']
        self.assertEqual(1, len(writers), results)
        self.assertEqual(THREADS // 2, len(won) - 1, results)
        for mode, result in zip(modes, results):
            if isinstance(result, exception.CinderMAException):
                self.assertEqual('rw', mode)
                self.assertIsInstance(result, exception.Conflict)
                self.assertEqual(409, result.code)
                self.assertIn(writers[0].id, str(result))
        live = attachment_db.attachment_get_all(
            self.context, filters={'volume_id': self.volume.id})
        self.assertEqual(1, len([a for a in live if a.attach_mode == 'rw']))
        volume = volume_db.volume_get(self.context, self.volume.id)
        self.assertEqual(len(won), volume.attach_count)

    def test_writer_gone_lets_the_next_one_in(self):
        first = attachment_db.attachment_reserve(
            self.context, self.volume.id, 'a', attach_mode='rw',
            one_writer=True)
        self.assertRaises(exception.Conflict,
                          attachment_db.attachment_reserve, self.context,
                          self.volume.id, 'b', attach_mode='rw',
                          one_writer=True)
        attachment_db.attachment_destroy(self.context, first.id)
        results = self._race(['rw'] * 8)
        self.assertEqual(1, len([
            r for r in results
            if not isinstance(r, exception.CinderMAException)]), results)

    def test_many_writers_without_the_policy(self):
        attachment_db.attachment_reserve(
            self.context, self.volume.id, 'a', attach_mode='rw')
        attachment_db.attachment_reserve(
            self.context, self.volume.id, 'b', attach_mode='rw')


class SQLiteWriterRaceTestCase(_WriterRaceMixin, base.DBTestCase):
    DATABASE = 'sqlite'


class PostgreSQLWriterRaceTestCase(_WriterRaceMixin, base.DBTestCase):
    DATABASE = 'postgresql'


class MySQLWriterRaceTestCase(_WriterRaceMixin, base.DBTestCase):
    DATABASE = 'mysql'
