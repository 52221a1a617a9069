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

"""The mode of a reservation, on SQLite, PostgreSQL and MariaDB: a
read-only volume's attachments are ``ro`` whatever mode is asked, read
under the row lock of the reservation's swap (by its RETURNING where the
database has UPDATE ... RETURNING, by a SELECT otherwise)."""

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from tests import base


class _ModeMixin:

    def setUp(self):
        super().setUp()
        vtype = type_db.volume_type_create(self.context, {'name': 'shared'})
        self.volumes = [volume_db.volume_create(self.context, {
            'project_id': 'fake-project', 'size': 1, 'status': 'available',
            'volume_type_id': vtype.id, 'multiattach': True,
            'readonly': readonly}) for readonly in (False, True)]

    def _modes(self):
        writable, readonly = self.volumes
        return [attachment_db.attachment_reserve(
            self.context, volume.id, 'i1', attach_mode=mode).attach_mode
            for volume in (writable, readonly) for mode in ('rw', 'ro')]

    def test_read_only_volume_gives_ro(self):
        self.assertEqual(['rw', 'ro', 'ro', 'ro'], self._modes())

    def test_read_only_volume_gives_ro_without_returning(self):
        self.patch(db_api.get_engine().dialect, 'update_returning', False)
        self.assertEqual(['rw', 'ro', 'ro', 'ro'], self._modes())

    def test_refused_reservation_without_returning(self):
        self.patch(db_api.get_engine().dialect, 'update_returning', False)
        volume_db.volume_update(self.context, self.volumes[0].id,
                                {'status': 'error'})
        self.assertRaises(exception.InvalidVolume,
                          attachment_db.attachment_reserve, self.context,
                          self.volumes[0].id, 'i1')


class SQLiteModeTestCase(_ModeMixin, base.DBTestCase):
    DATABASE = 'sqlite'


class PostgreSQLModeTestCase(_ModeMixin, base.DBTestCase):
    DATABASE = 'postgresql'


class MySQLModeTestCase(_ModeMixin, base.DBTestCase):
    DATABASE = 'mysql'
