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

"""Tests of cinder_ma.api.views.messages: Cinder's shape."""

import datetime

from unittest import mock

from cinder_ma.api.views import messages as views
from cinder_ma.db import records
from tests import base

WHEN = datetime.datetime(2026, 11, 27, 12, 0, 0)


def _message(**changes):
    values = dict(id='m1', project_id='p', request_id='req-1',
                  resource_type='VOLUME', resource_uuid='v1',
                  event_id='VOLUME_VOLUME_001_003', action_id='001',
                  detail_id='003', message_level='ERROR', created_at=WHEN,
                  expires_at=WHEN + datetime.timedelta(days=30))
    values.update(changes)
    return records.Message(**values)


class MessageViewTestCase(base.BaseTestCase):

    def setUp(self):
        super().setUp()
        self.req = mock.Mock(application_url='http://api:8776',
                             GET={}, context=mock.Mock(project_id='p'))

    def test_show(self):
        view = views.show(self.req, _message())['message']
        self.assertEqual({
            'id': 'm1', 'event_id': 'VOLUME_VOLUME_001_003',
            'user_message': 'schedule allocate volume:Could not find any '
                            'available weighted backend.',
            'message_level': 'ERROR',
            'created_at': '2026-11-27T12:00:00.000000',
            'guaranteed_until': '2026-12-27T12:00:00.000000',
            'request_id': 'req-1', 'resource_type': 'VOLUME',
            'resource_uuid': 'v1'}, {k: v for k, v in view.items()
                                     if k != 'links'})
        self.assertEqual(['self', 'bookmark'],
                         [link['rel'] for link in view['links']])

    def test_without_resource(self):
        view = views.show(self.req, _message(resource_type=None,
                                             resource_uuid=None))['message']
        self.assertNotIn('resource_type', view)
        self.assertNotIn('resource_uuid', view)

    def test_index_links_the_next_page_when_full(self):
        body = views.index(self.req, [_message()], limit=1)
        self.assertEqual('next', body['messages_links'][0]['rel'])
        self.assertNotIn('messages_links',
                         views.index(self.req, [_message()], limit=2))
        self.assertEqual(['messages'], list(views.index(self.req, [])))
