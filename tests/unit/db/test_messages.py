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

"""Tests of cinder_ma.db.messages on the SQLite file database (and, by
tests/functional/db/test_messages.py, on PostgreSQL and MariaDB)."""

import datetime

import fixtures
from oslo_utils import timeutils

from cinder_ma.db import messages as message_db
from cinder_ma import exception
from cinder_ma import message_field as mf
from tests import base


class MessageDBMixin:

    def _record(self, project='p1', **kwargs):
        kwargs.setdefault('resource_uuid', 'v1')
        return message_db.record(self.admin_context, project,
                                 mf.Action.SCHEDULE_ALLOCATE_VOLUME,
                                 **kwargs)

    def test_record_builds_cinders_message(self):
        self.admin_context.request_id = 'req-1'
        before = timeutils.utcnow()
        message = self._record(exception=exception.NoValidBackend(
            reason='secret host names'))
        got = message_db.message_get(self.admin_context, message.id)
        self.assertEqual(message, got)
        self.assertEqual(('p1', 'VOLUME', 'v1', 'VOLUME_VOLUME_001_003',
                          '001', '003', 'ERROR', 'req-1'),
                         (got.project_id, got.resource_type,
                          got.resource_uuid, got.event_id, got.action_id,
                          got.detail_id, got.message_level, got.request_id))
        # Kept message_ttl at least; the exception's text is not kept.
        self.assertGreaterEqual(got.expires_at - before,
                                datetime.timedelta(seconds=2592000))
        self.assertNotIn('secret', got.user_message)

    def test_record_never_raises(self):
        self.useFixture(fixtures.MockPatchObject(
            message_db, 'message_create', side_effect=RuntimeError('db')))
        logged = self.expect_logged_errors()
        self.assertIsNone(self._record())
        self.assertIn('Could not record the user message', logged.output)

    def test_project_scope_and_delete(self):
        mine = self._record()
        theirs = self._record(project='p2')
        self.assertRaises(exception.MessageNotFound, message_db.message_get,
                          self.admin_context, theirs.id, 'p1')
        self.assertEqual([mine.id], [m.id for m in message_db.message_get_all(
            self.admin_context, 'p1')])
        self.assertRaises(exception.MessageNotFound,
                          message_db.message_destroy, self.admin_context,
                          theirs.id, 'p1')
        message_db.message_destroy(self.admin_context, mine.id, 'p1')
        self.assertRaises(exception.MessageNotFound, message_db.message_get,
                          self.admin_context, mine.id)
        self.assertRaises(exception.MessageNotFound,
                          message_db.message_destroy, self.admin_context,
                          mine.id)

    def test_list_filters_pages_and_sorts(self):
        made = [self._record(resource_uuid='v%d' % i) for i in range(5)]
        everything = message_db.message_get_all(self.admin_context)
        # Newest first by default.
        self.assertEqual(5, len(everything))
        self.assertEqual(['v3'], [m.resource_uuid for m in
                                  message_db.message_get_all(
                                      self.admin_context,
                                      filters={'resource_uuid': 'v3'})])
        first = message_db.message_get_all(self.admin_context, limit=2,
                                           sort_keys=['resource_uuid'],
                                           sort_dirs=['asc'])
        self.assertEqual(['v0', 'v1'], [m.resource_uuid for m in first])
        rest = message_db.message_get_all(
            self.admin_context, marker=first[-1].id,
            sort_keys=['resource_uuid'], sort_dirs=['asc'])
        self.assertEqual(['v2', 'v3', 'v4'],
                         [m.resource_uuid for m in rest])
        skipped = message_db.message_get_all(
            self.admin_context, offset=3, sort_keys=['resource_uuid'],
            sort_dirs=['asc'])
        self.assertEqual(['v3', 'v4'], [m.resource_uuid for m in skipped])
        self.assertRaises(exception.InvalidSortKey,
                          message_db.message_get_all, self.admin_context,
                          sort_keys=['project_id; drop'])
        self.assertRaises(exception.MarkerNotFound,
                          message_db.message_get_all, self.admin_context,
                          marker='nope')
        self.assertEqual(5, len(made))

    def test_purge_expired(self):
        old = self._record()
        new = self._record()
        self.assertEqual(0, message_db.message_purge_expired(
            self.admin_context))
        # Past both (under load the second may be recorded a second or
        # more after the first).
        later = max(old.expires_at, new.expires_at) + datetime.timedelta(
            seconds=1)
        self.assertEqual(2, message_db.message_purge_expired(
            self.admin_context, now=later))
        self.assertEqual([], message_db.message_get_all(self.admin_context))
        self.assertNotEqual(old.id, new.id)


class MessageDBTestCase(MessageDBMixin, base.DBTestCase):
    pass
