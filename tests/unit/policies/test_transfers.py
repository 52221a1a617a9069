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

"""Tests of cinder_ma.policies.transfers: Cinder's names and defaults."""

from cinder_ma.policies import base as policy_base
from cinder_ma.policies import transfers
from tests import base


class TransferPolicyTestCase(base.BaseTestCase):

    def test_cinder_names_and_defaults(self):
        rules = {rule.name: rule for rule in transfers.list_rules()}
        reader = policy_base.PROJECT_READER_OR_ADMIN
        member = policy_base.PROJECT_MEMBER_OR_ADMIN
        self.assertEqual({
            'volume:get_all_transfers': reader,
            'volume:get_transfer': reader,
            'volume:create_transfer': member,
            'volume:accept_transfer': member,
            'volume:delete_transfer': member},
            {name: rule.check_str for name, rule in rules.items()})
        # Both paths are documented.
        paths = {op['path'] for op in
                 rules['volume:accept_transfer'].operations}
        self.assertEqual(
            {'/v3/{project_id}/os-volume-transfer/{transfer_id}/accept',
             '/v3/{project_id}/volume-transfers/{transfer_id}/accept'},
            paths)
