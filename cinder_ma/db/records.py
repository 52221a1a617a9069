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

"""Records of the data layer: what it returns of each entity.

Every function of :mod:`cinder_ma.db` that returns an entity (a volume,
an attachment, a snapshot, a volume type and its encryption, a service,
QoS specs, a message, a transfer, an audit run) returns one of these
records: no ORM object, Core row or ad-hoc namespace leaves the data
layer. A record is immutable and slotted (a named tuple: building one
costs a tenth of a frozen dataclass, which matters to a list of
thousands of attachments); a caller that needs one with other values
builds it with its ``replace()``.

A record of a row is built by :func:`from_row` (or, for the rows of a
whole result, :func:`from_result`) **by column name**: the row's
columns are matched to the record's fields by their names, once per
shape of row (the matching is cached), so neither the order of a
table's columns nor that of a query's matters. The fields of a record
are the columns of its table (:data:`TABLES`; a few left out on purpose,
:data:`OMITTED`), then its children (:data:`CHILDREN`: what is read
with it from other tables, None when it was not read).
``tests/unit/db/test_records.py`` fails when a table and its record
disagree.

An attachment's ``connector`` and ``connection_info`` read decoded (a
dict or None). The record keeps their JSON text (``connector_json``,
``connection_info_json``) and decodes it when they are read, so that a
list, which never shows them, does not decode them; writers take dicts
and encode them (:func:`dumps`).
"""

import datetime
import functools
import json
import operator
import typing

from oslo_serialization import jsonutils

from cinder_ma.db import models
from cinder_ma import message_field

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


def replace_fields(record, **changes):
    """``record`` with ``changes``: the ``replace()`` of every record (a
    named tuple's own ``_replace``, under a public name)."""
    return record._replace(**changes)


class _AttachmentColumns(typing.NamedTuple):
    id: str
    volume_id: str
    attach_mode: str
    attach_status: str
    instance_uuid: str | None = None
    attached_host: str | None = None
    manager_host: str | None = None
    mountpoint: str | None = None
    connector_json: str | None = None
    connection_info_json: str | None = None
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


class Encryption(typing.NamedTuple):
    """The encryption of a volume type: the columns of ``encryption``."""

    encryption_id: str
    volume_type_id: str
    provider: str
    cipher: str | None
    key_size: int | None
    control_location: str
    deleted_at: object = None
    deleted: bool = False
    created_at: object = None
    updated_at: object = None

    replace = replace_fields


class VolumeType(typing.NamedTuple):
    """A volume type: the columns of ``volume_types`` and, when read with
    them, its children: ``extra_specs`` ({key: value} of its live specs),
    ``projects`` (tuple of the ids of the projects given access to it:
    all of them, or, read by
    :func:`cinder_ma.db.types.volume_type_find` for one project, that
    one if it has access) and ``encryption`` (:class:`Encryption`, None
    without one). What was not read is None; the type of a volume's
    record holds its extra specs, not its projects or encryption.
    """

    id: str
    name: str
    description: str | None = None
    is_public: bool = True
    qos_specs_id: str | None = None
    deleted_at: object = None
    deleted: bool = False
    created_at: object = None
    updated_at: object = None
    extra_specs: dict | None = None
    projects: tuple | None = None
    encryption: Encryption | None = None

    @property
    def writers_spec(self):
        """Its ``multiattach:writers`` extra spec (None when it has
        none)."""
        return self.extra_specs.get(models.WRITERS_SPEC)

    @property
    def encrypted(self):
        """Whether it has an encryption (read with it)."""
        return self.encryption is not None

    replace = replace_fields


