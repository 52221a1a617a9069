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

"""The views of the resources cinder_ma does not have
(cinder_ma.api.views.unsupported): Cinder's list body, with its count
when asked (3.45)."""

from cinder_ma.api.views import unsupported
from tests import base


class TestIndex(base.BaseTestCase):

    def test_empty_list_under_its_key(self):
        self.assertEqual({'snapshots': []},
                         unsupported.index('snapshots', ()))

    def test_count_when_asked(self):
        self.assertEqual({'backups': [], 'count': 0},
                         unsupported.index('backups', iter(()), count=0))

    def test_items_listed(self):
        self.assertEqual({'messages': [{'id': 'm'}]},
                         unsupported.index('messages', iter([{'id': 'm'}])))
