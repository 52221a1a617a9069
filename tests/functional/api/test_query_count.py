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

"""Listing runs a constant number of SQL queries, whatever its size.

GET /volumes/detail and GET /attachments/detail are served by the real
app over a real SQLite database; an engine event counts the statements.
"""

import sqlalchemy as sa

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from tests.unit.api import base as api_base


class ListingQueryCountTestCase(api_base.APITestCase):

    def _populate(self, volumes, attachments_each):
        for _ in range(volumes):
            volume = self.create_volume(multiattach=True,
                                        metadata={'k': 'v', 'x': 'y'})
            for index in range(attachments_each):
                att = attachment_db.attachment_reserve(
                    self.context, volume.id, 'instance-%d' % index)
                attachment_db.attachment_update(
                    self.context, att.id, {'attach_status': 'attached',
                                           'attached_host': 'h'})

    def _count(self, path, headers):
        statements = []

        def record(conn, cursor, statement, *args):
            if not statement.lstrip().upper().startswith(
                    ('PRAGMA', 'BEGIN', 'COMMIT', 'ROLLBACK')):
                statements.append(statement)

        engine = db_api.get_engine()
        sa.event.listen(engine, 'before_cursor_execute', record)
        try:
            body = self.app.get(self.url(path), headers=headers).json
        finally:
            sa.event.remove(engine, 'before_cursor_execute', record)
        return len(statements), body

    def test_volume_detail_is_constant(self):
        self._populate(3, 2)
        small, body = self._count('/volumes/detail', api_base.ADMIN)
        self.assertEqual(3, len(body['volumes']))
        self._populate(27, 4)
        large, body = self._count('/volumes/detail', api_base.ADMIN)
        self.assertEqual(30, len(body['volumes']))
        self.assertEqual(
            4, len(max(body['volumes'],
                       key=lambda v: len(v['attachments']))['attachments']))
        self.assertEqual(small, large)
        # A bounded number in absolute terms too: policy, the page and its
        # eagerly loaded children.
        self.assertLessEqual(large, 8)

    def test_volume_detail_member_is_constant(self):
        self._populate(2, 1)
        small, _body = self._count('/volumes/detail', api_base.MEMBER)
        self._populate(20, 3)
        large, body = self._count('/volumes/detail', api_base.MEMBER)
        self.assertEqual(22, len(body['volumes']))
        self.assertEqual(small, large)
