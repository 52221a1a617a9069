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

"""Racing writers of one volume type name, extra spec key or type access
entry: one wins, the others get a 409, and the database holds one live
row (SQLite, PostgreSQL, MariaDB). A deleted row never blocks a new one.
"""

import threading

import sqlalchemy as sa

from cinder_ma.db import api as db_api
from cinder_ma.db import models
from cinder_ma import exception
from cinder_ma.volume import types as vtypes
from tests import base

RACERS = 8


class _UniqueRaceMixin:

    def _race(self, func):
        """Run ``func(context)`` in RACERS threads at once; the list of
        outcomes ('ok' or the exception's HTTP code)."""
        barrier = threading.Barrier(RACERS)
        outcomes = []
        lock = threading.Lock()

        def run():
            context = self.admin_context.elevated()
            barrier.wait()
            try:
                func(context)
                outcome = 'ok'
            except exception.CinderMAException as exc:
                outcome = exc.code
            with lock:
                outcomes.append(outcome)

        threads = [threading.Thread(target=run) for _ in range(RACERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return outcomes

    def _live(self, model, *conditions):
        @db_api.reader
        def count(context):
            return db_api.connection_of(context).execute(
                sa.select(sa.func.count()).select_from(model).where(
                    model.deleted == sa.false(), *conditions)).scalar()
        return count(self.admin_context)

    def test_type_name(self):
        outcomes = self._race(
            lambda ctxt: vtypes.create_type(ctxt, 'racy'))
        self.assertEqual(1, outcomes.count('ok'), outcomes)
        self.assertEqual([409] * (RACERS - 1),
                         [o for o in outcomes if o != 'ok'])
        self.assertEqual(1, self._live(models.VolumeType,
                                       models.VolumeType.name == 'racy'))
        # Deleted, the name is free again (twice: deleted rows never
        # collide with each other).
        for _ in range(2):
            vtype = vtypes.find_type(self.admin_context, 'racy')
            vtypes.delete_type(self.admin_context, vtype.id)
            vtypes.create_type(self.admin_context, 'racy')

    def test_extra_spec_key(self):
        vtype = vtypes.create_type(self.admin_context, 'specs')
        outcomes = self._race(lambda ctxt: vtypes.update_extra_specs(
            ctxt, vtype.id, {'speed': 'fast'}))
        # The first writer inserts; one that comes after it updates (also
        # a success); one that raced the insert gets a 409.
        self.assertIn('ok', outcomes)
        self.assertEqual(set(), set(outcomes) - {'ok', 409}, outcomes)
        spec = models.VolumeTypeExtraSpecs
        self.assertEqual(1, self._live(spec, spec.volume_type_id == vtype.id,
                                       spec.key == 'speed'))
        for _ in range(2):
            vtypes.delete_extra_spec(self.admin_context, vtype.id, 'speed')
            vtypes.update_extra_specs(self.admin_context, vtype.id,
                                      {'speed': 'slow'})
        self.assertEqual({'speed': 'slow'}, vtypes.get_extra_specs(
            self.admin_context, vtype.id))

    def test_type_access(self):
        vtype = vtypes.create_type(self.admin_context, 'private',
                                   is_public=False)
        outcomes = self._race(lambda ctxt: vtypes.add_type_access(
            ctxt, vtype.id, 'tenant'))
        self.assertEqual(1, outcomes.count('ok'), outcomes)
        self.assertEqual([409] * (RACERS - 1),
                         [o for o in outcomes if o != 'ok'])
        access = models.VolumeTypeProjects
        self.assertEqual(1, self._live(
            access, access.volume_type_id == vtype.id,
            access.project_id == 'tenant'))
        for _ in range(2):
            vtypes.remove_type_access(self.admin_context, vtype.id, 'tenant')
            vtypes.add_type_access(self.admin_context, vtype.id, 'tenant')


class SQLiteUniqueRaceTestCase(_UniqueRaceMixin, base.DBTestCase):
    DATABASE = 'sqlite'


class PostgreSQLUniqueRaceTestCase(_UniqueRaceMixin, base.DBTestCase):
    DATABASE = 'postgresql'


class MySQLUniqueRaceTestCase(_UniqueRaceMixin, base.DBTestCase):
    DATABASE = 'mysql'
