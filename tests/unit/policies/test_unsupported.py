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

"""The rules of the lists of resources cinder_ma does not have
(cinder_ma.policies.unsupported): Cinder's names, any reader of the
project lists them."""

from cinder_ma import context
from cinder_ma.policies import base as policy_base
from cinder_ma.policies import unsupported
from cinder_ma import policy
from tests import base

NAMES = (unsupported.BACKUPS_GET_ALL, unsupported.GROUPS_GET_ALL,
         unsupported.GROUP_SNAPSHOTS_GET_ALL)


def _context(roles):
    return context.RequestContext(user_id='u', project_id='p',
                                  roles=list(roles))


class TestUnsupportedListRules(base.TestCase):

    def test_cinder_names_and_defaults(self):
        rules = {rule.name: rule for rule in unsupported.list_rules()}
        self.assertEqual(set(NAMES), set(rules))
        for rule in rules.values():
            self.assertEqual(policy_base.PROJECT_READER_OR_ADMIN,
                             rule.check_str)
            self.assertTrue(all(op['method'] == 'GET' and
                                op['path'].startswith('/v3/{project_id}/')
                                for op in rule.operations), rule.name)

    def test_readers_list_others_do_not(self):
        for roles, allowed in ((['reader'], True), (['member'], True),
                               (['admin'], True), ([], False)):
            for name in NAMES:
                self.assertEqual(allowed, bool(policy.authorize(
                    _context(roles), name, do_raise=False)), (roles, name))
