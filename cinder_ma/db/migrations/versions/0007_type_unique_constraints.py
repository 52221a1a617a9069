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

"""Unique volume type names, extra spec keys and type access entries,
aware of soft deletion.

Rows are soft-deleted (``deleted`` is a boolean), so a plain unique
constraint on the name would forbid re-creating a deleted type's name.
As oslo.db's soft-delete mixin does with ``deleted = id``, each of the
three tables gets a ``deleted_key`` column: ``'0'`` while the row is live,
the row's id once it is deleted; the unique indexes include it, so
live rows are unique and deleted ones never collide. Racing writers then
get one success and a duplicate-entry error (a 409), on every database.

Live duplicates that earlier races could make are soft-deleted first,
keeping the oldest row of each group.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

#: table: (id column, columns unique among live rows, constraint name)
TABLES = {
    'volume_types': ('id', ('name',), 'volume_types_name_uniq'),
    'volume_type_extra_specs': (
        'id', ('volume_type_id', 'key'), 'volume_type_extra_specs_key_uniq'),
    'volume_type_projects': (
        'id', ('volume_type_id', 'project_id'),
        'volume_type_projects_project_uniq'),
}


def _retire_live_duplicates(conn, table, id_column, columns):
    tbl = sa.table(table, sa.column(id_column), sa.column('created_at'),
                   sa.column('deleted'), sa.column('deleted_at'),
                   *[sa.column(c) for c in columns])
    keys = [tbl.c[c] for c in columns]
    groups = conn.execute(
        sa.select(*keys).where(tbl.c.deleted == sa.false())
        .group_by(*keys).having(sa.func.count() > 1)).all()
    for group in groups:
        match = [k == v for k, v in zip(keys, group)]
        ids = [row[0] for row in conn.execute(
            sa.select(tbl.c[id_column]).where(
                tbl.c.deleted == sa.false(), *match)
            .order_by(tbl.c.created_at, tbl.c[id_column]))]
        conn.execute(sa.update(tbl).where(tbl.c[id_column].in_(ids[1:]))
                     .values(deleted=True,
                             deleted_at=sa.func.current_timestamp()))


def upgrade():
    conn = op.get_bind()
    for table, (id_column, columns, name) in TABLES.items():
        _retire_live_duplicates(conn, table, id_column, columns)
        op.add_column(table, sa.Column('deleted_key', sa.String(36),
                                       nullable=False, server_default='0'))
        tbl = sa.table(table, sa.column(id_column), sa.column('deleted'),
                       sa.column('deleted_key'))
        conn.execute(sa.update(tbl).where(tbl.c.deleted == sa.true())
                     .values(deleted_key=sa.cast(tbl.c[id_column],
                                                 sa.String(36))))
        # A unique index: created in place on SQLite too (a constraint
        # would need the table copied, which its foreign keys refuse).
        op.create_index(name, table, list(columns) + ['deleted_key'],
                        unique=True)
