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

"""RPC over RabbitMQ, in this process: what a caller sees of a manager's
exceptions once they have crossed the wire.

Skipped when RabbitMQ is down, failed instead under
``CINDER_MA_REQUIRE_SERVICES=1``.
"""

import urllib.parse
import uuid

from oslo_messaging import opts as messaging_opts

from cinder_ma import exception
from cinder_ma import rpc
from tests import base
from tests import fixtures as cm_fixtures
from tests.unit import test_rpc


class RabbitErrorsTestCase(test_rpc.ErrorsTravelMixin, base.TestCase):

    def setUp(self):
        super().setUp()
        url = urllib.parse.urlsplit(cm_fixtures.RABBIT_URL)
        host, port = url.hostname or '127.0.0.1', url.port or 5672
        if not cm_fixtures.port_open(host, port):
            cm_fixtures.skip_or_fail(self, 'RabbitMQ is not reachable at '
                                           '%s:%s' % (host, port))
        rpc.cleanup()
        self.conf.set_override('rpc_transport', 'oslo')
        rpc.init(self.conf)
        self.addCleanup(rpc.cleanup)
        for group, group_opts in messaging_opts.list_opts():
            if group == 'oslo_messaging_rabbit':
                self.conf.register_opts(group_opts, group=group)
        self.conf.set_override('transport_url', cm_fixtures.RABBIT_URL)
        self.conf.set_override(
            'control_exchange', 'cinder_ma_test_%s' % uuid.uuid4().hex)
        # Nothing left on the shared broker.
        self.conf.set_override('amqp_durable_queues', False,
                               group='oslo_messaging_rabbit')
        self.conf.set_override('amqp_auto_delete', True,
                               group='oslo_messaging_rabbit')
        # oslo.messaging's server logs every exception an endpoint raises
        # that it does not expect, with its traceback: these tests raise
        # them on purpose.
        self.logged = self.expect_logged_errors()
        self.client = self.serve(test_rpc.Endpoint())

    def test_no_remote_traceback_in_the_message(self):
        exc = self.assertRaises(exception.VolumeNotFound,
                                self.client.call, self.ctxt,
                                'not_found', volume_id='v1')
        self.assertNotIn('Traceback', str(exc))
        self.assertIsNone(exc.__cause__)
