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

"""Concurrent standby promotions of a one-writer volume on PostgreSQL and
MariaDB (SQLite: tests/unit/db/test_fencing.py): of promotions that read
the same writer, exactly one wins; a promotion racing read-write
reservations never leaves two writers.
"""

from tests import base
from tests.unit.db import test_fencing


class PostgreSQLPromotionRaceTestCase(test_fencing.PromotionRaceMixin,
                                      base.DBTestCase):
    DATABASE = 'postgresql'


class MySQLPromotionRaceTestCase(test_fencing.PromotionRaceMixin,
                                 base.DBTestCase):
    DATABASE = 'mysql'