class Volume(typing.NamedTuple):
    """A volume: the columns of ``volumes`` and, when read with them, its
    children: ``volume_type`` (:class:`VolumeType` with its extra specs,
    None without one), ``volume_metadata`` ({key: value}) and
    ``volume_attachment`` (tuple of :class:`Attachment`, oldest first,
    deleted ones left out; in a page of volumes, with only the
    :data:`LISTED_ATTACHMENT_FIELDS`, None in the others).

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

    replace = replace_fields


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

    replace = replace_fields


class Service(typing.NamedTuple):
    """A service: the columns of ``services`` (``capabilities`` as the
    JSON text the manager reported). The scheduler's read
    (:func:`cinder_ma.db.services.service_get_all_for_scheduling`) has
    the defaults in the columns it does not read."""

    id: int
    uuid: str
    host: str
    binary: str
    availability_zone: str | None
    disabled: bool
    frozen: bool
    heartbeat_at: object
    capabilities: str | None
    topic: str | None = None
    disabled_reason: str | None = None
    deleted_at: object = None
    deleted: bool = False
    created_at: object = None
    updated_at: object = None

    replace = replace_fields


class QoSSpecs(typing.NamedTuple):
    """QoS specs, from their rows (a root row and a row per key, see
    :class:`cinder_ma.db.models.QualityOfServiceSpecs`): ``specs``
    excludes ``consumer``, as Cinder shows them."""

    id: str
    name: str
    consumer: str
    specs: dict
    created_at: object = None

    replace = replace_fields


class Message(typing.NamedTuple):
    """A user message: the columns of ``messages``; ``guaranteed_until``
    is its ``expires_at``."""

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
    deleted_at: object = None
    deleted: bool = False
    updated_at: object = None

    @property
    def user_message(self):
        """The text shown (Cinder's ``"<action>:<detail>"``)."""
        return message_field.user_message(self.action_id, self.detail_id)

    replace = replace_fields


class Transfer(typing.NamedTuple):
    """A volume transfer: the columns of ``transfers`` but its secret's
    salt and hash (read by
    :func:`cinder_ma.db.transfers.transfer_get_secret` alone)."""

    id: str
    volume_id: str
    display_name: str | None
    no_snapshots: bool
    source_project_id: str | None
    destination_project_id: str | None
    accepted: bool
    created_at: object
    expires_at: object = None
    deleted_at: object = None
    deleted: bool = False
    updated_at: object = None

    replace = replace_fields


class Audit(typing.NamedTuple):
    """A run of ``cinder-ma-manage attachment audit``: the columns of
    ``attachment_audits`` (``findings`` as ``findings_json``), with
    ``findings`` read decoded: ``[kind, id, host, problem]`` lists."""

    id: str
    host: str
    hosts_audited: int
    findings_count: int
    findings_json: str
    created_at: object
    deleted_at: object = None
    deleted: bool = False
    updated_at: object = None

    @property
    def findings(self):
        return loads(self.findings_json) or []

    replace = replace_fields


#: The table of each record of a row.
TABLES = {
    Attachment: 'volume_attachment',
    Volume: 'volumes',
    Snapshot: 'snapshots',
    VolumeType: 'volume_types',
    Encryption: 'encryption',
    Service: 'services',
    Message: 'messages',
    Transfer: 'transfers',
    Audit: 'attachment_audits',
}
#: The fields of a record that are not its table's columns: what is read
#: with it from other tables (last, in this order).
CHILDREN = {
    Volume: ('volume_type', 'volume_metadata', 'volume_attachment'),
    Snapshot: ('metadata',),
    VolumeType: ('extra_specs', 'projects', 'encryption'),
}
#: The columns of a table its record leaves out on purpose, and why.
OMITTED = {
    # Internal to soft-delete-aware unique constraints.
    VolumeType: ('deleted_key',),
    # The secret of a transfer, read by transfer_get_secret alone.
    Transfer: ('salt', 'crypt_hash'),
}
#: Record fields named otherwise than their column: JSON text kept as it
#: is and read decoded by a property of the column's name.
_JSON_SUFFIX = '_json'


def _column_name(field):
    return (field[:-len(_JSON_SUFFIX)] if field.endswith(_JSON_SUFFIX)
            else field)


def columns_of(record):
    """The names of the columns of a record type's table that it holds,
    in the order of its fields."""
    fields = record._fields
    children = CHILDREN.get(record, ())
    return tuple(_column_name(field)
                 for field in fields[:len(fields) - len(children)])


@functools.lru_cache(maxsize=1024)
def _picker(record, keys, prefix):
    """A function of a row whose columns are named ``keys`` giving the
    values of ``record``'s columns in the order of its fields (found by
    name; a column the row does not hold has the field's default)."""
    position = {key[len(prefix):]: index for index, key in enumerate(keys)
                if key.startswith(prefix)}
    indexes, missing = [], []
    for field, column in zip(record._fields, columns_of(record)):
        if column in position:
            indexes.append(position[column])
            continue
        if field not in record._field_defaults:
            raise KeyError('a row of %s without its column %s' % (
                record.__name__, prefix + column))
        indexes.append(len(keys) + len(missing))
        missing.append(record._field_defaults[field])
    getter = operator.itemgetter(*indexes)
    if not missing:
        return getter
    rest = tuple(missing)
    return lambda row: getter(tuple(row) + rest)


def _keys_and_values(row):
    if isinstance(row, dict):
        return tuple(row), tuple(row.values())
    # A Core row: its columns' names are its public ``_fields``.
    return tuple(row._fields), row


def from_row(record, row, *children, prefix=''):
    """The ``record`` of a row (a Core row or a dict of column values),
    its columns found by name (those named ``prefix`` + the column's
    name when the row holds several tables'), with its ``children`` (the
    :data:`CHILDREN` fields, in their order; None: not read)."""
    keys, values = _keys_and_values(row)
    columns = _picker(record, keys, prefix)(values)
    filled = CHILDREN.get(record, ())
    if children or filled:
        rest = children + (None,) * (len(filled) - len(children))
        return record._make(columns + rest)
    return record._make(columns)


def picker(record, row):
    """For rows of the columns of ``row`` (a Core row): the function of
    such a row giving the values of ``record``'s columns, in the order
    of its fields (to build records of many rows with their children)."""
    return _picker(record, tuple(row._fields), '')


def from_result(record, result):
    """The records of the rows of a Core result (its columns matched to
    the record's fields once)."""
    pick = _picker(record, tuple(result.keys()), '')
    make = record._make
    filled = CHILDREN.get(record, ())
    if filled:
        rest = (None,) * len(filled)
        return [make(pick(row) + rest) for row in result]
    return [make(pick(row)) for row in result]


#: The columns of an attachment, in the order of its record's fields.
ATTACHMENT_FIELDS = columns_of(Attachment)
_JSON_INDEXES = tuple(ATTACHMENT_FIELDS.index(key) for key in JSON_FIELDS)
#: The columns of an attachment that a page of volumes reads: what a
#: listed volume shows of its attachments. Its records hold None, or
#: their default, in the others.
LISTED_ATTACHMENT_FIELDS = ('id', 'volume_id', 'instance_uuid',
                            'attached_host', 'mountpoint', 'attach_mode',
                            'attach_status', 'attach_time')
#: The columns of a volume, in the order of its record's fields.
VOLUME_COLUMNS = columns_of(Volume)
#: The columns of a snapshot, in the order of its record's fields.
SNAPSHOT_COLUMNS = columns_of(Snapshot)


def attachments_from_result(result):
    """The records of the rows of a Core result of ``volume_attachment``
    rows (whole, or of some columns: the others have their defaults)."""
    return from_result(Attachment, result)


def attachment_from_row(row, prefix=''):
    """The record of an attachment from a row holding its columns (a Core
    row or a dict of the column values; JSON columns as text or decoded),
    the columns' names starting with ``prefix`` when the row holds
    several tables'."""
    attachment = from_row(Attachment, row, prefix=prefix)
    encoded = {}
    for index in _JSON_INDEXES:
        value = attachment[index]
        if value is not None and not isinstance(value, str):
            encoded[Attachment._fields[index]] = dumps(value)
    return attachment._replace(**encoded) if encoded else attachment


def volume_from_row(row, volume_type=None, metadata=None,
                    attachments=None, prefix=''):
    """The record of a volume from a row holding its columns (as
    :func:`attachment_from_row`), with its children if they were read:
    ``metadata`` a dict, ``attachments`` an iterable of
    :class:`Attachment`."""
    return from_row(Volume, row, volume_type, metadata,
                    None if attachments is None else tuple(attachments),
                    prefix=prefix)


def snapshot_from_row(row, metadata=None):
    """The record of a snapshot from a row holding its columns, with its
    metadata if it was read."""
    return from_row(Snapshot, row, metadata)


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


#: The fields of a volume's row (its children left out).
_VOLUME_ROW_FIELDS = tuple(name for name in Volume._fields
                           if name not in ('volume_type', 'volume_metadata',
                                           'volume_attachment'))
_VOLUME_TIMES = frozenset(('claimed_until', 'deleted_at', 'created_at',
                           'updated_at'))


def volume_to_primitive(volume):
    """A volume's row (its record without children) as JSON primitives
    (the API hands it to a manager over RPC): fields by name, times in
    ISO 8601."""
    return {name: value.isoformat()
            if isinstance(value, datetime.datetime) else value
            for name, value in zip(_VOLUME_ROW_FIELDS, volume)}


def volume_from_primitive(values):
    """The record (without children) :func:`volume_to_primitive` made
    primitives of."""
    return Volume(**{
        name: datetime.datetime.fromisoformat(value)
        if name in _VOLUME_TIMES and value else value
        for name, value in values.items() if name in _VOLUME_ROW_FIELDS})


def handover_dumps(attachment, volume, read=None):
    """What a request hands a manager with its claim (RPC 1.9
    ``records``): the attachment's and the volume's records and, for a
    connect, the QoS specs it read (``read``, a pair), as one JSON text
    (the RPC layer passes a string as it is, where it would walk a
    dict of fifty fields value by value)."""
    handed = {'attachment': attachment_to_primitive(attachment),
              'volume': volume_to_primitive(volume)}
    if read is not None:
        handed['read'] = list(read)
    return json.dumps(handed)


def handover_loads(text):
    """The ``(attachment, volume, read)`` of :func:`handover_dumps`
    (``read`` a pair, or None)."""
    handed = json.loads(text)
    read = handed.get('read')
    return (attachment_from_primitive(handed['attachment']),
            volume_from_primitive(handed['volume']),
            tuple(read) if read is not None else None)
