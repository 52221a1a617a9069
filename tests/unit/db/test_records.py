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

"""Tests of the records of volumes and attachments, and that every query
of the data layer returns them (SQLite file DB)."""


from oslo_serialization import jsonutils
import sqlalchemy as sa

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import fencing as fencing_db
from cinder_ma.db import maintenance
from cinder_ma.db import models
from cinder_ma.db import records
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from tests import base

CONNECTOR = {'host': 'compute1', 'initiator': 'iqn.x'}
INFO = {'driver_volume_type': 'file', 'data': {'path': '/v/x'}}


def _attachment_row(**values):
    row = dict.fromkeys(records.ATTACHMENT_FIELDS)
    row.update(id='a1', volume_id='v1', attach_mode='rw',
               attach_status='attached', generation=1, deleted=False,
               connector=jsonutils.dumps(CONNECTOR),
               connection_info=jsonutils.dumps(INFO))
    row.update(values)
    return row


class RecordBuildersTestCase(base.TestCase):

    def test_attachment_decodes_its_json_columns(self):
        attachment = records.attachment_from_row(_attachment_row())
        self.assertIsInstance(attachment, records.Attachment)
        self.assertEqual(CONNECTOR, attachment.connector)
        self.assertEqual(INFO, attachment.connection_info)
        empty = records.attachment_from_row(_attachment_row(
            connector=None, connection_info=''))
        self.assertIsNone(empty.connector)
        self.assertIsNone(empty.connection_info)

    def test_attachment_from_prefixed_columns(self):
        row = {'x__' + key: value
               for key, value in _attachment_row().items()}
        row['id'] = 'not-this-one'
        attachment = records.attachment_from_row(row, prefix='x__')
        self.assertEqual('a1', attachment.id)
        self.assertEqual(CONNECTOR, attachment.connector)

    def test_built_by_column_name_whatever_the_order(self):
        row = _attachment_row()
        backwards = dict(reversed(list(row.items())))
        # Extra columns of the row (another table's) are not the
        # record's.
        backwards['volume__host'] = 'elsewhere'
        self.assertEqual(records.attachment_from_row(row),
                         records.attachment_from_row(backwards))

    def test_a_column_not_read_has_its_default(self):
        attachment = records.attachment_from_row(
            {name: value for name, value in _attachment_row().items()
             if name in records.LISTED_ATTACHMENT_FIELDS})
        self.assertIsNone(attachment.connector)
        self.assertEqual(1, attachment.generation)
        # A column without a default is required.
        row = dict.fromkeys(records.VOLUME_COLUMNS)
        del row['status']
        self.assertRaises(KeyError, records.volume_from_row, row)

    def test_records_are_frozen_and_slotted(self):
        attachment = records.attachment_from_row(_attachment_row())
        self.assertRaises(AttributeError, setattr,
                          attachment, 'attach_status', 'detached')
        self.assertFalse(hasattr(attachment, '__dict__'))
        volume = records.volume_from_row(
            dict.fromkeys(records.VOLUME_COLUMNS, 'x'))
        self.assertRaises(AttributeError, setattr,
                          volume, 'status', 'error')
        self.assertFalse(hasattr(volume, '__dict__'))
        changed = attachment.replace(attach_status='detached',
                                     connector={'host': 'h2'})
        self.assertEqual(('attached', 'detached'),
                         (attachment.attach_status, changed.attach_status))
        self.assertEqual({'host': 'h2'}, changed.connector)
        self.assertEqual(CONNECTOR, attachment.connector)

    def test_volume_children(self):
        row = dict.fromkeys(records.VOLUME_COLUMNS)
        row.update(id='v1', volume_type_id='t1')
        alone = records.volume_from_row(row)
        # Not read is not empty.
        self.assertIsNone(alone.volume_attachment)
        self.assertIsNone(alone.volume_metadata)
        attachment = records.attachment_from_row(_attachment_row())
        vtype = records.VolumeType('t1', 'gold', extra_specs={})
        volume = records.volume_from_row(row, vtype, {'k': 'v'},
                                         [attachment])
        self.assertEqual((attachment,), volume.volume_attachment)
        self.assertEqual({'k': 'v'}, volume.volume_metadata)
        self.assertEqual('gold', volume.volume_type.name)

    def test_every_record_holds_its_tables_columns(self):
        # Derived from the models: a column added to a table fails here
        # until its record has it (or says why it leaves it out), and a
        # field of a record that is no column of its table fails too.
        tables = models.BASE.metadata.tables
        for record, name in records.TABLES.items():
            columns = {column.name for column in tables[name].c}
            held = set(records.columns_of(record))
            omitted = set(records.OMITTED.get(record, ()))
            self.assertEqual(columns - omitted, held,
                             '%s and its table %s' % (record.__name__,
                                                      name))
            self.assertLessEqual(omitted, columns)
            self.assertEqual(len(held), len(records.columns_of(record)))

    def test_every_table_is_an_entitys_or_a_childs(self):
        # A new table is either an entity, with its record, or read as a
        # part of one (its rows are never returned as such).
        parts = {
            'volume_metadata': 'Volume.volume_metadata',
            'snapshot_metadata': 'Snapshot.metadata',
            'volume_type_extra_specs': 'VolumeType.extra_specs',
            'volume_type_projects': 'VolumeType.projects',
            'quality_of_service_specs': 'QoSSpecs (a root row and a row '
                                        'per key)',
            'quotas': 'limits, {resource: limit}',
            'quota_classes': 'limits, {resource: limit}',
            'quota_usages': 'usage, {resource: in use}',
        }
        self.assertEqual(set(models.BASE.metadata.tables),
                         set(records.TABLES.values()) | set(parts))
        self.assertFalse(set(records.TABLES.values()) & set(parts))

    def test_records_are_named_tuples_with_replace(self):
        for record in (*records.TABLES, records.QoSSpecs):
            self.assertTrue(issubclass(record, tuple), record)
            self.assertEqual((), record.__slots__, record)
            self.assertTrue(callable(record.replace), record)

    def test_dumps(self):
        self.assertIsNone(records.dumps(None))
        self.assertEqual('{"a": 1}', records.dumps({'a': 1}))
        self.assertEqual('{"a": 1}', records.dumps('{"a": 1}'))


