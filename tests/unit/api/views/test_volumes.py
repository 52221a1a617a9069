"""Tests of the volume views: microversion and admin gating."""

import webob

from cinder_ma.api import microversions as mv
from cinder_ma.api.views import volumes as views
from cinder_ma.db import api as db_api
from tests.unit.api import base


class TestVolumeViews(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.volume = self.create_volume(name='v', bootable=True,
                                         shared_targets=True,
                                         service_uuid='svc-uuid')

    def _req(self, version, admin=False):
        req = webob.Request.blank('/v3/%s/volumes' % base.PROJECT)
        req.api_version = mv.APIVersionRequest(version)
        req.context = self.admin_context if admin else self.context
        req.context.project_id = base.PROJECT
        return req

    def test_gates(self):
        cases = (
            ('3.0', False, set()),
            ('3.0', True, {'migration_status', 'os-vol-host-attr:host',
                           'os-vol-mig-status-attr:migstat',
                           'os-vol-mig-status-attr:name_id'}),
            (mv.GROUP_VOLUME, False, {'group_id'}),
            (mv.VOLUME_DETAIL_PROVIDER_ID, False, {'group_id'}),
            (mv.VOLUME_SHARED_TARGETS_AND_SERVICE_FIELDS, False,
             {'group_id', 'shared_targets', 'service_uuid'}),
        )
        plain = set(views.detail(self._req('3.0'), self.volume))
        for version, admin, extra in cases:
            view = views.detail(self._req(version, admin), self.volume)
            self.assertEqual(plain | extra, set(view), (version, admin))
        view = views.detail(self._req(mv.VOLUME_DETAIL_PROVIDER_ID, True),
                            self.volume)
        self.assertIn('provider_id', view)

    def test_attachment_entries(self):
        self.add_attachment(self.volume, id='a1', instance_uuid='srv',
                            attached_host='h1', mountpoint='/dev/vdb',
                            attach_mode='ro')
        self.add_attachment(self.volume, attach_status='reserved')
        volume = db_api.volume_get(self.admin_context, self.volume.id)
        keys = {'id', 'attachment_id', 'volume_id', 'server_id',
                'host_name', 'device', 'attached_at'}
        (entry,) = views.detail(self._req(mv.prior(
            mv.ATTACH_THROUGH_MANAGER)), volume)['attachments']
        self.assertEqual(keys, set(entry))
        (entry,) = views.detail(self._req(mv.ATTACH_THROUGH_MANAGER),
                                volume)['attachments']
        self.assertEqual(keys | {'attach_mode'}, set(entry))
        self.assertEqual('ro', entry['attach_mode'])
        self.assertIsNone(entry['host_name'])
        (entry,) = views.detail(self._req(mv.ATTACH_THROUGH_MANAGER, True),
                                volume)['attachments']
        self.assertEqual('h1', entry['host_name'])

    def test_values(self):
        view = views.detail(self._req(mv.MAX_VERSION), self.volume)
        self.assertEqual('true', view['bootable'])
        self.assertTrue(view['shared_targets'])
        self.assertEqual('svc-uuid', view['service_uuid'])
        self.assertIsNone(view['group_id'])
        self.assertNotIn('error_reason', view)

    def test_list_links_and_count(self):
        req = self._req('3.45')
        body = views.summary_list(req, [self.volume], limit=1, count=9)
        self.assertEqual(9, body['count'])
        self.assertEqual('next', body['volumes_links'][0]['rel'])
        body = views.summary_list(req, [self.volume], limit=2)
        self.assertEqual(['volumes'], list(body))
