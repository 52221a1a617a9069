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

"""Records of the data layer: what it returns of a volume and an attachment.

Every function of :mod:`cinder_ma.db` that returns a volume or an
attachment returns one of these frozen, slotted records, built by the one
builder of its entity (:func:`attachment_from_row`, :func:`volume_from_row`)
from the Core row its query read: no ORM object, Core row or ad-hoc
namespace leaves the data layer. An attachment's ``connector`` and
``connection_info`` are decoded (a dict or None); writers take dicts and
encode them (:func:`dumps`). A record is never changed: a caller that
needs one with other values builds it with :func:`dataclasses.replace`.
"""

import dataclasses
import json

from oslo_serialization import jsonutils

#: The JSON columns of an attachment, decoded in its record.
JSON_FIELDS = ('connector', 'connection_info')


def loads(text):
    """A JSON column's value decoded: a dict, or None for no value."""
    return json.loads(text) if text else None


def dumps(value):
    """A dict (or None) as a JSON column holds it; JSON text as it is."""
    if value is None or isinstance(value, str):
        return value
    return jsonutils.dumps(value)


@dataclasses.dataclass(frozen=True, slots=True)
class Attachment:
    """An attachment: the columns of ``volume_attachment``, with
    ``connector`` and ``connection_info`` decoded."""

    id: str
    volume_id: str
    instance_uuid: str | None
    attached_host: str | None
    manager_host: str | None
    mountpoint: str | None
    connector: dict | None
    connection_info: dict | None
    attach_mode: str
    attach_status: str
    attach_time: object = None
    detach_time: object = None
    claimed_by: str | None = None
    claimed_until: object = None
    error_reason: str | None = None
    generation: int = 1
    fenced_at: object = None
    deleted_at: object = None
    deleted: bool = False
    created_at: object = None
    updated_at: object = None


@dataclasses.dataclass(frozen=True, slots=True)
class VolumeType:
    """What a volume's record holds of its type: its name and its
    ``multiattach:writers`` extra spec (None when it has none)."""

    id: str
    name: str
    writers_spec: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Volume:
    """A volume: the columns of ``volumes`` and, when read with them, its
    children: ``volume_type`` (:class:`VolumeType`, None without one),
    ``volume_metadata`` ({key: value}) and ``volume_attachment`` (tuple of
    :class:`Attachment`, oldest first, deleted ones left out).

    A volume read without its children (the row alone, for hot paths)
    has None in the three: reading them is then a mistake that fails,
    not an empty answer.
    """

    id: str
    project_id: str
    user_id: str | None
    name: str | None
    description: str | None
    size: int
    status: str
    error_reason: str | None
    host: str | None
    availability_zone: str | None
    volume_type_id: str
    multiattach: bool
    bootable: bool
    encrypted: bool
    shared_targets: bool | None
    service_uuid: str | None
    readonly: bool = False
    attach_count: int = 0
    reserved_instance_uuid: str | None = None
    claimed_by: str | None = None
    claimed_until: object = None
    target_size: int | None = None
    deleted_at: object = None
    deleted: bool = False
    created_at: object = None
    updated_at: object = None
    volume_type: VolumeType | None = None
    volume_metadata: dict | None = None
    volume_attachment: tuple | None = None


#: The fields of an attachment: its table's columns, in their order.
ATTACHMENT_FIELDS = tuple(field.name
                          for field in dataclasses.fields(Attachment))
_CONNECTOR = ATTACHMENT_FIELDS.index('connector')
_CONNECTION_INFO = ATTACHMENT_FIELDS.index('connection_info')
#: The fields of a volume that are its table's columns, in their order
#: (the others: its children).
VOLUME_COLUMNS = tuple(field.name for field in dataclasses.fields(Volume)
                       if field.name not in ('volume_type', 'volume_metadata',
                                             'volume_attachment'))


def _values(row, names, prefix):
    """The values of the columns ``names`` of a row: a tuple of them (in
    that order: the fast path of a whole table's row, as ``tuple(row)``
    gives it), a Core row (read by column name through its public
    ``_mapping``) or a dict of column values."""
    if type(row) is tuple:
        return list(row)
    mapping = row if isinstance(row, dict) else row._mapping
    return [mapping[prefix + name] for name in names]


def attachments_from_result(result):
    """The records of the rows of a Core result of whole
    ``volume_attachment`` rows (its columns checked once, then each row
    read as it is)."""
    if tuple(result.keys()) != ATTACHMENT_FIELDS:
        return [attachment_from_row(row) for row in result]
    return [attachment_from_row(tuple(row)) for row in result]


def attachment_from_row(row, prefix=''):
    """The record of an attachment from a row holding its columns (a Core
    row, a dict of the column values, or a tuple of them in the order of
    :data:`ATTACHMENT_FIELDS`; JSON columns as text), the columns' names
    starting with ``prefix`` when the row holds several tables'."""
    values = _values(row, ATTACHMENT_FIELDS, prefix)
    connector, info = values[_CONNECTOR], values[_CONNECTION_INFO]
    values[_CONNECTOR] = json.loads(connector) if connector else None
    values[_CONNECTION_INFO] = json.loads(info) if info else None
    return Attachment(*values)


def volume_from_row(row, volume_type=None, metadata=None,
                    attachments=None, prefix=''):
    """The record of a volume from a row holding its columns (as
    :func:`attachment_from_row`; a tuple in the order of
    :data:`VOLUME_COLUMNS`), with its children if they were read:
    ``metadata`` a dict, ``attachments`` an iterable of
    :class:`Attachment`."""
    return Volume(*_values(row, VOLUME_COLUMNS, prefix),
                  volume_type=volume_type, volume_metadata=metadata,
                  volume_attachment=None if attachments is None
                  else tuple(attachments))
