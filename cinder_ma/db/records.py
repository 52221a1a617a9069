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

"""Records of the data layer: what it returns of a volume, an attachment
and a snapshot.

Every function of :mod:`cinder_ma.db` that returns a volume or an
attachment returns one of these records, built by the one builder of its
entity (:func:`attachment_from_row`, :func:`volume_from_row`) from the
Core row its query read: no ORM object, Core row or ad-hoc namespace
leaves the data layer. A record is immutable and slotted (a named tuple:
building one costs a tenth of a frozen dataclass, which matters to a list
of thousands of attachments); a caller that needs one with other values
builds it with its ``replace()``.

An attachment's ``connector`` and ``connection_info`` read decoded (a
dict or None). The record keeps their JSON text (``connector_json``,
``connection_info_json``) and decodes it when they are read, so that a
list, which never shows them, does not decode them; writers take dicts
and encode them (:func:`dumps`).
"""

import datetime
import itertools
import json
import typing

from oslo_serialization import jsonutils

#: The JSON columns of an attachment, read decoded from its record.
JSON_FIELDS = ('connector', 'connection_info', 'pending_work')


def loads(text):
    """A JSON column's value decoded: a dict, or None for no value."""
    return json.loads(text) if text else None


def dumps(value):
    """A dict (or None) as a JSON column holds it; JSON text as it is."""
    if value is None or isinstance(value, str):
        return value
    return jsonutils.dumps(value)


class _AttachmentColumns(typing.NamedTuple):
    id: str
    volume_id: str
    instance_uuid: str | None
    attached_host: str | None
    manager_host: str | None
    mountpoint: str | None
    connector_json: str | None
    connection_info_json: str | None
    attach_mode: str
    attach_status: str
    attach_time: object = None
    detach_time: object = None
    claimed_by: str | None = None
    claimed_until: object = None
    error_reason: str | None = None
    generation: int = 1
    fenced_at: object = None
    detach_begun_at: object = None
    pending_work_json: str | None = None
    deleted_at: object = None
    deleted: bool = False
    created_at: object = None
    updated_at: object = None


class Attachment(_AttachmentColumns):
    """An attachment: the columns of ``volume_attachment`` (the JSON ones
    as ``connector_json`` and ``connection_info_json``), with
    ``connector`` and ``connection_info`` read decoded."""

    __slots__ = ()

    @property
    def connector(self):
        return loads(self.connector_json)

    @property
    def connection_info(self):
        return loads(self.connection_info_json)

    @property
    def pending_work(self):
        """The flow a manager runs on it under its claim (a dict with
        ``op``), or None."""
        return loads(self.pending_work_json)

    def replace(self, **changes):
        """This attachment with ``changes`` (``connector`` and
        ``connection_info`` given decoded or as JSON text)."""
        for key in JSON_FIELDS:
            if key in changes:
                changes[key + '_json'] = dumps(changes.pop(key))
        return self._replace(**changes)


class VolumeType(typing.NamedTuple):
    """What a volume's record holds of its type: its name and its
    ``multiattach:writers`` extra spec (None when it has none)."""

    id: str
    name: str
    writers_spec: str | None = None


