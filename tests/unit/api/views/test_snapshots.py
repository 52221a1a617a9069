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

"""Snapshot views: Cinder's fields by microversion, the extension's
attributes when asked for, the list links."""

import datetime

import webob

from cinder_ma.api import microversions as mv
from cinder_ma.api.views import snapshots as views
from cinder_ma.db import records
from tests.unit.api import base

SNAPSHOT = records.Snapshot(
    id='s1', project_id='p', user_id='u', volume_id='v',
    volume_type_id='t', volume_size=2, name='n', description='d',
    status='available', progress='100%',
    created_at=datetime.datetime(2026, 11, 27, 10, 0, 0),
    metadata={'k': 'v'})


class TestSnapshotViews(base.APITestCase):

    def _req(self, version):
        req = webob.Request.blank('/v3/%s/snapshots?limit=1' % base.PROJECT)
        req.api_version = mv.APIVersionRequest(version)
        req.context = self.context
        req.context.project_id = base.PROJECT
        return req

    def test_detail_by_microversion(self):
        old = views.show(self._req('3.0'), SNAPSHOT)['snapshot']
        self.assertEqual(
            {'id': 's1', 'created_at': '2026-11-27T10:00:00.000000',
             'updated_at': None, 'name': 'n', 'description': 'd',
             'volume_id': 'v', 'status': 'available', 'size': 2,
             'metadata': {'k': 'v'}}, old)
        new = views.show(self._req(mv.MAX_VERSION), SNAPSHOT,
                         extended=True)['snapshot']
        self.assertEqual(
            dict(old, group_snapshot_id=None, user_id='u',
                 consumes_quota=True,
                 **{'os-extended-snapshot-attributes:project_id': 'p',
                    'os-extended-snapshot-attributes:progress': '100%'}),
            new)

    def test_lists(self):
        req = self._req(mv.MAX_VERSION)
        body = views.summary_list(req, [SNAPSHOT], 1, count=5)
        self.assertEqual(5, body['count'])
        self.assertNotIn('user_id', body['snapshots'][0])
        self.assertIn('marker=s1', body['snapshots_links'][0]['href'])
        body = views.detail_list(req, [SNAPSHOT], 10)
        self.assertEqual({'snapshots'}, set(body))
        self.assertEqual('u', body['snapshots'][0]['user_id'])
