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

"""Tests of cinder_ma.conf.message."""

from cinder_ma.conf import message
from tests import base


class MessageOptsTestCase(base.TestCase):

    def test_cinders_default_and_old_group(self):
        self.assertEqual(2592000, self.conf.message.message_ttl)
        opt, = message.list_opts()[message.GROUP]
        # A Cinder configuration ([DEFAULT] message_ttl) keeps its meaning.
        self.assertEqual('DEFAULT', opt.deprecated_opts[0].group)
