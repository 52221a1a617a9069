"""The API's fuzz test (tests/unit/api/test_fuzz.py) on PostgreSQL and
MariaDB: what SQLite takes, they may refuse (NUL characters, numbers
beyond a column's range, over-long strings), and that must not become a
500 either."""

from tests.unit.api import test_fuzz


class PostgreSQLFuzzTestCase(test_fuzz.TestFuzz):
    DATABASE = 'postgresql'


class MySQLFuzzTestCase(test_fuzz.TestFuzz):
    DATABASE = 'mysql'
