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


"""Admin > Volume > Shared Volumes and its Create Shareable Volume Type
form."""

from unittest import mock

from django.urls import reverse

from openstack_dashboard import api
from openstack_dashboard.test import helpers

from cinder_ma_dashboard.api import cinder_ma
from cinder_ma_dashboard.dashboards.admin.shared_volumes import forms
from cinder_ma_dashboard.dashboards.admin.shared_volumes import tables
from cinder_ma_dashboard.dashboards.admin.shared_volumes import views
from cinder_ma_dashboard.tests import base

INDEX = reverse('horizon:admin:shared_volumes:index')
OTHER = 'a1b2c3d4-0000-4000-8000-000000000002'
PLAIN = 'a1b2c3d4-0000-4000-8000-000000000003'
GONE = 'a1b2c3d4-0000-4000-8000-000000000004'
AUDIT = {'id': 'r1', 'created_at': '2026-11-27T11:00:00.000000',
         'host': 'controller1', 'hosts_audited': 2, 'findings_count': 1,
         'findings': [{'kind': 'connection', 'id': base.VOLUME,
                       'host': 'compute-c',
                       'problem': 'connected on storage1@nbd but no live '
                                  'attachment uses it'}]}


class SharedVolumesTests(base.AdminTestCase):

    def volumes(self):
        fenced = base.volume_info()
        other = base.volume_info(volume_id=OTHER, project='p2',
                                 name='other', writers='many')
        other['os-vol-host-attr:host'] = 'storage2@file#file'
        plain = dict(base.volume_info(volume_id=PLAIN, name='plain',
                                      writers=None), multiattach=False,
                     attachments=[])
        return [cinder_ma.Volume(v) for v in (fenced, other, plain)]

    def attachments(self):
        return base.pair(writer_fenced=True) + [
            base.attachment_info('x1', base.SERVER_A, 'rw',
                                 volume_id=OTHER)]

    def events(self):
        """Fencing events: of the fenced volume, of a volume that is not
        shared (the plain one), of a volume deleted since."""
        return [cinder_ma.Message(base.message_info(
                    'm3', created_at='2026-11-27T10:30:00.000000')),
                cinder_ma.Message(base.message_info('m2', PLAIN)),
                cinder_ma.Message(base.message_info('m1', GONE))]

    @helpers.create_mocks({cinder_ma: ['volume_list', 'attachment_list',
                                       'fencing_events', 'last_audit'],
                           api.keystone: ['tenant_list'],
                           views.tabs: ['instance_names']})
    def get(self, data=None, events_error=False, audit=AUDIT):
        if isinstance(audit, Exception):
            self.mock_last_audit.side_effect = audit
        else:
            self.mock_last_audit.return_value = audit and cinder_ma.Audit(
                audit)
        if events_error:
            self.mock_fencing_events.side_effect = self.exceptions.cinder
        else:
            self.mock_fencing_events.return_value = self.events()
        self.mock_volume_list.return_value = self.volumes()
        self.mock_attachment_list.return_value = self.attachments()
        self.mock_tenant_list.return_value = (
            [mock.Mock(id='p1', name='alpha'),
             mock.Mock(id='p2', name='beta')], False)
        for project in self.mock_tenant_list.return_value[0]:
            project.name = {'p1': 'alpha', 'p2': 'beta'}[project.id]
        self.mock_instance_names.return_value = {base.SERVER_A: 'node-a'}
        if data:
            # A new server-side filter is kept in the session, then the
            # table's first page shown.
            self.assertRedirectsNoFollow(self.client.post(INDEX, data),
                                         INDEX)
        res = self.client.get(INDEX)
        self.mock_volume_list.assert_called_once_with(
            helpers.IsHttpRequest(), all_projects=True)
        self.mock_attachment_list.assert_called_once_with(
            helpers.IsHttpRequest(), all_projects=True)
        self.mock_fencing_events.assert_called_once_with(
            helpers.IsHttpRequest())
        return res

    def test_index_lists_shared_volumes_and_fenced(self):
        res = self.get()
        self.assertTemplateUsed(
            res, 'cinder_ma_dashboard/shared_volumes/index.html')
        shared = res.context['table'].data
        self.assertEqual([base.VOLUME, OTHER], [v.id for v in shared])
        self.assertEqual(['alpha', 'beta'],
                         [v.project_name for v in shared])
        self.assertEqual([base.WRITER],
                         [a.id for a in res.context['fenced_table'].data])
        content = res.content.decode()
        self.assertIn('cinder-ma-manage attachment audit', content)
        self.mock_last_audit.assert_called_once_with(
            helpers.IsHttpRequest())
        for shown in ('2026-11-27T11:00:00.000000', 'controller1',
                      'compute-c', 'connected on storage1@nbd but no live '
                      'attachment uses it'):
            self.assertIn(shown, content)
        self.assertIn('node-a (%s): rw, Writer (fenced), fenced at '
                      'generation 1 [compute-a]' % base.SERVER_A, content)

    def test_filter_by_project_and_host(self):
        for field, value, wanted in (
                ('project', 'beta', [OTHER]), ('project', 'p1',
                                               [base.VOLUME]),
                ('host', 'compute-b', [base.VOLUME]),
                ('host', 'storage2', [OTHER]),
                ('host', 'storage2@file', [OTHER]),
                ('host', 'nowhere', [])):
            res = self.get({'shared_volumes__filter__q_field': field,
                            'shared_volumes__filter__q': value})
            self.assertEqual(wanted, [v.id for v in
                                      res.context['table'].data],
                             (field, value))

    def test_fencing_events(self):
        res = self.get()
        events = res.context['events_table'].data
        self.assertEqual(['m3', 'm2', 'm1'], [e.id for e in events])
        self.assertEqual([base.VOLUME, PLAIN, None],
                         [e.volume and e.volume.id for e in events])
        content = res.content.decode()
        self.assertIn('Recent Fencing Events', content)
        self.assertIn('2026-11-27T10:30:00.000000', content)
        self.assertIn('fence attachment:The attachment&#x27;s access',
                      content)
        self.assertIn('req-m3', content)
        table = res.context['events_table']
        self.assertEqual('alpha', tables.event_project_cell(events[0]))
        self.assertIn('cluster-disk', tables.event_volume_cell(events[0]))
        self.assertEqual(('-', GONE), (tables.event_project_cell(events[2]),
                                       tables.event_volume_cell(events[2])))
        self.assertEqual('m3', table.get_object_id(events[0]))

    def test_fencing_events_filtered(self):
        for field, value, wanted in (
                ('project', 'alpha', ['m3', 'm2']),
                ('project', 'beta', []),
                ('host', 'compute-a', ['m3']),
                ('host', 'nowhere', [])):
            res = self.get({'shared_volumes__filter__q_field': field,
                            'shared_volumes__filter__q': value})
            self.assertEqual(wanted, [e.id for e in
                                      res.context['events_table'].data],
                             (field, value))

    def test_fencing_events_error(self):
        res = self.get(events_error=True)
        # The volumes show; the events' failure is a message.
        self.assertEqual([base.VOLUME, OTHER],
                         [v.id for v in res.context['table'].data])
        self.assertEqual([], res.context['events_table'].data)
        self.assertMessageCount(res, error=1)

    def test_audit_clean_never_run_unreadable(self):
        res = self.get(audit=dict(AUDIT, findings_count=0, findings=[]))
        self.assertContains(res, 'Every attachment checked out.')
        self.assertNotContains(res, 'cinder_ma_audit_findings')
        res = self.get(audit=None)
        self.assertContains(res, 'The audit has not been run yet.')
        res = self.get(audit=self.exceptions.cinder)
        self.assertNotContains(res, 'The audit has not been run yet.')
        self.assertMessageCount(res, error=1)
        # The rest of the page shows.
        self.assertEqual(2, len(res.context['table'].data))

    def test_cells(self):
        volume = cinder_ma.attachments_of(
            self.volumes()[0], base.pair(), {base.SERVER_A: 'node-a'})
        self.assertEqual('node-a', tables.writer_cell(volume))
        self.assertEqual('one', tables.writers_cell(volume))
        self.assertEqual('No', tables.readonly_cell(volume))
        self.assertEqual('-', tables.attachments_cell(
            cinder_ma.Volume(base.volume_info())))

    def test_matches(self):
        volume = self.volumes()[0]
        volume.project_name = 'alpha'
        self.assertTrue(views.matches(volume, 'host', 'storage1'))
        self.assertTrue(views.matches(volume, 'host', ''))
        self.assertFalse(views.matches(volume, 'project', 'beta'))


class CreateTypeTests(base.AdminTestCase):
    url = reverse('horizon:admin:shared_volumes:create_type')

    def test_get(self):
        res = self.client.get(self.url)
        self.assertTemplateUsed(res, 'cinder_ma_dashboard/form.html')
        self.assertContains(res, 'multiattach:max_attachments')

    @helpers.create_mocks({cinder_ma: ['shareable_type_create']})
    def test_create(self):
        self.mock_shareable_type_create.return_value = {'id': 't'}
        res = self.client.post(self.url, {
            'name': 'cluster', 'description': '', 'writers': 'one',
            'max_attachments': '4', 'is_public': 'on'})
        self.assertNoFormErrors(res)
        self.assertRedirectsNoFollow(res, INDEX)
        self.mock_shareable_type_create.assert_called_once_with(
            helpers.IsHttpRequest(), 'cluster', description='',
            writers='one', max_attachments=4, is_public=True)

    def test_form_validation(self):
        form = forms.CreateShareableType(self.request, data={
            'name': '  ', 'writers': 'some', 'max_attachments': '0'})
        self.assertFalse(form.is_valid())
        self.assertEqual({'name', 'writers', 'max_attachments'},
                         set(form.errors))
