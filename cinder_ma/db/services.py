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

"""Database API of services: their rows, heartbeats and reported
capabilities, and Cinder's match of a host name.

Readers return :class:`cinder_ma.db.records.Service` records. Every
statement is a Core statement of the table, run on the transaction's
connection."""

import datetime
import uuid

from oslo_config import cfg
from oslo_serialization import jsonutils
import sqlalchemy as sa

from cinder_ma.db.api import conditional_update
from cinder_ma.db.api import connection_of
from cinder_ma.db.api import reader
from cinder_ma.db.api import utcnow
from cinder_ma.db.api import writer
from cinder_ma.db import models
from cinder_ma.db import records
from cinder_ma import exception

CONF = cfg.CONF


# Read before calls to a manager and by the attach path's checks: built
# once, with bound parameters (SQLAlchemy then neither builds it nor its
# cache key again).
_SERVICES = models.Service.__table__
_LIVE = sa.select(_SERVICES).where(_SERVICES.c.deleted == sa.false())
_BY_HOST_AND_BINARY = _LIVE.where(
    _SERVICES.c.host == sa.bindparam('host'),
    _SERVICES.c.binary == sa.bindparam('binary')).limit(1)
_BY_UUID = _LIVE.where(_SERVICES.c.uuid == sa.bindparam('uuid'))


@writer
def service_create(context, values):
    values = dict(values)
    values.setdefault('uuid', str(uuid.uuid4()))
    connection = connection_of(context)
    connection.execute(sa.insert(_SERVICES), values)
    return records.from_row(records.Service, connection.execute(
        _BY_UUID, {'uuid': values['uuid']}).one())


@reader
def service_get_by_host_and_binary(context, host, binary):
    """The live service of ``host`` and ``binary`` (exact names), or
    None."""
    row = connection_of(context).execute(
        _BY_HOST_AND_BINARY, {'host': host, 'binary': binary}).first()
    return None if row is None else records.from_row(records.Service, row)


def host_filter(column, host):
    """Cinder's match of a host name: ``node`` matches ``node`` and what
    runs on it (``node@backend``, ``node@backend#pool``), ``node@backend``
    matches itself and its pools, a name with ``#`` only itself."""
    if '#' in host:
        return column == host
    conditions = [column == host, column.startswith(host + '#',
                                                    autoescape=True)]
    if '@' not in host:
        conditions.append(column.startswith(host + '@', autoescape=True))
    return sa.or_(*conditions)


@reader
def service_get_all(context, filters=None):
    """Live services; the ``host`` filter matches as
    :func:`host_filter` does, the others exactly."""
    statement = _LIVE
    for key, value in (filters or {}).items():
        if key == 'host':
            statement = statement.where(host_filter(_SERVICES.c.host, value))
        else:
            statement = statement.where(_SERVICES.c[key] == value)
    return records.from_result(records.Service,
                               connection_of(context).execute(
                                   statement.order_by(_SERVICES.c.id)))


# Read by the scheduler for every volume create: the columns it needs,
# built once (reading whole service rows was a sixth of the cost of a
# create request).
_SCHEDULING = sa.select(
    *(_SERVICES.c[name] for name in (
        'id', 'uuid', 'host', 'binary', 'availability_zone', 'disabled',
        'frozen', 'heartbeat_at', 'capabilities'))).where(
    _SERVICES.c.binary == sa.bindparam('binary'),
    _SERVICES.c.deleted == sa.false()).order_by(_SERVICES.c.id)


@reader
def service_get_all_for_scheduling(context, binary):
    """The live services of ``binary``, in the order of
    :func:`service_get_all`, with what scheduling reads of them: ``id``,
    ``uuid``, ``host``, ``binary``, ``availability_zone``, ``disabled``,
    ``frozen``, ``heartbeat_at`` and ``capabilities`` (which
    :func:`service_is_up` and
    :func:`cinder_ma.volume.scheduler.capabilities_of` take); their other
    fields have their defaults."""
    return records.from_result(records.Service,
                               connection_of(context).execute(
                                   _SCHEDULING, {'binary': binary}))


_FROZEN = sa.select(sa.exists().where(
    _SERVICES.c.host == sa.bindparam('backend'),
    _SERVICES.c.frozen == sa.true(),
    _SERVICES.c.deleted == sa.false()))


@reader
def backend_is_frozen(context, host):
    """Whether the backend of a volume host (``node@backend#pool``) is
    frozen."""
    return bool(connection_of(context).execute(
        _FROZEN, {'backend': host.split('#', 1)[0]}).scalar())


@writer
def service_update(context, service_id, values):
    values = dict(values)
    if 'capabilities' in values and not isinstance(
            values['capabilities'], (str, type(None))):
        values['capabilities'] = jsonutils.dumps(values['capabilities'])
    if not conditional_update(context, models.Service, service_id,
                              values):
        raise exception.ServiceNotFound(service_id=service_id)


def heartbeat_is_recent(heartbeat_at):
    """Whether a heartbeat made at ``heartbeat_at`` (or None: never) is
    at most ``[manager] service_down_time`` old."""
    if heartbeat_at is None:
        return False
    age = utcnow() - heartbeat_at
    return age <= datetime.timedelta(
        seconds=CONF.manager.service_down_time)


def service_is_up(service):
    """Whether a service heartbeat is recent enough to schedule to it."""
    return heartbeat_is_recent(service.heartbeat_at)
