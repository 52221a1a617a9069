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

"""Tests of the messages API (3.3), against the shape Tempest holds
Cinder's to (tempest/lib/api_schema/response/volume/messages.py)."""

import jsonschema

from cinder_ma.api import microversions as mv
from cinder_ma.db import messages as message_db
from cinder_ma import message_field as mf
from tests.unit.api import base

_LINKS = {'type': 'array', 'items': {
    'type': 'object',
    'properties': {'href': {'type': 'string'}, 'rel': {'type': 'string'}},
    'additionalProperties': False, 'required': ['href', 'rel']}}
_MESSAGE = {
    'type': 'object',
    'properties': {
        'request_id': {'type': 'string'},
        'message_level': {'type': 'string'},
        'links': _LINKS,
        'resource_uuid': {'type': 'string', 'format': 'uuid'},
        'user_message': {'type': 'string'},
        'resource_type': {'type': 'string'},
        'event_id': {'type': 'string'},
        'created_at': {'type': 'string'},
        'guaranteed_until': {'type': 'string'},
        'id': {'type': 'string', 'format': 'uuid'},
    },
    'additionalProperties': False,
    'required': ['request_id', 'message_level', 'user_message',
                 'resource_type', 'links', 'event_id', 'created_at',
                 'guaranteed_until', 'id'],
}
SHOW = {'type': 'object', 'properties': {'message': _MESSAGE},
        'additionalProperties': False, 'required': ['message']}
LIST = {'type': 'object',
        'properties': {'messages': {'type': 'array', 'items': _MESSAGE},
                       'messages_links': _LINKS},
        'additionalProperties': False, 'required': ['messages']}


def _headers(version=mv.MESSAGES, **kwargs):
    kwargs.setdefault('roles', ['member', 'reader'])
    return base.headers(version=version, **kwargs)


class MessagesAPITestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.volume = self.create_volume()
        self.context.request_id = 'req-abc'
        self.messages = [
            message_db.record(self.context, base.PROJECT, action,
                              resource_uuid=self.volume.id)
            for action in (mf.Action.SCHEDULE_ALLOCATE_VOLUME,
                           mf.Action.EXTEND_VOLUME,
                           mf.Action.ATTACH_VOLUME)]
        message_db.record(self.context, base.OTHER_PROJECT,
                          mf.Action.EXTEND_VOLUME)

    def test_list_and_show_in_cinders_shape(self):
        body = self.app.get(self.url('messages'), headers=_headers()).json
        jsonschema.validate(body, LIST)
        self.assertEqual(3, len(body['messages']))
        shown = self.app.get(self.url('messages/%s' % self.messages[0].id),
                             headers=_headers()).json
        jsonschema.validate(shown, SHOW)
        self.assertEqual('VOLUME_VOLUME_001_001',
                         shown['message']['event_id'])
        self.assertEqual('req-abc', shown['message']['request_id'])

    def test_below_33_is_a_404(self):
        response = self.app.get(self.url('messages'), status=404,
                                headers=_headers(version='3.2'))
        self.assertFault(response, 404, 'itemNotFound',
                         'not supported on this method')

    def test_another_projects_message_is_not_found(self):
        other = message_db.message_get_all(self.admin_context,
                                           base.OTHER_PROJECT)[0]
        response = self.app.get(self.url('messages/%s' % other.id),
                                headers=_headers(), status=404)
        self.assertFault(response, 404, 'itemNotFound',
                         'Message %s could not be found.' % other.id)

    def test_delete_is_204(self):
        message = self.messages[1]
        self.app.delete(self.url('messages/%s' % message.id),
                        headers=_headers(), status=204)
        self.app.get(self.url('messages/%s' % message.id),
                     headers=_headers(), status=404)

    def test_paging_filters_and_sort_from_35(self):
        version = mv.MESSAGES_PAGINATION
        page = self.app.get(
            self.url('messages?limit=2&sort=event_id:asc'),
            headers=_headers(version)).json
        self.assertEqual(['VOLUME_VOLUME_001_001', 'VOLUME_VOLUME_002_001'],
                         [m['event_id'] for m in page['messages']])
        self.assertIn('marker=', page['messages_links'][0]['href'])
        filtered = self.app.get(
            self.url('messages?event_id=VOLUME_VOLUME_007_001'),
            headers=_headers(version)).json
        self.assertEqual(1, len(filtered['messages']))
        skipped = self.app.get(
            self.url('messages?offset=2&sort=event_id:asc'),
            headers=_headers(version)).json
        self.assertEqual(['VOLUME_VOLUME_007_001'],
                         [m['event_id'] for m in skipped['messages']])
        # Below 3.5 the query is not read.
        self.assertEqual(3, len(self.app.get(
            self.url('messages?limit=1'), headers=_headers()).json[
                'messages']))

    def test_bad_queries_are_400s(self):
        version = mv.MAX_VERSION
        for query in ('offset=-1', 'offset=x', 'limit=x', 'sort=nope',
                      'bogus=1'):
            self.app.get(self.url('messages?' + query),
                         headers=_headers(version), status=400)
        # Cinder looks the marker up as a message: 404.
        self.app.get(self.url('messages?marker=nope'),
                     headers=_headers(version), status=404)
        # Before RESOURCE_FILTER an unknown filter is ignored.
        self.app.get(self.url('messages?bogus=1'),
                     headers=_headers(mv.MESSAGES_PAGINATION))
