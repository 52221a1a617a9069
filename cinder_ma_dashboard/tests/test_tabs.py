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


"""The Attachments tab in Horizon's volume detail pages, and the actions
its table offers by policy and state."""

from unittest import mock

from django.test.utils import override_settings
from django.urls import reverse

from openstack_dashboard import api
from openstack_dashboard.api import cinder
from openstack_dashboard.test import helpers

from cinder_ma_dashboard.api import cinder_ma
from cinder_ma_dashboard.content.attachments import tables
from cinder_ma_dashboard.content.attachments import tabs
from cinder_ma_dashboard.tests import base

POLICY = 'openstack_auth.policy.check'


class DetailPageMixin:
    detail_url = 'horizon:project:volumes:detail'

    @helpers.create_mocks({
        api.nova: ['server_get'],
        cinder: ['volume_snapshot_list', 'volume_get',
                 'tenant_absolute_limits'],
        tabs: ['load_volume'],
    })
    def detail(self, ma_volume):
        volume = self.cinder_volumes.first()
        volume.attachments = []
        self.mock_volume_get.return_value = volume
        self.mock_volume_snapshot_list.return_value = []
        self.mock_tenant_absolute_limits.return_value = \
            self.cinder_limits['absolute']
        self.mock_load_volume.return_value = ma_volume
        res = self.client.get(reverse(self.detail_url, args=[volume.id]))
        self.mock_load_volume.assert_called_once_with(
            helpers.IsHttpRequest(), volume.id)
        return res


class ProjectTabTests(DetailPageMixin, base.TestCase):

    def test_tab_shows_attachments(self):
        res = self.detail(base.loaded_volume())
        self.assertNoMessages()
        self.assertContains(res, 'Attachments')
        self.assertContains(res, 'id="cinder_ma_writer"')
        content = res.content.decode()
        for text in ('node-a (%s)' % base.SERVER_A, 'compute-b',
                     'Writer', 'Standby', 'One writer',
                     '2026-11-27 10:05:00'):
            self.assertIn(text, content)
        table = res.context['tab_group'].get_tab(
            'cinder_ma_attachments')._tables['cinder_ma_attachments']
        self.assertEqual([base.WRITER, base.STANDBY],
                         [a.id for a in table.data])

    @override_settings(POLICY_CHECK_FUNCTION=POLICY)
    def test_member_sees_no_admin_actions(self):
        res = self.detail(base.loaded_volume())
        content = res.content.decode()
        self.assertNotIn('__action_promote', content)
        self.assertNotIn('__action_fence', content)


class AdminTabTests(DetailPageMixin, base.AdminTestCase):
    detail_url = 'horizon:admin:volumes:detail'

    @override_settings(POLICY_CHECK_FUNCTION=POLICY)
    def test_admin_sees_actions(self):
        res = self.detail(base.loaded_volume())
        content = res.content.decode()
        # Promote on the standby, fence on both; no read-only flag while
        # the volume is in use.
        self.assertIn('cinder_ma_attachments__row_%s__action_promote' %
                      base.STANDBY, content)
        self.assertNotIn('cinder_ma_attachments__row_%s__action_promote' %
                         base.WRITER, content)
        for attachment in (base.WRITER, base.STANDBY):
            self.assertIn('cinder_ma_attachments__row_%s__action_fence' %
                          attachment, content)
        self.assertNotIn('action_set_readonly', content)


class LoadVolumeTests(base.TestCase):

    @helpers.create_mocks({cinder_ma: ['volume_get', 'attachment_list'],
                           api.nova: ['server_get'],
                           tabs: ['is_admin']})
    def test_load_volume(self):
        self.mock_volume_get.return_value = cinder_ma.Volume(
            base.volume_info())
        self.mock_attachment_list.return_value = base.pair()
        self.mock_is_admin.return_value = True
        self.mock_server_get.side_effect = [
            mock.Mock(name='a'), Exception('not Nova\'s')]
        volume = tabs.load_volume(self.request, base.VOLUME)
        self.mock_attachment_list.assert_called_once_with(
            helpers.IsHttpRequest(), volume_id=base.VOLUME,
            all_projects=True)
        self.assertEqual(2, len(volume.attachments))
        self.assertIsNone(volume.attachments[1].instance_name)


class TableTests(base.TestCase):

    def table(self, volume):
        table = tables.AttachmentsTable(self.request, data=volume.attachments)
        table.ma_volume = volume
        return table

    def allowed(self, table, action, datum=None):
        return table.base_actions[action].allowed(self.request, datum)

    def test_row_actions_follow_state(self):
        volume = base.loaded_volume()
        table = self.table(volume)
        writer, standby = volume.attachments
        self.assertTrue(self.allowed(table, 'promote', standby))
        self.assertFalse(self.allowed(table, 'promote', writer))
        self.assertTrue(self.allowed(table, 'fence', writer))
        volume = base.loaded_volume(writer_fenced=True)
        self.assertFalse(self.allowed(self.table(volume), 'fence',
                                      volume.attachments[0]))
        # A many-writer volume has no standby.
        volume = base.loaded_volume(writers='many')
        self.assertFalse(self.allowed(self.table(volume), 'promote',
                                      volume.attachments[1]))

    def test_readonly_actions_follow_flag_and_status(self):
        table = self.table(base.loaded_volume(status='available'))
        self.assertTrue(self.allowed(table, 'set_readonly'))
        self.assertFalse(self.allowed(table, 'clear_readonly'))
        table = self.table(base.loaded_volume(status='available',
                                              readonly=True))
        self.assertFalse(self.allowed(table, 'set_readonly'))
        self.assertTrue(self.allowed(table, 'clear_readonly'))
        table = self.table(base.loaded_volume(status='in-use'))
        self.assertFalse(self.allowed(table, 'set_readonly'))
        url = table.base_actions['set_readonly'].get_link_url()
        self.assertTrue(url.startswith(
            '/project/cinder_ma/volumes/%s/set_readonly/?next=' %
            base.VOLUME))

    def test_cells(self):
        writer, standby = base.loaded_volume().attachments
        self.assertEqual('Writer', tables.role(writer))
        self.assertEqual('Standby', tables.role(standby))
        # A writer demoted by a promotion: read-only and fenced.
        demoted = cinder_ma.Attachment(
            base.attachment_info(base.WRITER, base.SERVER_A, 'ro',
                                 fenced=True), writers='one')
        self.assertEqual('Standby (fenced)', tables.role(demoted))
        self.assertEqual('node-a (%s)' % base.SERVER_A,
                         tables.instance_label(writer))
        self.assertEqual('No', tables.fenced(writer))
