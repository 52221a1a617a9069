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

"""QoS specs races (SQLite, PostgreSQL, MariaDB): deleting specs while
they are associated with a type never leaves the type pointing at deleted
specs, and two specs associated with one type at once give one winner."""

import threading

from cinder_ma.db import qos_specs as qos_db
from cinder_ma.db import types as type_db
from cinder_ma import exception
from tests import base

ROUNDS = 6


def _race(*functions):
    """Run the functions at once; their results (or exceptions)."""
    barrier = threading.Barrier(len(functions))
    results = [None] * len(functions)

    def run(index, function):
        barrier.wait()
        try:
            results[index] = function()
        except exception.CinderMAException as exc:
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i, f))
               for i, f in enumerate(functions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


class _QoSRaceMixin:

    def test_delete_against_associate(self):
        for index in range(ROUNDS):
            vtype = type_db.volume_type_create(self.admin_context,
                                               {'name': 'race-%d' % index})
            qos = qos_db.qos_specs_create(self.admin_context,
                                          'q-%d' % index, 'both', {})
            associated, deleted = _race(
                lambda: qos_db.qos_specs_associate(
                    self.admin_context.elevated(), qos.id, vtype.id),
                lambda: qos_db.qos_specs_delete(
                    self.admin_context.elevated(), qos.id))
            qos_id = type_db.volume_type_get(self.admin_context,
                                             vtype.id).qos_specs_id
            if isinstance(deleted, exception.QoSSpecsInUse):
                self.assertIsNone(associated)
                self.assertEqual(qos.id, qos_id)
            else:
                self.assertIsNone(deleted)
                self.assertIsInstance(associated,
                                      exception.QoSSpecsNotFound)
                self.assertIsNone(qos_id)

    def test_one_specs_per_type(self):
        for index in range(ROUNDS):
            vtype = type_db.volume_type_create(self.admin_context,
                                               {'name': 'one-%d' % index})
            specs = [qos_db.qos_specs_create(self.admin_context,
                                             'q-%d-%d' % (index, n),
                                             'both', {})
                     for n in range(4)]
            results = _race(*[
                (lambda s=s: qos_db.qos_specs_associate(
                    self.admin_context.elevated(), s.id, vtype.id))
                for s in specs])
            winners = [s.id for s, r in zip(specs, results) if r is None]
            self.assertEqual(1, len(winners), results)
            for result in results:
                if result is not None:
                    self.assertIsInstance(result,
                                          exception.InvalidVolumeType)
            self.assertEqual(winners[0], type_db.volume_type_get(
                self.admin_context, vtype.id).qos_specs_id)


class SQLiteQoSRaceTestCase(_QoSRaceMixin, base.DBTestCase):
    DATABASE = 'sqlite'


class PostgreSQLQoSRaceTestCase(_QoSRaceMixin, base.DBTestCase):
    DATABASE = 'postgresql'


class MySQLQoSRaceTestCase(_QoSRaceMixin, base.DBTestCase):
    DATABASE = 'mysql'
