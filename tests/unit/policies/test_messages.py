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

"""Tests of cinder_ma.policies.messages: Cinder's names and defaults."""

from cinder_ma.policies import base as policy_base
from cinder_ma.policies import messages
from tests import base


class MessagePolicyTestCase(base.BaseTestCase):

    def test_cinder_names_and_defaults(self):
        rules = {rule.name: rule.check_str for rule in messages.list_rules()}
        self.assertEqual({
            'message:get_all': policy_base.PROJECT_READER_OR_ADMIN,
            'message:get': policy_base.PROJECT_READER_OR_ADMIN,
            'message:delete': policy_base.PROJECT_MEMBER_OR_ADMIN}, rules)