class Volume(typing.NamedTuple):
    """A volume: the columns of ``volumes`` and, when read with them, its
    children: ``volume_type`` (:class:`VolumeType`, None without one),
    ``volume_metadata`` ({key: value}) and ``volume_attachment`` (tuple of
    :class:`Attachment`, oldest first, deleted ones left out; in a page
    of volumes, with only the :data:`LISTED_ATTACHMENT_FIELDS`, None in
    the others).

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
    snapshot_id: str | None = None
    source_volid: str | None = None
    deleted_at: object = None
    deleted: bool = False
    created_at: object = None
    updated_at: object = None
    volume_type: VolumeType | None = None
    volume_metadata: dict | None = None
    volume_attachment: tuple | None = None

    def replace(self, **changes):
        """This volume with ``changes``."""
        return self._replace(**changes)


class Snapshot(typing.NamedTuple):
    """A snapshot: the columns of ``snapshots`` and, when read with them,
    its ``metadata`` ({key: value}; None when read without it)."""

    id: str
    project_id: str
    user_id: str | None
    volume_id: str
    volume_type_id: str
    volume_size: int
    name: str | None
    description: str | None
    status: str
    progress: str | None = None
    error_reason: str | None = None
    claimed_by: str | None = None
    claimed_until: object = None
    deleted_at: object = None
    deleted: bool = False
    created_at: object = None
    updated_at: object = None
    metadata: dict | None = None

    def replace(self, **changes):
        """This snapshot with ``changes``."""
        return self._replace(**changes)


#: The fields of a snapshot that are its table's columns.
SNAPSHOT_COLUMNS = Snapshot._fields[:-1]


def snapshot_from_row(row, metadata=None):
    """The record of a snapshot from a row holding its columns (a Core
    row, a dict of them, or a tuple in the order of
    :data:`SNAPSHOT_COLUMNS`), with its metadata if it was read."""
    values = row if type(row) is tuple else _values(row, SNAPSHOT_COLUMNS,
                                                    '')
    return Snapshot._make((*values, metadata))


#: The columns of an attachment, in their table's order (the record's
#: fields, but for the JSON ones' names).
ATTACHMENT_FIELDS = tuple(
    name[:-len('_json')] if name.endswith('_json') else name
    for name in Attachment._fields)
_JSON_INDEXES = tuple(ATTACHMENT_FIELDS.index(key) for key in JSON_FIELDS)
#: The columns of an attachment that a page of volumes reads: what a
#: listed volume shows of its attachments. Its records hold None, or
#: their default, in the others.
LISTED_ATTACHMENT_FIELDS = ('id', 'volume_id', 'instance_uuid',
                            'attached_host', 'mountpoint', 'attach_mode',
                            'attach_status', 'attach_time')
#: The columns of a page's row of an attachment: the first ones of the
#: table, up to the last listed one (NULL in those not listed).
PAGE_ROW_FIELDS = ATTACHMENT_FIELDS[
    :max(map(ATTACHMENT_FIELDS.index, LISTED_ATTACHMENT_FIELDS)) + 1]
_PAGE_ROW_REST = tuple(Attachment._field_defaults[name]
                       for name in Attachment._fields[len(PAGE_ROW_FIELDS):])
#: The fields of a volume that are its table's columns, in their order
#: (the others: its children).
VOLUME_COLUMNS = tuple(name for name in Volume._fields
                       if name not in ('volume_type', 'volume_metadata',
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
    taken as it is)."""
    rows = result.all()
    keys = tuple(result.keys())
    make = Attachment._make
    if keys == ATTACHMENT_FIELDS:
        return [make(row) for row in rows]
    if keys == PAGE_ROW_FIELDS:
        rest = _PAGE_ROW_REST
        return [make(itertools.chain(row, rest)) for row in rows]
    return [attachment_from_row(row) for row in rows]


def attachment_from_row(row, prefix=''):
    """The record of an attachment from a row holding its columns (a Core
    row, a dict of the column values, or a tuple of them in the order of
    :data:`ATTACHMENT_FIELDS`; JSON columns as text or decoded), the
    columns' names starting with ``prefix`` when the row holds several
    tables'."""
    values = _values(row, ATTACHMENT_FIELDS, prefix)
    for index in _JSON_INDEXES:
        values[index] = dumps(values[index])
    return Attachment._make(values)


def volume_from_row(row, volume_type=None, metadata=None,
                    attachments=None, prefix=''):
    """The record of a volume from a row holding its columns (as
    :func:`attachment_from_row`; a tuple in the order of
    :data:`VOLUME_COLUMNS`), with its children if they were read:
    ``metadata`` a dict, ``attachments`` an iterable of
    :class:`Attachment`."""
    values = row if type(row) is tuple else _values(row, VOLUME_COLUMNS,
                                                    prefix)
    return Volume._make((*values, volume_type, metadata,
                         None if attachments is None else tuple(attachments)))


#: The columns of an attachment that hold a time.
_ATTACHMENT_TIMES = frozenset(
    name for name, kind in _AttachmentColumns.__annotations__.items()
    if kind is object)


def attachment_to_primitive(attachment):
    """An attachment's record as JSON primitives (a manager's answer over
    RPC): its fields by name, times in ISO 8601."""
    return {name: value.isoformat()
            if isinstance(value, datetime.datetime) else value
            for name, value in zip(attachment._fields, attachment)}


def attachment_from_primitive(values):
    """The record :func:`attachment_to_primitive` made primitives of."""
    return Attachment(**{
        name: datetime.datetime.fromisoformat(value)
        if name in _ATTACHMENT_TIMES and value else value
        for name, value in values.items()})
