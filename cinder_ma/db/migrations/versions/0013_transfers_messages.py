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

"""User messages and volume transfers: Cinder's ``messages`` and
``transfers`` tables.

A message is an asynchronous failure told to its project, stored as ids
(event, action, detail) and kept until ``expires_at``. A transfer offers
a volume to the holder of its authorization key, of which only a salted
hash is stored. Both are new: nothing to move.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def _common():
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime),
            sa.Column('deleted_at', sa.DateTime),
            sa.Column('deleted', sa.Boolean, nullable=False,
                      server_default=sa.false())]


def upgrade():
    op.create_table(
        'messages',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('request_id', sa.String(255)),
        sa.Column('resource_type', sa.String(36)),
        sa.Column('resource_uuid', sa.String(255)),
        sa.Column('event_id', sa.String(255), nullable=False),
        sa.Column('action_id', sa.String(10)),
        sa.Column('detail_id', sa.String(10)),
        sa.Column('message_level', sa.String(255), nullable=False),
        sa.Column('expires_at', sa.DateTime),
        *_common(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('messages_project_created_idx', 'messages',
                    ['project_id', 'deleted', 'created_at', 'id'])
    op.create_index('messages_expires_at_idx', 'messages', ['expires_at'])
    op.create_table(
        'transfers',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('volume_id', sa.String(36), sa.ForeignKey('volumes.id'),
                  nullable=False),
        sa.Column('display_name', sa.String(255)),
        sa.Column('salt', sa.String(255)),
        sa.Column('crypt_hash', sa.String(255)),
        sa.Column('expires_at', sa.DateTime),
        sa.Column('no_snapshots', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('source_project_id', sa.String(255)),
        sa.Column('destination_project_id', sa.String(255)),
        sa.Column('accepted', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        *_common(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('transfers_volume_id_idx', 'transfers', ['volume_id'])
    op.create_index('transfers_project_created_idx', 'transfers',
                    ['source_project_id', 'deleted', 'created_at', 'id'])
