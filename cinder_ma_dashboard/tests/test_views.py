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


"""The confirmations of the Attachments tab's actions: what they state,
what they ask cinder_ma, where they return, and cinder_ma's refusals."""

from unittest import mock
import urllib.parse

from cinderclient import exceptions as cinder_exceptions
from django.urls import reverse

from openstack_dashboard.test import helpers

from cinder_ma_dashboard.api import cinder_ma
from cinder_ma_dashboard.content.attachments import tabs
from cinder_ma_dashboard.dashboards.project.cinder_ma import forms
from cinder_ma_dashboard.tests import base

NEXT = '/project/volumes/%s/' % base.VOLUME


def url(name, object_id, next_url=NEXT):
    return '%s?%s' % (reverse('horizon:project:cinder_ma:' + name,
                              args=[object_id]),
                      urllib.parse.urlencode({'next': next_url}))


class ReadonlyViewTests(base.TestCase):

    def test_get_states_what_happens(self):
        res = self.client.get(url('set_readonly', base.VOLUME))
        self.assertTemplateUsed(res, 'cinder_ma_dashboard/form.html')
        self.assertContains(res, 'becomes read-only')
        self.assertContains(res, 'only while the volume is available')
        res = self.client.get(url('clear_readonly', base.VOLUME))
        self.assertContains(res, 'is no longer read-only')

    @helpers.create_mocks({cinder_ma: ['update_readonly_flag']})
    def test_post_sets_and_clears(self):
        for name, flag in (('set_readonly', True),
                           ('clear_readonly', False)):
            res = self.client.post(url(name, base.VOLUME), {
                'volume_id': base.VOLUME, 'readonly': flag})
            self.assertNoFormErrors(res)
            self.assertRedirectsNoFollow(res, NEXT)
            self.mock_update_readonly_flag.assert_called_with(
                helpers.IsHttpRequest(), base.VOLUME, flag)

    @helpers.create_mocks({cinder_ma: ['update_readonly_flag']})
    def test_refusal_shows_the_reason(self):
        self.mock_update_readonly_flag.side_effect = \
            cinder_exceptions.BadRequest(
                400, 'Volume can be made read-only only while it is '
                     'available')
        res = self.client.post(url('set_readonly', base.VOLUME), {
            'volume_id': base.VOLUME, 'readonly': True})
        self.assertMessageCount(error=1)
        messages = [str(m) for m in res.wsgi_request._messages]
        self.assertIn('only while it is available', messages[0])

    def test_next_elsewhere_is_ignored(self):
        with mock.patch.object(cinder_ma, 'update_readonly_flag'):
            res = self.client.post(
                url('set_readonly', base.VOLUME, 'https://example.com/'),
                {'volume_id': base.VOLUME, 'readonly': True})
        self.assertRedirectsNoFollow(res, reverse(
            'horizon:project:volumes:index'))


class AttachmentViewTests(base.AdminTestCase):

    def mock_objects(self, writer_fenced=False):
        volume = base.loaded_volume(writer_fenced=writer_fenced)
        info = base.attachment_info(base.STANDBY, base.SERVER_B, 'ro')
        patchers = [mock.patch.object(cinder_ma, 'attachment_get',
                                      return_value=info),
                    mock.patch.object(tabs, 'load_volume',
                                      return_value=volume)]
        for patcher in patchers:
            patcher.start()
            self.addCleanup(patcher.stop)
        return volume

    def test_promote_states_what_happens_to_the_writer(self):
        self.mock_objects()
        res = self.client.get(url('promote', base.STANDBY))
        content = ' '.join(res.content.decode().split())
        self.assertIn('becomes the writer of one-writer volume '
                      'cluster-disk, at generation 2', content)
        self.assertIn('The current writer, attachment %s (instance node-a '
                      'on host compute-a), is fenced and made read-only '
                      'first' % base.WRITER, content)

    def test_promote_over_a_fenced_writer(self):
        self.mock_objects(writer_fenced=True)
        res = self.client.get(url('promote', base.STANDBY))
        content = ' '.join(res.content.decode().split())
        self.assertIn('The current writer, attachment %s (instance node-a '
                      'on host compute-a), is fenced already: its access '
                      'stays revoked, and it is made read-only' %
                      base.WRITER, content)
        self.assertNotIn('fenced and made read-only first', content)

    def test_fence_states_the_writer_slot(self):
        self.mock_objects()
        res = self.client.get(url('fence', base.WRITER))
        content = ' '.join(res.content.decode().split())
        self.assertIn('is cut off at the storage target at once', content)
        self.assertIn('It is the writer of this one-writer volume',
                      content)

    @helpers.create_mocks({cinder_ma: ['promote', 'fence']})
    def test_post_acts(self):
        self.mock_promote.return_value = {'id': base.STANDBY,
                                          cinder_ma.GENERATION: 2}
        self.mock_fence.return_value = {'id': base.WRITER,
                                        cinder_ma.GENERATION: 1}
        for name, attachment, mocked in (
                ('promote', base.STANDBY, self.mock_promote),
                ('fence', base.WRITER, self.mock_fence)):
            res = self.client.post(url(name, attachment),
                                   {'attachment_id': attachment})
            self.assertNoFormErrors(res)
            self.assertRedirectsNoFollow(res, NEXT)
            mocked.assert_called_once_with(helpers.IsHttpRequest(),
                                           attachment)

    @helpers.create_mocks({cinder_ma: ['promote']})
    def test_refused_promotion(self):
        self.mock_promote.side_effect = cinder_exceptions.ClientException(
            409, 'the connection of attachment x is not its own')
        res = self.client.post(url('promote', base.STANDBY),
                               {'attachment_id': base.STANDBY})
        messages = [str(m) for m in res.wsgi_request._messages]
        self.assertEqual(1, len(messages))
        self.assertIn('Unable to promote the attachment: the connection '
                      'of attachment x is not its own', messages[0])


class FormTests(base.TestCase):

    def test_readonly_form_fields(self):
        form = forms.ReadonlyForm(self.request, data={
            'volume_id': base.VOLUME, 'readonly': 'False'})
        self.assertTrue(form.is_valid())
        self.assertFalse(form.cleaned_data['readonly'])
