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

"""A type never ends both multiattach and encrypted, even when the two
changes race (SQLite, PostgreSQL, MariaDB)."""

import threading

from cinder_ma import exception
from cinder_ma.volume import types as vtypes
from tests import base

ROUNDS = 6


class _TypeRaceMixin:

    def _race_once(self, index):
        vtype = vtypes.create_type(self.admin_context, 'race-%d' % index)
        barrier = threading.Barrier(2)
        outcome = {}

        def set_multiattach():
            context = self.admin_context.elevated()
            barrier.wait()
            try:
                vtypes.update_extra_specs(context, vtype.id,
                                          {'multiattach': '<is> True'})
                outcome['multiattach'] = True
            except exception.InvalidVolumeType:
                outcome['multiattach'] = False

        def encrypt():
            context = self.admin_context.elevated()
            barrier.wait()
            try:
                vtypes.create_encryption(context, vtype.id,
                                         {'provider': 'luks'})
                outcome['encrypted'] = True
            except exception.InvalidVolumeType:
                outcome['encrypted'] = False

        threads = [threading.Thread(target=set_multiattach),
                   threading.Thread(target=encrypt)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return outcome

    def test_never_both(self):
        for index in range(ROUNDS):
            outcome = self._race_once(index)
            self.assertEqual(2, len(outcome), outcome)
            self.assertFalse(outcome['multiattach'] and
                             outcome['encrypted'], outcome)
            self.assertTrue(outcome['multiattach'] or outcome['encrypted'],
                            outcome)


class SQLiteTypeRaceTestCase(_TypeRaceMixin, base.DBTestCase):
    DATABASE = 'sqlite'


class PostgreSQLTypeRaceTestCase(_TypeRaceMixin, base.DBTestCase):
    DATABASE = 'postgresql'


class MySQLTypeRaceTestCase(_TypeRaceMixin, base.DBTestCase):
    DATABASE = 'mysql'
