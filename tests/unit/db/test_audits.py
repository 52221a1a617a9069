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

"""Tests of cinder_ma.db.audits on the SQLite file database."""

import fixtures

from cinder_ma.db import audits as audit_db
from tests import base

FINDING = ['attachment', 'a1', 'compute1',
           'no connection on backend node1@file']


class AuditDBTestCase(base.DBTestCase):

    def test_create_and_list_newest_first(self):
        clean = audit_db.audit_create(self.admin_context, 'ctl1', 2, [])
        found = audit_db.audit_create(self.admin_context, 'ctl2', 3,
                                      [FINDING, ('host', 'n2', 'n2', 7)])
        self.assertEqual(('ctl2', 3, 2), (found.host, found.hosts_audited,
                                          found.findings_count))
        # Stored as text, read back as lists.
        self.assertEqual([FINDING, ['host', 'n2', 'n2', '7']],
                         found.findings)
        self.assertEqual([found, clean],
                         audit_db.audit_get_all(self.admin_context))
        self.assertEqual([found],
                         audit_db.audit_get_all(self.admin_context, 1))
        self.assertEqual([], clean.findings)
        self.assertIsNotNone(clean.created_at)

    def test_keeps_the_newest(self):
        self.useFixture(fixtures.MockPatchObject(audit_db, 'KEEP', 2))
        runs = [audit_db.audit_create(self.admin_context, 'ctl', n, [])
                for n in range(4)]
        self.assertEqual([runs[3].id, runs[2].id], [
            a.id for a in audit_db.audit_get_all(self.admin_context)])
