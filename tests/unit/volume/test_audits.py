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

"""Tests of cinder_ma.volume.audits: administrators only."""

from cinder_ma.db import audits as audit_db
from cinder_ma import exception
from cinder_ma.volume import audits as volume_audits
from tests import base


class AuditServiceTestCase(base.DBTestCase):

    def test_admins_list_others_are_refused(self):
        run = audit_db.audit_create(self.admin_context, 'ctl', 1, [])
        self.assertEqual([run], volume_audits.list_audits(
            self.admin_context, limit=5))
        self.assertRaises(exception.PolicyNotAuthorized,
                          volume_audits.list_audits, self.context)
