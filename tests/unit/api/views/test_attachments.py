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

"""Tests of the attachment views: Cinder's shapes, its flat
connection_info."""

import datetime

import webob

from cinder_ma.api import microversions as mv
from cinder_ma.api.views import attachments as views
from cinder_ma.db import records
from tests.unit.api import base


def _attachment(**values):
    row = {'id': 'a1', 'volume_id': 'v1', 'instance_uuid': 'i1',
           'attach_status': 'attached', 'attach_mode': 'ro',
           'attach_time': datetime.datetime(2026, 11, 21, 10, 0, 0, 5),
           'detach_time': None, 'attached_host': None,
           'manager_host': None, 'mountpoint': None, 'connector': None,
           'connection_info':
               {'driver_volume_type': 'file', 'data': {'path': '/x'}}}
    row.update(values)
    return records.attachment_from_row(
        {**dict.fromkeys(records.ATTACHMENT_FIELDS), 'generation': 1,
         'deleted': False, **row})


class TestAttachmentViews(base.APITestCase):

    def _req(self, version):
        req = webob.Request.blank('/v3/%s/attachments?limit=1'
                                  % base.PROJECT)
        req.api_version = mv.APIVersionRequest(version)
        req.context = self.context
        req.context.project_id = base.PROJECT
        return req

    def test_summary(self):
        self.assertEqual({'id': 'a1', 'status': 'attached',
                          'instance': 'i1', 'volume_id': 'v1'},
                         views.summary(_attachment()))

    def test_detail(self):
        self.assertEqual(
            {'id': 'a1', 'status': 'attached', 'instance': 'i1',
             'volume_id': 'v1',
             'attached_at': '2026-11-21T10:00:00.000005',
             'detached_at': '', 'attach_mode': 'ro',
             'connection_info': {'driver_volume_type': 'file',
                                 'path': '/x', 'access_mode': 'ro',
                                 'attachment_id': 'a1'}},
            views.detail(_attachment()))
        self.assertIsNone(views.detail(_attachment(
            connection_info=None))['connection_info'])
        self.assertEqual('', views.detail(_attachment(
            attach_time=None))['attached_at'])

    def test_flat_connection_info(self):
        # Cinder's volume manager (attachment_update) drops the nested
        # "data": its keys sit beside driver_volume_type, with the
        # attachment's id; the mode is the attachment's (Cinder says "rw"
        # for an "ro" attachment of a volume that is not read-only).
        nested = {'driver_volume_type': 'iscsi',
                  'data': {'target_iqn': 'iqn.x', 'target_portal': 'p:3260',
                           'target_lun': 1, 'access_mode': 'rw',
                           'qos_specs': None, 'encrypted': False},
                  'attachment_id': 'stale'}
        info = views.flat_connection_info(_attachment(
            connection_info=nested))
        self.assertEqual(
            {'driver_volume_type': 'iscsi', 'target_iqn': 'iqn.x',
             'target_portal': 'p:3260', 'target_lun': 1,
             'access_mode': 'ro', 'qos_specs': None, 'encrypted': False,
             'attachment_id': 'a1'}, info)
        self.assertIsNone(views.flat_connection_info(
            _attachment(connection_info=None)))

    def test_lists_have_no_links(self):
        items = [_attachment()]
        for func in (views.summary_list, views.detail_list):
            body = func(self._req(mv.MAX_VERSION), items, 1)
            self.assertEqual(['attachments'], list(body))

    def test_remaining(self):
        self.assertEqual({'attachments': []}, views.remaining([]))
        self.assertEqual(
            {'attachments': [views.summary(_attachment())]},
            views.remaining([_attachment()]))
