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

"""Concurrent deletes of the users of one host's connection on PostgreSQL
and MariaDB (SQLite: tests/unit/manager/flows/test_disconnect_attachment.py,
ConnectionRaceTestCase, which these run): a delete whose host keeps
another user is made at once in the API's transaction, without the
connection lock (docs/contributor/performance.rst), and of concurrent
deletes exactly one still ends the connection; a delete racing a connect
never cuts the new connection.
"""

from tests.unit.manager.flows import test_disconnect_attachment


class PostgreSQLLastUsersRaceTestCase(
        test_disconnect_attachment.ConnectionRaceTestCase):
    DATABASE = 'postgresql'
    # The control of the lock, shown on SQLite.
    test_without_the_lock_the_connection_is_cut = None


class MySQLLastUsersRaceTestCase(
        test_disconnect_attachment.ConnectionRaceTestCase):
    DATABASE = 'mysql'
    test_without_the_lock_the_connection_is_cut = None
