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

"""GET /v3/{project_id}/cinder-ma-audits (the cinder-ma-audit extension):
administrators only, newest first, limited; no Cinder shape changes."""

import jsonschema

from cinder_ma.db import audits as audit_db
from tests.unit.api import base

FINDING = {'type': 'object',
           'properties': {key: {'type': 'string'}
                          for key in ('kind', 'id', 'host', 'problem')},
           'additionalProperties': False,
           'required': ['kind', 'id', 'host', 'problem']}
AUDIT = {'type': 'object',
         'properties': {'id': {'type': 'string', 'format': 'uuid'},
                        'created_at': {'type': 'string'},
                        'host': {'type': 'string'},
                        'hosts_audited': {'type': 'integer'},
                        'findings_count': {'type': 'integer'},
                        'findings': {'type': 'array', 'items': FINDING}},
         'additionalProperties': False,
         'required': ['id', 'created_at', 'host', 'hosts_audited',
                      'findings_count', 'findings']}
LIST = {'type': 'object',
        'properties': {'audits': {'type': 'array', 'items': AUDIT}},
        'additionalProperties': False, 'required': ['audits']}


class AuditsAPITestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.runs = [
            audit_db.audit_create(self.admin_context, 'ctl1', 1, []),
            audit_db.audit_create(
                self.admin_context, 'ctl2', 2,
                [['attachment', 'a1', 'compute1',
                  'no connection on backend node1@file']])]

    def test_list_newest_first(self):
        body = self.app.get(self.url('cinder-ma-audits'),
                            headers=base.ADMIN).json
        jsonschema.validate(body, LIST)
        self.assertEqual([self.runs[1].id, self.runs[0].id],
                         [a['id'] for a in body['audits']])
        self.assertEqual({'kind': 'attachment', 'id': 'a1',
                          'host': 'compute1',
                          'problem': 'no connection on backend node1@file'},
                         body['audits'][0]['findings'][0])
        body = self.app.get(self.url('cinder-ma-audits?limit=1'),
                            headers=base.ADMIN).json
        self.assertEqual([self.runs[1].id],
                         [a['id'] for a in body['audits']])

    def test_admins_only(self):
        response = self.app.get(self.url('cinder-ma-audits'),
                                headers=base.MEMBER, status=403)
        self.assertFault(response, 403, 'forbidden')

    def test_bad_query(self):
        for query in ('limit=x', 'limit=-1', 'host=ctl1'):
            response = self.app.get(self.url('cinder-ma-audits?' + query),
                                    headers=base.ADMIN, status=400)
            self.assertFault(response, 400, 'badRequest')
