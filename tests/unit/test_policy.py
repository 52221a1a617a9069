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

"""cinder_ma.policy: the enforcer and its policy file handling."""

import os
from unittest import mock

import yaml

from cinder_ma import context
from cinder_ma import exception
from cinder_ma import policies
from cinder_ma import policy
from tests import base

#: The copy of cinder_ma's rules the dashboard's Horizon reads.
DASHBOARD_POLICY = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__)))), 'cinder_ma_dashboard', 'conf', 'cinder_ma_policy.d',
    'cinder_ma.yaml')


class EnforcerTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.policy_file = os.path.join(self.state_path, 'policy.yaml')
        self.flags(group='oslo_policy', policy_file=self.policy_file)
        self.ctx = context.RequestContext(user_id='u', project_id='p',
                                          roles=['member', 'reader'])
        self.clock = 1000.0
        patcher = mock.patch('time.monotonic', lambda: self.clock)
        patcher.start()
        self.addCleanup(patcher.stop)

    def _write(self, text):
        with open(self.policy_file, 'w') as f:
            f.write(text)
        # A different mtime than the previous version of the file.
        stat = os.stat(self.policy_file)
        os.utime(self.policy_file, (stat.st_atime, stat.st_mtime + 10))

    def test_default_rules_without_a_policy_file(self):
        self.assertTrue(policy.authorize(self.ctx, 'volume:get',
                                         {'project_id': 'p'}))

    def test_file_not_looked_at_before_every_check(self):
        enforcer = policy.get_enforcer()
        policy.authorize(self.ctx, 'volume:get', {'project_id': 'p'})
        with mock.patch.object(enforcer, '_get_policy_path') as path:
            for _ in range(5):
                policy.authorize(self.ctx, 'volume:get', {'project_id': 'p'})
        path.assert_not_called()

    def test_changed_file_picked_up_after_the_interval(self):
        policy.authorize(self.ctx, 'volume:get', {'project_id': 'p'})
        self._write('"volume:get": "!"\n')
        # Within the interval the rules in memory hold.
        self.clock += policy.RECHECK_SECONDS / 2
        self.assertTrue(policy.authorize(self.ctx, 'volume:get',
                                         {'project_id': 'p'}))
        self.clock += policy.RECHECK_SECONDS
        self.assertRaises(exception.PolicyNotAuthorized, policy.authorize,
                          self.ctx, 'volume:get', {'project_id': 'p'})
        self._write('"volume:get": ""\n')
        self.clock += policy.RECHECK_SECONDS
        self.assertTrue(policy.authorize(self.ctx, 'volume:get',
                                         {'project_id': 'p'}))

    def test_force_reload_reads_at_once(self):
        policy.authorize(self.ctx, 'volume:get', {'project_id': 'p'})
        self._write('"volume:get": "!"\n')
        policy.get_enforcer().load_rules(force_reload=True)
        self.assertRaises(exception.PolicyNotAuthorized, policy.authorize,
                          self.ctx, 'volume:get', {'project_id': 'p'})


class DecisionMemoryTestCase(base.TestCase):
    """Allowed decisions are remembered, for the same rule, target and
    credentials only, and forgotten with the rules."""

    def setUp(self):
        super().setUp()
        self.ctx = context.RequestContext(user_id='u', project_id='p',
                                          roles=['member', 'reader'])
        self.enforcer = policy.get_enforcer()
        self.checks = mock.patch.object(
            self.enforcer, 'authorize', wraps=self.enforcer.authorize)
        self.oslo = self.checks.start()
        self.addCleanup(self.checks.stop)

    def test_same_decision_asked_once(self):
        for _ in range(3):
            self.assertTrue(policy.authorize(self.ctx, 'volume:get',
                                             {'project_id': 'p'}))
        self.assertEqual(1, self.oslo.call_count)

    def test_other_target_or_caller_checked_again(self):
        self.assertTrue(policy.authorize(self.ctx, 'volume:get',
                                         {'project_id': 'p'}))
        self.assertRaises(exception.PolicyNotAuthorized, policy.authorize,
                          self.ctx, 'volume:get', {'project_id': 'q'})
        reader = context.RequestContext(user_id='u', project_id='p',
                                        roles=['reader'])
        self.assertRaises(exception.PolicyNotAuthorized, policy.authorize,
                          reader, 'volume:update', {'project_id': 'p'})
        self.assertTrue(policy.authorize(self.ctx, 'volume:update',
                                         {'project_id': 'p'}))
        self.assertEqual(4, self.oslo.call_count)
        # A value of another type is another target.
        self.assertNotEqual(policy._frozen({'a': True}),
                            policy._frozen({'a': 1}))
        self.assertNotEqual(policy._frozen({'a': ['x']}),
                            policy._frozen({'a': ('x',)}))

    def test_denial_never_remembered(self):
        for _ in range(2):
            self.assertRaises(exception.PolicyNotAuthorized,
                              policy.authorize, self.ctx, 'volume:get',
                              {'project_id': 'q'})
            self.assertFalse(policy.authorize(
                self.ctx, 'volume:get', {'project_id': 'q'},
                do_raise=False))
        self.assertEqual(4, self.oslo.call_count)

    def test_forgotten_when_rules_change(self):
        self.assertTrue(policy.authorize(self.ctx, 'volume:get',
                                         {'project_id': 'p'}))
        self.set_policy_rules({'volume:get': '!'})
        self.assertRaises(exception.PolicyNotAuthorized, policy.authorize,
                          self.ctx, 'volume:get', {'project_id': 'p'})

    def test_forgotten_on_reload(self):
        self.assertTrue(policy.authorize(self.ctx, 'volume:get',
                                         {'project_id': 'p'}))
        self.enforcer.load_rules(force_reload=True)
        self.assertTrue(policy.authorize(self.ctx, 'volume:get',
                                         {'project_id': 'p'}))
        self.assertEqual(2, self.oslo.call_count)

    def test_rule_with_http_check_always_asked(self):
        self.set_policy_rules({
            'volume:get': 'rule:remote or role:member',
            'remote': 'http://127.0.0.1:9/check'})
        self.assertFalse(self.enforcer.is_pure('volume:get'))
        self.assertTrue(self.enforcer.is_pure('volume:update'))
        self.assertTrue(self.enforcer.is_pure('context_is_admin'))
        with mock.patch.object(self.enforcer, 'authorize',
                               return_value=True) as oslo:
            for _ in range(2):
                policy.authorize(self.ctx, 'volume:get',
                                 {'project_id': 'p'})
        self.assertEqual(2, oslo.call_count)


class DashboardPolicyTestCase(base.TestCase):

    def test_dashboard_copy_is_the_defaults(self):
        """cinder_ma_dashboard checks cinder_ma's rules in Horizon: its
        copy says what cinder_ma's defaults say."""
        with open(DASHBOARD_POLICY) as f:
            copy = yaml.safe_load(f)
        defaults = {rule.name: rule.check_str
                    for rule in policies.list_rules()}
        self.assertIn('volume:attachment_promote', copy)
        self.assertEqual({name: defaults.get(name) for name in copy}, copy)
