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

"""Tests of cinder_ma.cmd.all that serve nothing: the state directory (the
command itself is served in tests/functional/cmd/test_all.py)."""

import logging
import os

import fixtures

from cinder_ma.cmd import all as all_cmd
from cinder_ma.db import types as type_db
from tests import base
from tests.unit.cmd import test_manage


class PrepareStateTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.db_path = os.path.join(self.state_path, 'state', 'db.sqlite')
        self.useFixture(test_manage.EmptyDatabase(self.db_path))
        self.flags(state_path=os.path.join(self.state_path, 'state'))

    def test_prepare_state(self):
        state = all_cmd.prepare_state(self.conf)
        self.assertEqual(os.path.join(self.state_path, 'state'), state)
        self.assertTrue(os.path.isdir(state))
        self.assertEqual(['file'], self.conf.enabled_backends)
        from cinder_ma import context
        types = type_db.volume_type_get_all(context.get_admin_context())
        self.assertEqual(['__DEFAULT__'], [t.name for t in types])
        # Again: nothing changes.
        all_cmd.prepare_state(self.conf)
        self.assertEqual(1, len(type_db.volume_type_get_all(
            context.get_admin_context())))

    def test_configured_backends_are_kept(self):
        self.flags(enabled_backends=['gold'])
        all_cmd.prepare_state(self.conf)
        self.assertEqual(['gold'], self.conf.enabled_backends)

    def test_defaults(self):
        self.addCleanup(self.conf.set_default, 'rpc_transport', 'oslo')
        self.addCleanup(self.conf.set_default, 'auth_strategy', 'keystone')
        self.conf.clear_override('state_path')
        all_cmd.set_defaults(self.conf)
        self.assertEqual('local', self.conf.rpc_transport)
        self.assertEqual('noauth', self.conf.auth_strategy)
        self.assertEqual('./cinder-ma-state', self.conf.state_path)

    def test_noauth_off_loopback_warns(self):
        log = self.useFixture(fixtures.FakeLogger(level=logging.WARNING))
        self.flags(auth_strategy='noauth')
        for host in ('127.0.0.1', '::1', 'localhost', '127.0.0.5'):
            self.flags(host_ip=host, group='api')
            all_cmd.warn_if_open(self.conf)
        self.assertEqual('', log.output)
        self.flags(host_ip='0.0.0.0', group='api')
        all_cmd.warn_if_open(self.conf)
        self.assertIn('auth_strategy = noauth and the API listens on '
                      '0.0.0.0', log.output)
        self.flags(auth_strategy='keystone')
        log = self.useFixture(fixtures.FakeLogger(level=logging.WARNING))
        all_cmd.warn_if_open(self.conf)
        self.assertEqual('', log.output)