class QueryPathsTestCase(base.DBTestCase):
    """Every query that returns an attachment or a volume returns the
    records, JSON decoded."""

    def setUp(self):
        super().setUp()
        vtype = type_db.volume_type_create(self.context, {'name': 'gold'})
        self.volume = volume_db.volume_create(self.context, {
            'project_id': 'fake-project', 'size': 1, 'status': 'available',
            'volume_type_id': vtype.id, 'multiattach': True,
            'metadata': {'k': 'v'}})
        self.attachment = attachment_db.attachment_reserve(
            self.context, self.volume.id, 'i1', connector=CONNECTOR)

    def assertDecoded(self, attachment, connection_info=None):
        self.assertIsInstance(attachment, records.Attachment)
        self.assertEqual(CONNECTOR, attachment.connector)
        self.assertEqual(connection_info, attachment.connection_info)

    def _connect(self):
        return attachment_db.attachment_update(
            self.context, self.attachment.id,
            {'connection_info': INFO, 'attach_status': 'attaching',
             'attached_host': 'compute1'})

    def test_reserve(self):
        self.assertDecoded(self.attachment)
        self.assertEqual(1, self.attachment.generation)

    def test_update_and_get(self):
        updated = self._connect()
        self.assertDecoded(updated, INFO)
        self.assertEqual('attaching', updated.attach_status)
        got = attachment_db.attachment_get(self.context, self.attachment.id)
        self.assertDecoded(got, INFO)
        # What the update hands back is what a read gives.
        self.assertEqual(got, updated)

    def test_json_columns_hold_json(self):
        self._connect()
        table = models.VolumeAttachment.__table__
        with db_api.get_engine().connect() as connection:
            row = connection.execute(sa.select(
                table.c.connector, table.c.connection_info).where(
                    table.c.id == self.attachment.id)).one()
        self.assertEqual((CONNECTOR, INFO), (jsonutils.loads(row[0]),
                                             jsonutils.loads(row[1])))

    def test_other_readers(self):
        self._connect()
        attachment, volume = attachment_db.attachment_and_volume_get(
            self.context, self.attachment.id)
        self.assertDecoded(attachment, INFO)
        self.assertIsInstance(volume, records.Volume)
        self.assertIsNone(volume.volume_attachment)
        (listed,) = attachment_db.attachment_get_all(self.context)
        self.assertDecoded(listed, INFO)
        other = attachment_db.attachment_reserve(self.context,
                                                 self.volume.id, 'i2')
        (first,) = attachment_db.attachment_get_others(
            self.context, self.volume.id, other.id)
        self.assertDecoded(first, INFO)
        ((live, host), _other) = maintenance.live_attachments(self.context)
        self.assertDecoded(live, INFO)

    def test_fencing(self):
        self._connect()
        attachment_db.attachment_update(
            self.context, self.attachment.id, {'attach_status': 'attached'})
        fenced, newly = fencing_db.attachment_fence(self.context,
                                                    self.attachment.id)
        self.assertTrue(newly)
        self.assertDecoded(fenced, INFO)
        (item,) = fencing_db.fenced_connections(self.context,
                                                self.volume.id)
        self.assertDecoded(item, INFO)

    def test_volume_children(self):
        self._connect()
        got = volume_db.volume_get(self.context, self.volume.id)
        (page,) = volume_db.volume_get_all(self.context)
        created = self.volume
        for volume in (got, page):
            self.assertIsInstance(volume, records.Volume)
            self.assertEqual({'k': 'v'}, volume.volume_metadata)
            self.assertEqual('gold', volume.volume_type.name)
            self.assertIsNone(volume.volume_type.writers_spec)
            (attachment,) = volume.volume_attachment
            self.assertIsInstance(attachment, records.Attachment)
        self.assertDecoded(got.volume_attachment[0], INFO)
        # A page's attachments hold what a listed volume shows of them.
        self.assertIsNone(page.volume_attachment[0].connector)
        self.assertEqual(got.volume_attachment[0].id,
                         page.volume_attachment[0].id)
        self.assertEqual((), created.volume_attachment)
        alone = volume_db.volume_get(self.context, self.volume.id,
                                     children=False)
        self.assertIsInstance(alone, records.Volume)
        self.assertIsNone(alone.volume_attachment)
        updated = volume_db.volume_update(self.context, self.volume.id,
                                          {'name': 'n'})
        self.assertEqual('n', updated.name)
        self.assertDecoded(updated.volume_attachment[0], INFO)
