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

"""Tests of cinder-ma-status upgrade check."""

import os

import fixtures
from oslo_serialization import jsonutils
from oslo_upgradecheck import upgradecheck
from oslo_utils import timeutils

from cinder_ma.cmd import status
from cinder_ma.db import services as service_db
from cinder_ma.manager import rpcapi
from cinder_ma import policy
from tests import base

Code = upgradecheck.Code


class ChecksTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.checks = status.Checks()

    def _manager(self, host, version=None):
        caps = {'hypervisor': None}
        if version:
            caps[rpcapi.VERSION_KEY] = version
        service_db.service_create(self.admin_context, {
            'host': host, 'binary': 'cinder-ma-manager',
            'topic': rpcapi.ManagerAPI.TOPIC,
            'heartbeat_at': timeutils.utcnow(),
            'capabilities': jsonutils.dumps(caps)})

    def test_schema_at_head(self):
        self.assertEqual(Code.SUCCESS, self.checks._check_schema().code)

    def test_schema_behind(self):
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.db.migration.version', return_value='0001'))
        result = self.checks._check_schema()
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('cinder-ma-manage db sync', result.details)

    def test_pins(self):
        newest = rpcapi.ManagerAPI.RPC_API_VERSION
        self.assertEqual(Code.SUCCESS, self.checks._check_pins().code)
        self._manager('new', newest)
        self.assertEqual(Code.SUCCESS, self.checks._check_pins().code)
        self._manager('old')  # reports nothing: 1.2
        result = self.checks._check_pins()
        self.assertEqual(Code.WARNING, result.code)
        self.assertIn('manager = auto', result.details)
        self.flags(group='upgrade_levels', manager='auto')
        self.assertEqual(Code.SUCCESS, self.checks._check_pins().code)
        self.flags(group='upgrade_levels', manager='1.2')
        self.assertEqual(Code.SUCCESS, self.checks._check_pins().code)
        self.flags(group='upgrade_levels', manager=newest)
        result = self.checks._check_pins()
        self.assertEqual(Code.FAILURE, result.code)
        self.assertIn('above 1.2', result.details)
        self.flags(group='upgrade_levels', manager='9.0')
        self.assertEqual(Code.FAILURE, self.checks._check_pins().code)

    def test_policy_file_rules(self):
        path = os.path.join(self.state_path, 'policy.yaml')
        with open(path, 'w') as f:
            f.write('"volume:create": "rule:admin_api"\n')
        self.flags(group='oslo_policy', policy_file=path)
        policy.reset()
        self.addCleanup(policy.reset)
        self.assertEqual(Code.SUCCESS,
                         self.checks._check_policy_file().code)
        with open(path, 'w') as f:
            f.write('"volume:creat": "rule:admin_api"\n')
        result = self.checks._check_policy_file()
        self.assertEqual(Code.WARNING, result.code)
        self.assertIn('volume:creat', result.details)
