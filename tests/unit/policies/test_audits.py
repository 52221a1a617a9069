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

"""Tests of cinder_ma.policies.audits: administrators only."""

from cinder_ma.policies import audits
from cinder_ma.policies import base as policy_base
from tests import base


class AuditPolicyTestCase(base.BaseTestCase):

    def test_admin_only(self):
        rules = {rule.name: rule.check_str for rule in audits.list_rules()}
        self.assertEqual({'cinder_ma_extension:attachment_audit:get_all':
                          policy_base.RULE_ADMIN_API}, rules)
