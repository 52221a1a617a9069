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


"""cinder_ma_dashboard.api.cinder_ma: the calls it makes (paths,
microversion, the extensions header, bodies) and what it reads out."""

from unittest import mock

from cinder_ma_dashboard.api import cinder_ma
from cinder_ma_dashboard.tests import base


class APITests(base.TestCase):

    def setUp(self):
        super().setUp()
        self.http = mock.Mock()
        patcher = mock.patch.object(cinder_ma, '_http',
                                    return_value=self.http)
        self.mock_http = patcher.start()
        self.addCleanup(patcher.stop)
        self.request = self.mock_rest_request()

    def test_volume_get_reads_extensions(self):
        self.http.get.return_value = (None, {'volume': base.volume_info(
            readonly=True)})
        volume = cinder_ma.volume_get(self.request, base.VOLUME)
        self.http.get.assert_called_once_with(
            '/volumes/%s' % base.VOLUME, headers={
                'Cinder-MA-Extensions': 'cinder-ma-multiattach,'
                                        'cinder-ma-writers,'
                                        'cinder-ma-fencing'})
        self.assertTrue(volume.readonly)
        self.assertTrue(volume.multiattach)
        self.assertEqual('one', volume.writers)
        self.assertEqual('p1', volume.project_id)
        self.assertEqual({base.WRITER: 'compute-a',
                          base.STANDBY: 'compute-b'},
                         volume.attachment_hosts)

    def test_lists_all_projects(self):
        self.http.get.return_value = (None, {'attachments': []})
        cinder_ma.attachment_list(self.request, volume_id=base.VOLUME,
                                  all_projects=True)
        self.assertEqual('/attachments/detail?all_tenants=1&volume_id=%s' %
                         base.VOLUME, self.http.get.call_args[0][0])
        self.http.get.return_value = (None, {'volumes': [
            base.volume_info()]})
        volumes = cinder_ma.volume_list(self.request)
        self.assertEqual('/volumes/detail', self.http.get.call_args[0][0])
        self.assertEqual([base.VOLUME], [v.id for v in volumes])

    def test_fencing_events(self):
        self.http.get.return_value = (None, {'messages': [
            base.message_info('m1')]})
        events = cinder_ma.fencing_events(self.request)
        # No all_tenants: the messages API shows an administrator every
        # project's messages and refuses unknown filters.
        self.assertEqual('/messages?event_id=VOLUME_VOLUME_901_901&'
                         'limit=50&sort=created_at%3Adesc',
                         self.http.get.call_args[0][0])
        self.assertEqual([('m1', base.VOLUME, 'WARNING', None)],
                         [(e.id, e.resource_uuid, e.message_level,
                           e.volume) for e in events])
        self.assertEqual('m1', events[0].to_dict()['id'])

    def test_last_audit(self):
        self.http.get.return_value = (None, {'audits': [{
            'id': 'r1', 'created_at': '2026-11-27T11:00:00.000000',
            'host': 'ctl', 'hosts_audited': 2, 'findings_count': 1,
            'findings': [{'kind': 'disk', 'id': 'a', 'host': 'h',
                          'problem': 'p'}]}]})
        audit = cinder_ma.last_audit(self.request)
        self.assertEqual('/cinder-ma-audits?limit=1',
                         self.http.get.call_args[0][0])
        self.assertEqual(('r1', 'ctl', 2, 1, 'disk'),
                         (audit.id, audit.host, audit.hosts_audited,
                          audit.findings_count, audit.findings[0]['kind']))
        self.assertEqual('r1', audit.to_dict()['id'])
        self.http.get.return_value = (None, {'audits': []})
        self.assertIsNone(cinder_ma.last_audit(self.request))

    def test_attachments_of(self):
        volume = base.loaded_volume()
        writer, standby = volume.attachments
        self.assertEqual((base.WRITER, 'compute-a', 'node-a', 'rw'),
                         (writer.id, writer.host, writer.instance_name,
                          writer.attach_mode))
        self.assertTrue(writer.is_writer)
        self.assertFalse(writer.is_standby)
        self.assertTrue(standby.is_standby)
        self.assertIs(writer, volume.writer)
        self.assertEqual([], volume.fenced)
        # A fenced writer keeps the slot; a many-writer volume has none.
        volume = base.loaded_volume(writer_fenced=True)
        self.assertEqual([base.WRITER], [a.id for a in volume.fenced])
        self.assertEqual(base.WRITER, volume.writer.id)
        self.assertIsNone(base.loaded_volume(writers='many').writer)

    def test_actions(self):
        self.http.post.return_value = (None, {'attachment': {
            'id': base.STANDBY}})
        cinder_ma.promote(self.request, base.STANDBY)
        self.assertEqual(('/attachments/%s/action' % base.STANDBY,),
                         self.http.post.call_args[0])
        self.assertEqual({'cinder-ma-fencing:promote': {}},
                         self.http.post.call_args[1]['body'])
        cinder_ma.fence(self.request, base.WRITER)
        self.assertEqual({'cinder-ma-fencing:fence': {}},
                         self.http.post.call_args[1]['body'])
        self.http.post.return_value = (None, None)
        cinder_ma.update_readonly_flag(self.request, base.VOLUME, False)
        self.assertEqual({'os-update_readonly_flag': {'readonly': False}},
                         self.http.post.call_args[1]['body'])

    def test_shareable_type_create(self):
        self.http.post.return_value = (None, {'volume_type': {'id': 't'}})
        cinder_ma.shareable_type_create(self.request, 'cluster', 'd',
                                        writers='one', max_attachments=4,
                                        is_public=False)
        self.assertEqual(('/types',), self.http.post.call_args[0])
        self.assertEqual({'volume_type': {
            'name': 'cluster', 'description': 'd',
            'os-volume-type-access:is_public': False,
            'extra_specs': {'multiattach': '<is> True',
                            'multiattach:writers': 'one',
                            'multiattach:max_attachments': '4'}}},
            self.http.post.call_args[1]['body'])
