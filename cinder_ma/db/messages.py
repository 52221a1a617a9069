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

Readers return :class:`cinder_ma.db.records.Message` records; every
statement is a Core statement of the table, run on the transaction's
connection. A deleted message is
soft-deleted (``db purge`` removes it later); an expired one is deleted
by :func:`message_purge_expired` (``cinder-ma-manage message purge``).
"""

import datetime
import uuid

from oslo_config import cfg
from oslo_log import log as logging
import sqlalchemy as sa

from cinder_ma.db.api import connection_of
from cinder_ma.db.api import paginate
from cinder_ma.db.api import reader
from cinder_ma.db.api import soft_delete
from cinder_ma.db.api import utcnow
from cinder_ma.db.api import writer
from cinder_ma.db import models
from cinder_ma.db import records
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


_TABLE = _MESSAGE.__table__
_LIVE = sa.select(_TABLE).where(_TABLE.c.deleted == sa.false())
_BY_ID = _TABLE.c.id == sa.bindparam('message_id')


def _live(project_id=None):
    """The Core select of the live messages (of a project)."""
    if project_id is None:
        return _LIVE
    return _LIVE.where(_TABLE.c.project_id == project_id)


@writer
def message_create(context, values):
    """Write a message; ``values`` are its columns but ``id``."""
    message_id = str(uuid.uuid4())
    connection = connection_of(context)
    connection.execute(sa.insert(_TABLE), dict(values, id=message_id))
    # As stored (MySQL keeps times to the second).
    return records.from_row(records.Message, connection.execute(
        _LIVE.where(_BY_ID), {'message_id': message_id}).one())


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
    row = connection_of(context).execute(
        _live(project_id).where(_BY_ID), {'message_id': message_id}).first()
    if row is None:
        raise exception.MessageNotFound(message_id=message_id)
    return records.from_row(records.Message, row)


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
    visible = _live(project_id)
    statement = visible
    for key, value in (filters or {}).items():
        statement = statement.where(_TABLE.c[key] == value)
    connection = connection_of(context)
    statement = paginate(connection, statement, _MESSAGE, visible, marker,
                         limit, sort_keys, sort_dirs, SORT_KEYS,
                         'created_at', 'desc')
    if offset:
        statement = statement.offset(offset)
    return records.from_result(records.Message,
                               connection.execute(statement))


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
    return connection_of(context).execute(
        sa.delete(_TABLE).where(_TABLE.c.expires_at < now)).rowcount
