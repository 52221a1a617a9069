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

"""User message views: Cinder's ``cinder/api/v3/views/messages.py``.

A message shows ``id``, ``event_id``, ``user_message``,
``message_level``, ``created_at``, ``guaranteed_until`` (when it may be
purged), ``request_id`` and its ``links``; ``resource_type`` and
``resource_uuid`` when it has them. A full page of a list adds
``messages_links`` (the next page).
"""

from cinder_ma.api import views
from cinder_ma.api.views import links

COLLECTION = 'messages'


def _message(req, message):
    view = {
        'id': message.id,
        'event_id': message.event_id,
        'user_message': message.user_message,
        'message_level': message.message_level,
        'created_at': views.isotime(message.created_at),
        'guaranteed_until': views.isotime(message.expires_at),
        'request_id': message.request_id,
        'links': links.resource_links(req, COLLECTION, message.id),
    }
    if message.resource_type:
        view['resource_type'] = message.resource_type
    if message.resource_uuid:
        view['resource_uuid'] = message.resource_uuid
    return view


def show(req, message):
    return {'message': _message(req, message)}


def index(req, messages, limit=None):
    body = {'messages': [_message(req, message) for message in messages]}
    if limit is not None:
        next_links = links.next_links(req, messages, limit, COLLECTION)
        if next_links:
            body['messages_links'] = next_links
    return body
