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

"""Snapshots, their metadata, and the source a volume was made from.

A snapshot is a point-in-time copy of a volume, kept on the volume's
backend (its ``host`` is the volume's). Like a volume's, its transient
statuses (``creating``, ``deleting``, ``restoring``) are work a manager
claims (``claimed_by`` until ``claimed_until``) and the reconcile loop
finishes when its owner died. A volume records the snapshot
(``snapshot_id``) or the volume (``source_volid``) it was made from, so
that an interrupted create is run again from the same source.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'snapshots',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('user_id', sa.String(255)),
        sa.Column('volume_id', sa.String(36), sa.ForeignKey('volumes.id'),
                  nullable=False),
        sa.Column('volume_type_id', sa.String(36), nullable=False),
        sa.Column('volume_size', sa.Integer, nullable=False),
        sa.Column('name', sa.String(255)),
        sa.Column('description', sa.String(255)),
        sa.Column('status', sa.String(255), nullable=False),
        sa.Column('progress', sa.String(255)),
        sa.Column('error_reason', sa.Text),
        sa.Column('claimed_by', sa.String(80)),
        sa.Column('claimed_until', sa.DateTime),
        sa.Column('deleted_at', sa.DateTime),
        sa.Column('deleted', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        # To the microsecond on MariaDB too: the latest snapshot of a
        # volume is found by it.
        sa.Column('created_at', sa.DateTime().with_variant(
            mysql.DATETIME(fsp=6), 'mysql')),
        sa.Column('updated_at', sa.DateTime),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('snapshots_project_created_idx', 'snapshots',
                    ['project_id', 'deleted', 'created_at', 'id'])
    op.create_index('snapshots_volume_idx', 'snapshots',
                    ['volume_id', 'deleted', 'created_at'])
    op.create_index('snapshots_status_idx', 'snapshots', ['status'])
    op.create_table(
        'snapshot_metadata',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('snapshot_id', sa.String(36),
                  sa.ForeignKey('snapshots.id'), nullable=False),
        sa.Column('key', sa.String(255), nullable=False),
        sa.Column('value', sa.String(255)),
        sa.Column('deleted_at', sa.DateTime),
        sa.Column('deleted', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('snapshot_metadata_snapshot_id_idx', 'snapshot_metadata',
                    ['snapshot_id', 'key'])
    with op.batch_alter_table('volumes') as batch:
        batch.add_column(sa.Column('snapshot_id', sa.String(36)))
        batch.add_column(sa.Column('source_volid', sa.String(36)))
