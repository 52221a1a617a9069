"""Tests of the attachment views: Cinder's shapes, our 3.55 links."""

import datetime

from oslo_serialization import jsonutils
import webob

from cinder_ma.api import microversions as mv
from cinder_ma.api.views import attachments as views
from cinder_ma.db import models
from tests.unit.api import base


def _attachment(**values):
    row = {'id': 'a1', 'volume_id': 'v1', 'instance_uuid': 'i1',
           'attach_status': 'attached', 'attach_mode': 'ro',
           'attach_time': datetime.datetime(2026, 11, 21, 10, 0, 0, 5),
           'detach_time': None,
           'connection_info': jsonutils.dumps(
               {'driver_volume_type': 'file', 'data': {'path': '/x'}})}
    row.update(values)
    return models.VolumeAttachment(**row)


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
                                 'data': {'path': '/x'}}},
            views.detail(_attachment()))
        self.assertIsNone(views.detail(_attachment(
            connection_info=None))['connection_info'])
        self.assertEqual('', views.detail(_attachment(
            attach_time=None))['attached_at'])

    def test_links_only_from_3_55(self):
        items = [_attachment()]
        body = views.summary_list(self._req(mv.MAX_VERSION), items, 1)
        self.assertEqual('next', body['attachments_links'][0]['rel'])
        self.assertIn('marker=a1', body['attachments_links'][0]['href'])
        body = views.summary_list(
            self._req(mv.prior(mv.ATTACH_THROUGH_MANAGER)), items, 1)
        self.assertEqual(['attachments'], list(body))
        # A page that is not full has no next page.
        body = views.detail_list(self._req(mv.MAX_VERSION), items, 2)
        self.assertEqual(['attachments'], list(body))

    def test_remaining(self):
        self.assertEqual({'attachments': []}, views.remaining([]))
        self.assertEqual(
            {'attachments': [views.summary(_attachment())]},
            views.remaining([_attachment()]))
