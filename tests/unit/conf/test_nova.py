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

"""The options of the [nova] group (cinder_ma.conf.nova): keystoneauth's,
with our defaults, registered and listed for the sample."""

from oslo_config import cfg

from cinder_ma.conf import nova as nova_conf
from tests import base


class TestNovaOptions(base.BaseTestCase):

    def test_registered_with_our_defaults(self):
        conf = cfg.ConfigOpts()
        nova_conf.register_opts(conf)
        conf([], project='cinder_ma', default_config_files=[])
        group = conf[nova_conf.GROUP_NAME]
        self.assertEqual(nova_conf.DEFAULT_TIMEOUT, group.timeout)
        self.assertEqual('compute', group.service_type)
        self.assertEqual(['public'], group.valid_interfaces)
        # Unset: Nova is not told.
        self.assertIsNone(group.auth_type)

    def test_listed_with_the_sample_plugin(self):
        (group, opts), = nova_conf.list_opts().items()
        self.assertEqual(nova_conf.GROUP_NAME, group.name)
        names = {opt.dest for opt in opts}
        for name in ('auth_type', 'auth_url', 'username', 'password',
                     'timeout', 'service_type', 'endpoint_override'):
            self.assertIn(name, names)
        defaults = {opt.dest: opt.default for opt in opts}
        self.assertEqual(nova_conf.DEFAULT_TIMEOUT, defaults['timeout'])
        self.assertEqual('compute', defaults['service_type'])
