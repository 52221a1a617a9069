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

"""User messages: who may read and delete them.

Messages are recorded where a failure is seen
(:func:`cinder_ma.db.messages.record`); here they are listed, shown and
deleted under Cinder's ``message:*`` policies, with the message's project
as the target. As in Cinder, administrators see every project's
messages; anyone else those of their project (another project's message
is not found).
"""

from oslo_log import log as logging

from cinder_ma.db import messages as message_db
from cinder_ma.policies import messages as message_policies
from cinder_ma import policy

LOG = logging.getLogger(__name__)

#: The filters of message lists (Cinder's, from 3.5).
FILTERS = message_db.FILTERS


def _scope(context):
    """The project whose messages the caller sees (None: all)."""
    if policy.check_persona(context, 'context_is_admin'):
        return None
    return context.project_id


def _target(message):
    return {'project_id': message.project_id}


def list_messages(context, filters=None, marker=None, limit=None,
                  offset=None, sort_keys=None, sort_dirs=None):
    policy.authorize(context, message_policies.GET_ALL)
    return message_db.message_get_all(
        context, _scope(context), filters=filters, marker=marker,
        limit=limit, offset=offset, sort_keys=sort_keys,
        sort_dirs=sort_dirs)


def get_message(context, message_id):
    """:raises MessageNotFound: none the caller may see has that id."""
    message = message_db.message_get(context, message_id, _scope(context))
    policy.authorize(context, message_policies.GET, _target(message))
    return message


def delete_message(context, message_id):
    """:raises MessageNotFound: none the caller may see has that id."""
    message = message_db.message_get(context, message_id, _scope(context))
    policy.authorize(context, message_policies.DELETE, _target(message))
    message_db.message_destroy(context, message.id)
    LOG.info('Deleted user message %s of project %s', message.id,
             message.project_id)
