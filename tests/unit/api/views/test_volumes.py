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

"""Tests of the volume views: microversion and admin gating."""


import webob

from cinder_ma.api import microversions as mv
from cinder_ma.api.views import volumes as views
from cinder_ma.db import volumes as volume_db
from cinder_ma.volume import api as volume_api
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

    def _view(self, view, req, volume):
        """``view`` of ``volume``, told what the controller tells it."""
        return view(req, volume, volume_api.is_admin(req.context))

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
            (mv.VOLUME_CLUSTER_NAME, False,
             {'group_id', 'shared_targets', 'service_uuid'}),
            (mv.VOLUME_CLUSTER_NAME, True,
             {'group_id', 'shared_targets', 'service_uuid', 'provider_id',
              'cluster_name', 'migration_status', 'os-vol-host-attr:host',
              'os-vol-mig-status-attr:migstat',
              'os-vol-mig-status-attr:name_id'}),
            (mv.VOLUME_TYPE_ID_IN_VOLUME_DETAIL, False,
             {'group_id', 'shared_targets', 'service_uuid',
              'volume_type_id'}),
            (mv.USE_QUOTA, False,
             {'group_id', 'shared_targets', 'service_uuid',
              'volume_type_id', 'consumes_quota'}),
            (mv.MAX_VERSION, False,
             {'group_id', 'shared_targets', 'service_uuid',
              'volume_type_id', 'consumes_quota'}),
        )
        plain = set(self._view(views.detail, self._req('3.0'), self.volume))
        for version, admin, extra in cases:
            view = self._view(views.detail, self._req(version, admin),
                              self.volume)
            self.assertEqual(plain | extra, set(view), (version, admin))
        view = self._view(views.detail,
                          self._req(mv.VOLUME_DETAIL_PROVIDER_ID, True),
                          self.volume)
        self.assertIn('provider_id', view)

    def test_attachment_entries(self):
        self.add_attachment(self.volume, id='a1', instance_uuid='srv',
                            attached_host='h1', mountpoint='/dev/vdb',
                            attach_mode='ro')
        self.add_attachment(self.volume, attach_status='reserved')
        volume = volume_db.volume_get(self.admin_context, self.volume.id)
        keys = {'id', 'attachment_id', 'volume_id', 'server_id',
                'host_name', 'device', 'attached_at'}
        (entry,) = self._view(views.detail, self._req(mv.MAX_VERSION),
                                volume)['attachments']
        self.assertEqual(keys, set(entry))
        self.assertIsNone(entry['host_name'])
        req = self._req(mv.MAX_VERSION)
        req.headers['Cinder-MA-Extensions'] = 'cinder-ma-multiattach'
        (entry,) = self._view(views.detail, req, volume)['attachments']
        self.assertEqual(keys | {'cinder-ma-multiattach:attach_mode'},
                         set(entry))
        self.assertEqual('ro', entry['cinder-ma-multiattach:attach_mode'])
        (entry,) = self._view(views.detail, self._req(mv.MAX_VERSION, True),
                                volume)['attachments']
        self.assertEqual('h1', entry['host_name'])

    def test_create_and_update_without_extension_attributes(self):
        for admin in (False, True):
            shown = self._view(views.show, self._req(mv.MAX_VERSION, admin),
                               self.volume)['volume']
            plain = self._view(views.plain, self._req(mv.MAX_VERSION, admin),
                               self.volume)['volume']
            self.assertIn('os-vol-tenant-attr:tenant_id', shown)
            self.assertEqual({k for k in shown if k.startswith('os-vol-')},
                             set(shown) - set(plain))

    def test_volume_type_from_3_63(self):
        untyped = self.create_volume(name='u')
        old = self._view(views.detail, self._req(mv.prior(
            mv.VOLUME_TYPE_ID_IN_VOLUME_DETAIL)), self.volume)
        new = self._view(views.detail,
                         self._req(mv.VOLUME_TYPE_ID_IN_VOLUME_DETAIL),
                         self.volume)
        self.assertEqual(old['volume_type'], new['volume_type'])
        self.assertEqual(self.volume.volume_type_id, new['volume_type_id'])
        del untyped

    def test_shared_targets_tristate(self):
        unknown = self.volume.replace(shared_targets=None)
        below = self._view(views.detail, self._req(
            mv.prior(mv.SHARED_TARGETS_TRISTATE)), unknown)
        self.assertIs(True, below['shared_targets'])
        above = self._view(views.detail,
                           self._req(mv.SHARED_TARGETS_TRISTATE), unknown)
        self.assertIsNone(above['shared_targets'])

    def test_values(self):
        view = self._view(views.detail, self._req(mv.MAX_VERSION), self.volume)
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

    def test_readonly_flag_in_metadata(self):
        """As Cinder shows its visible administration metadata: the
        read-only flag joins the volume's own metadata while set."""
        req = self._req(mv.MAX_VERSION)
        plain = self._view(views.detail, req, self.volume)
        self.assertNotIn('readonly', plain['metadata'])
        readonly = self.volume.replace(readonly=True,
                                       volume_metadata={'k': 'v'})
        view = self._view(views.detail, req, readonly)
        self.assertEqual({'k': 'v', 'readonly': 'True'}, view['metadata'])
