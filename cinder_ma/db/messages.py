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

"""Database API of user messages (Cinder's ``messages``).

:func:`record` is what the code that saw a failure calls (the API's
create, the manager's flows): it builds the message from Cinder's ids
(:mod:`cinder_ma.message_field`) and writes it in a transaction of its
own, and never raises: a message that could not be written is logged,
the failure it tells of goes on as it would have.

Readers return :class:`Message` records. A deleted message is
soft-deleted (``db purge`` removes it later); an expired one is deleted
by :func:`message_purge_expired` (``cinder-ma-manage message purge``).
"""

import datetime
import typing
import uuid

from oslo_config import cfg
from oslo_log import log as logging
import sqlalchemy as sa

from cinder_ma.db.api import paginate
from cinder_ma.db.api import reader
from cinder_ma.db.api import soft_delete
from cinder_ma.db.api import utcnow
from cinder_ma.db.api import writer
from cinder_ma.db import models
from cinder_ma import exception
from cinder_ma import message_field

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

_MESSAGE = models.Message

#: The filters of message lists (Cinder's, from 3.5).
FILTERS = ('resource_uuid', 'resource_type', 'event_id', 'request_id',
           'message_level')
SORT_KEYS = ('id', 'created_at', 'updated_at', 'expires_at', 'event_id',
             'resource_type', 'resource_uuid', 'message_level',
             'request_id', 'project_id')


class Message(typing.NamedTuple):
    """A user message; ``guaranteed_until`` is its ``expires_at``."""

    id: str
    project_id: str
    request_id: str | None
    resource_type: str | None
    resource_uuid: str | None
    event_id: str
    action_id: str | None
    detail_id: str | None
    message_level: str
    created_at: object
    expires_at: object

    @property
    def user_message(self):
        """The text shown (Cinder's ``"<action>:<detail>"``)."""
        return message_field.user_message(self.action_id, self.detail_id)


def _record(row):
    return Message(*(getattr(row, name) for name in Message._fields))


def _query(context, project_id=None):
    query = context.session.query(_MESSAGE).filter(
        _MESSAGE.deleted == sa.false())
    if project_id is not None:
        query = query.filter(_MESSAGE.project_id == project_id)
    return query


@writer
def message_create(context, values):
    """Write a message; ``values`` are its columns but ``id``."""
    row = _MESSAGE(id=str(uuid.uuid4()), **values)
    context.session.add(row)
    context.session.flush()
    # As stored (MySQL keeps times to the second).
    context.session.refresh(row)
    return _record(row)


def _expiry():
    """message_ttl from now, rounded up to the second (which every
    database keeps: the guarantee holds where the fraction is cut)."""
    expires = utcnow() + datetime.timedelta(
        seconds=CONF.message.message_ttl)
    if expires.microsecond:
        expires = expires.replace(microsecond=0) + datetime.timedelta(
            seconds=1)
    return expires


def record(context, project_id, action, resource_uuid=None,
           resource_type=message_field.Resource.VOLUME, detail=None,
           exception=None, level='ERROR'):
    """Tell a project's users of a failure they cannot otherwise see.

    :param project_id: the project of the resource (the caller's context
        may be an administrator's or the manager's own).
    :param action: a :class:`~cinder_ma.message_field.Action` field.
    :param detail: a :class:`~cinder_ma.message_field.Detail` field, or
        None for the one ``exception`` maps to (else the unknown
        error's). The exception's text is never shown.
    :returns: the message, or None if it could not be written (logged;
        never raised: the failure told of goes on as it would have).
    """
    detail_id = message_field.detail_id_of(exception, detail)
    values = {
        'project_id': project_id,
        'request_id': getattr(context, 'request_id', None),
        'resource_type': resource_type,
        'resource_uuid': resource_uuid,
        'action_id': action.id,
        'detail_id': detail_id,
        'event_id': message_field.event_id(resource_type, action.id,
                                           detail_id),
        'message_level': level,
        'expires_at': _expiry(),
    }
    try:
        message = message_create(context, values)
    except Exception:
        LOG.exception('Could not record the user message %(event)s of '
                      '%(type)s %(uuid)s for project %(project)s',
                      {'event': values['event_id'], 'type': resource_type,
                       'uuid': resource_uuid, 'project': project_id})
        return None
    LOG.info('Recorded user message %(id)s (%(event)s: %(text)s) of '
             '%(type)s %(uuid)s for project %(project)s',
             {'id': message.id, 'event': message.event_id,
              'text': message.user_message, 'type': resource_type,
              'uuid': resource_uuid, 'project': project_id})
    return message


@reader
def message_get(context, message_id, project_id=None):
    """A message (of ``project_id`` when given).

    :raises MessageNotFound: none of that id (in that project).
    """
    row = _query(context, project_id).filter(
        _MESSAGE.id == message_id).first()
    if row is None:
        raise exception.MessageNotFound(message_id=message_id)
    return _record(row)


@reader
def message_get_all(context, project_id=None, filters=None, marker=None,
                    limit=None, offset=None, sort_keys=None,
                    sort_dirs=None):
    """A page of messages (of ``project_id`` when given), newest first
    unless sorted otherwise.

    :param filters: {column: value} of :data:`FILTERS`.
    :raises InvalidSortKey: a sort key outside :data:`SORT_KEYS`.
    :raises MarkerNotFound: no visible message has the marker's id.
    """
    query = _query(context, project_id)
    for key, value in (filters or {}).items():
        query = query.filter(getattr(_MESSAGE, key) == value)
    query = paginate(query, _MESSAGE, lambda: _query(context, project_id),
                     marker, limit, sort_keys, sort_dirs, SORT_KEYS,
                     'created_at', 'desc')
    if offset:
        query = query.offset(offset)
    return [_record(row) for row in query.all()]


@writer
def message_destroy(context, message_id, project_id=None):
    """Delete a message (soft: ``db purge`` removes the row).

    :raises MessageNotFound: none of that id (in that project).
    """
    conditions = [_MESSAGE.id == message_id]
    if project_id is not None:
        conditions.append(_MESSAGE.project_id == project_id)
    if not soft_delete(context, _MESSAGE, *conditions):
        raise exception.MessageNotFound(message_id=message_id)


@writer
def message_purge_expired(context, now=None):
    """Delete the messages whose ``expires_at`` has passed (deleted ones
    too: they are past their use).

    :returns: how many were deleted.
    """
    now = now or utcnow()
    return context.session.execute(
        sa.delete(_MESSAGE).where(_MESSAGE.expires_at < now)
        .execution_options(synchronize_session=False)).rowcount
