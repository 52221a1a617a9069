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

"""The API's fuzz test (tests/unit/api/test_fuzz.py) on PostgreSQL and
MariaDB: what SQLite takes, they may refuse (NUL characters, numbers
beyond a column's range, over-long strings), and that must not become a
500 either."""

from tests.unit.api import test_fuzz


class PostgreSQLFuzzTestCase(test_fuzz.TestFuzz):
    DATABASE = 'postgresql'


class MySQLFuzzTestCase(test_fuzz.TestFuzz):
    DATABASE = 'mysql'
