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

"""The SQLite writer lock shared by the processes of one database."""

import multiprocessing
import os
import time

import sqlalchemy as sa

from cinder_ma.db import api as db_api
from cinder_ma.db import models
from cinder_ma.db import services as service_db
from cinder_ma.db import sqlite
from tests import base


def _take_and_report(lockfile, database, queue):
    # Runs in a forked child: the inherited object must open its own
    # descriptor, or the parent's lock would be shared with it.
    lockfile.acquire(database)
    queue.put(time.monotonic())
    lockfile.release()


class WriterLockFileTestCase(base.TestCase):

    def test_other_process_waits_for_the_holder(self):
        database = os.path.join(self.state_path, 'db.sqlite')
        lockfile = sqlite.WriterLockFile()
        lockfile.acquire(database)
        context = multiprocessing.get_context('fork')
        queue = context.Queue()
        child = context.Process(target=_take_and_report,
                                args=(lockfile, database, queue))
        child.start()
        self.addCleanup(child.join, 10)
        time.sleep(0.3)
        released_at = time.monotonic()
        lockfile.release()
        taken_at = queue.get(timeout=10)
        self.assertGreaterEqual(taken_at, released_at)
        child.join(10)
        self.assertEqual(0, child.exitcode)
        self.assertTrue(os.path.exists(database + '.lock'))


@db_api.writer
def _bump(context, service_id):
    # Read, then write what was read plus one: only right when writers
    # take turns.
    connection = db_api.connection_of(context)
    zone = connection.execute(
        sa.select(models.Service.availability_zone).where(
            models.Service.id == service_id)).scalar_one()
    connection.execute(sa.update(models.Service).where(
        models.Service.id == service_id).values(
            availability_zone=str(int(zone) + 1)))


class ProcessesTestCase(base.DBTestCase):

    def test_writers_of_several_processes_take_turns(self):
        # No busy timeout: without the lock file, a writer meeting
        # another process's transaction would fail at once ("database is
        # locked").
        self.flags(group='database', sqlite_busy_timeout=0)
        db_api.dispose_engine()
        service = service_db.service_create(self.admin_context, {
            'host': 'h', 'binary': 'b', 'topic': 't',
            'availability_zone': '0'})
        db_api.dispose_engine()
        fork = multiprocessing.get_context('fork')

        def bump():
            for _ in range(100):
                _bump(self.admin_context, service.id)

        children = [fork.Process(target=bump) for _ in range(2)]
        for child in children:
            child.start()
        bump()
        for child in children:
            child.join(60)
            self.assertEqual(0, child.exitcode)
        self.assertEqual('300', service_db.service_get_by_host_and_binary(
            self.admin_context, 'h', 'b').availability_zone)
