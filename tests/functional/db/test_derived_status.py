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

"""The volume status the attachment transitions write, on SQLite,
PostgreSQL and MariaDB: the database decides it in the UPDATE that
writes it, and it must be what :func:`cinder_ma.status.derive` says for
every combination of attachment statuses."""

import itertools

import sqlalchemy as sa

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import models
from cinder_ma.db import volumes as volume_db
from cinder_ma import status as vstatus
from tests import base

ATTACH_STATUSES = (vstatus.ATTACH_RESERVED, vstatus.ATTACH_ATTACHING,
                   vstatus.ATTACH_ATTACHED, vstatus.ATTACH_DETACHING,
                   vstatus.ATTACH_DETACHED, vstatus.ATTACH_ERROR_ATTACHING,
                   vstatus.ATTACH_ERROR_DETACHING)


@db_api.writer
def _replace_attachments(context, volume_id, statuses, deleted):
    connection = db_api.connection_of(context)
    table = models.VolumeAttachment.__table__
    connection.execute(sa.delete(table).where(
        table.c.volume_id == volume_id))
    for index, (status, gone) in enumerate(
            [(s, False) for s in statuses] + [(s, True) for s in deleted]):
        connection.execute(sa.insert(table).values(
            id='%s-%d' % (volume_id[:8], index), volume_id=volume_id,
            instance_uuid='i%d' % index, attach_status=status,
            attach_mode='rw', deleted=gone, created_at=db_api.utcnow(),
            generation=1))
    attachment_db.recompute_volume_status(context, volume_id)


class _DerivedStatusMixin:

    def setUp(self):
        super().setUp()
        self.volume = self.make_shared_volume('shared')

    def _set(self, statuses, deleted=()):
        """The volume's attachments become ``statuses`` (and ``deleted``,
        soft-deleted), then its status is derived."""
        _replace_attachments(self.context, self.volume.id, statuses,
                             deleted)

    def _status(self):
        return volume_db.volume_get(self.context, self.volume.id).status

    def test_every_combination_is_derived(self):
        for size in range(len(ATTACH_STATUSES) + 1):
            for statuses in itertools.combinations(ATTACH_STATUSES, size):
                self._set(statuses)
                self.assertEqual(vstatus.derive(statuses), self._status(),
                                 statuses)

    def test_deleted_attachments_do_not_count(self):
        self._set([vstatus.ATTACH_RESERVED],
                  deleted=[vstatus.ATTACH_ATTACHED])
        self.assertEqual(vstatus.RESERVED, self._status())

    def test_volume_in_another_status_is_left(self):
        volume_db.volume_update(self.context, self.volume.id,
                                {'status': 'extending'})
        self._set([vstatus.ATTACH_ATTACHED])
        self.assertEqual('extending', self._status())


class SQLiteDerivedStatusTestCase(_DerivedStatusMixin, base.DBTestCase):
    DATABASE = 'sqlite'


class PostgreSQLDerivedStatusTestCase(_DerivedStatusMixin,
                                      base.DBTestCase):
    DATABASE = 'postgresql'


class MySQLDerivedStatusTestCase(_DerivedStatusMixin, base.DBTestCase):
    DATABASE = 'mysql'
