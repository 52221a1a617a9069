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
