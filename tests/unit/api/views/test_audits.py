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

"""Tests of cinder_ma.api.views.audits."""

import datetime

from cinder_ma.api.views import audits as views
from cinder_ma.db import records
from tests import base


class AuditViewsTestCase(base.BaseTestCase):

    def test_index(self):
        audit = records.Audit(
            'id1', 'ctl', 2, 1, '[["disk", "a1", "n1", "no attachment"]]',
            datetime.datetime(2026, 11, 27, 12, 0, 1))
        self.assertEqual({'audits': [{
            'id': 'id1', 'created_at': '2026-11-27T12:00:01.000000',
            'host': 'ctl', 'hosts_audited': 2, 'findings_count': 1,
            'findings': [{'kind': 'disk', 'id': 'a1', 'host': 'n1',
                          'problem': 'no attachment'}]}]},
            views.index([audit]))
