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

"""Tests of cinder_ma.notifications: the notifier."""

import fixtures
from oslo_messaging import opts as messaging_opts

from cinder_ma import context
from cinder_ma import notifications
from cinder_ma import rpc
from tests import base
from tests.unit.manager import fixtures as mgr_fixtures


class NotifierTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(mgr_fixtures.LocalRPC(self.conf))
        # Registered, with oslo.messaging's default (rabbit://), once a
        # test of this process made an oslo transport; an all-in-one
        # deployment has none.
        if 'transport_url' in self.conf:
            self.conf.set_override('transport_url', None)
        self.ctxt = context.RequestContext(user_id='u1', project_id='p1')

    def test_notifier_is_noop(self):
        notifier = notifications.get_notifier('cinder-ma-manager.node1')
        notifier.info(self.ctxt, 'volume.create.end', {'id': 'v1'})
        self.assertEqual('cinder-ma-manager.node1', notifier.publisher_id)
        self.assertFalse(notifier.is_enabled())

    def test_notify_does_nothing_for_the_noop_driver(self):
        # Not even serialize what a noop driver drops.
        serialize = self.useFixture(fixtures.MockPatchObject(
            rpc.RequestContextSerializer, 'serialize_entity')).mock
        notifications.notify(self.ctxt, 'volume.attach.end',
                             {'volume_id': 'v1'})
        serialize.assert_not_called()

    def test_notify_sends_to_an_enabled_driver(self):
        rpc.cleanup()
        sent = self.useFixture(mgr_fixtures.Notifications(self.conf)).sent
        rpc.init(self.conf)
        notifications.notify(self.ctxt, 'volume.attach.end',
                             {'volume_id': 'v1'})
        self.assertEqual([('volume.attach.end', {'volume_id': 'v1'})],
                         sent())

    def test_log_driver_works_locally(self):
        rpc.cleanup()
        sent = self.useFixture(mgr_fixtures.Notifications(self.conf)).sent
        rpc.init(self.conf)
        notifications.get_notifier('volume').info(
            self.ctxt, 'volume.attach.end', {'volume_id': 'v1'})
        self.assertEqual([('volume.attach.end', {'volume_id': 'v1'})],
                         sent())

    def test_bus_drivers_without_a_bus_are_dropped(self):
        logger = self.useFixture(
            fixtures.FakeLogger(name='cinder_ma.notifications'))
        rpc.cleanup()
        for group, group_opts in messaging_opts.list_opts():
            if group == 'oslo_messaging_notifications':
                self.conf.register_opts(group_opts, group=group)
        self.conf.set_override('driver', ['messagingv2'],
                               group='oslo_messaging_notifications')
        rpc.init(self.conf)
        self.assertFalse(notifications.get_notifier('volume').is_enabled())
        self.assertIn('Notification drivers messagingv2 need a',
                      logger.output)

    def test_new_notifier_after_rpc_cleanup(self):
        notifications.get_notifier('volume')
        first = rpc.get_notification_transport()[0]
        rpc.cleanup()
        rpc.init(self.conf)
        notifications.get_notifier('volume')
        second = rpc.get_notification_transport()[0]
        self.assertIsNot(first, second)
        self.assertIs(second, notifications._NOTIFIER[0])

    def test_needs_rpc_init(self):
        rpc.cleanup()
        self.assertRaises(RuntimeError, notifications.get_notifier, 'volume')
        self.assertTrue(notifications.enabled())   # logged, not raised
