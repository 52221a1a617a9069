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

"""Tests of the option listing and of the library defaults cinder_ma
changes."""

import os

from oslo_concurrency import opts as concurrency_opts
from oslo_config import cfg

from cinder_ma.conf import opts
from tests import base


class TestSetDefaults(base.BaseTestCase):

    def test_durable_rabbit_queues_by_default(self):
        conf = cfg.ConfigOpts()
        opts.set_defaults(conf)
        conf([])
        self.assertTrue(conf.oslo_messaging_rabbit.amqp_durable_queues)

    def test_a_config_file_still_wins(self):
        conf = cfg.ConfigOpts()
        opts.set_defaults(conf)
        conf([])
        conf.set_override('amqp_durable_queues', False,
                          group='oslo_messaging_rabbit')
        self.assertFalse(conf.oslo_messaging_rabbit.amqp_durable_queues)

    def test_oslo_messaging_registers_the_same_options_later(self):
        from oslo_messaging import opts as messaging_opts

        conf = cfg.ConfigOpts()
        opts.set_defaults(conf)
        for group, group_opts in messaging_opts.list_opts():
            # No DuplicateOptError: the same definitions.
            conf.register_opts(group_opts, group=group)
        conf([])
        self.assertTrue(conf.oslo_messaging_rabbit.amqp_durable_queues)

    def test_healthcheck_group_listed_with_our_defaults(self):
        groups = dict(opts.list_opts())
        names = {o.name: o for o in groups['healthcheck']}
        self.assertEqual(['disable_by_file'], names['backends'].default)
        self.assertEqual('$state_path/healthcheck_disable',
                         names['disable_by_file_path'].default)

    def test_coordination_group_listed(self):
        groups = dict(opts.list_opts())
        names = {o.name: o for o in groups['coordination']}
        self.assertEqual('file://$state_path/coordination',
                         names['backend_url'].default)
        self.assertTrue(names['backend_url'].secret)
        self.assertIn('redis://', names['backend_url'].help)


class TestLibraryOptions(base.TestCase):
    """Options of libraries that cinder_ma.conf registers on CONF."""

    def test_lock_path_in_the_state_directory(self):
        # What the sample generator lists (namespace oslo.concurrency)...
        listed = {o.name: o for group, group_opts in
                  concurrency_opts.list_opts() for o in group_opts}
        self.assertEqual('$state_path/locks', listed['lock_path'].default)
        # ...and what the processes read.
        self.conf.clear_default('lock_path', group='oslo_concurrency')
        self.assertEqual(os.path.join(self.state_path, 'locks'),
                         self.conf.oslo_concurrency.lock_path)

    def test_one_rpc_response_timeout(self):
        # oslo.messaging's [DEFAULT] option, readable before (and
        # without) any transport, as the in-process RPC needs it...
        self.assertEqual(60, self.conf.rpc_response_timeout)
        # ...registered again by oslo.messaging without a conflict...
        from oslo_messaging import opts as messaging_opts
        for group, group_opts in messaging_opts.list_opts():
            self.conf.register_opts(group_opts, group=group)
        # ...and not shadowed by an option of ours in the sample.
        ours = [(group, o.name) for group, group_opts in opts.list_opts()
                for o in group_opts if o.name == 'rpc_response_timeout']
        self.assertEqual([], ours)
