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

"""Tests of cinder_ma.volume.messages: scope and policies."""

from cinder_ma import context as cm_context
from cinder_ma.db import messages as message_db
from cinder_ma import exception
from cinder_ma import message_field as mf
from cinder_ma.volume import messages as message_api
from tests import base


class MessageServiceTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.mine = message_db.record(
            self.admin_context, 'fake-project',
            mf.Action.SCHEDULE_ALLOCATE_VOLUME, resource_uuid='v1')
        self.theirs = message_db.record(
            self.admin_context, 'other-project',
            mf.Action.EXTEND_VOLUME, resource_uuid='v2')
        self.reader = cm_context.RequestContext(
            user_id='r', project_id='fake-project', roles=['reader'])

    def test_users_see_their_project_admins_all(self):
        self.assertEqual([self.mine.id], [
            m.id for m in message_api.list_messages(self.context)])
        self.assertEqual(2, len(message_api.list_messages(
            self.admin_context)))
        self.assertEqual(self.mine, message_api.get_message(self.reader,
                                                            self.mine.id))
        self.assertRaises(exception.MessageNotFound,
                          message_api.get_message, self.context,
                          self.theirs.id)
        self.assertEqual(self.theirs, message_api.get_message(
            self.admin_context, self.theirs.id))

    def test_readers_may_not_delete(self):
        self.assertRaises(exception.PolicyNotAuthorized,
                          message_api.delete_message, self.reader,
                          self.mine.id)
        self.assertRaises(exception.MessageNotFound,
                          message_api.delete_message, self.context,
                          self.theirs.id)
        message_api.delete_message(self.context, self.mine.id)
        self.assertEqual([], message_api.list_messages(self.context))
        message_api.delete_message(self.admin_context, self.theirs.id)

    def test_policy_file_may_close_the_list(self):
        self.set_policy_rules({'message:get_all': 'rule:admin_api'})
        self.assertRaises(exception.PolicyNotAuthorized,
                          message_api.list_messages, self.context)
