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

"""Initial schema: volumes, attachments, types, extra specs, services.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from alembic import op
import sqlalchemy as sa

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def _common():
    return [
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('deleted_at', sa.DateTime),
        sa.Column('deleted', sa.Boolean, nullable=False,
                  server_default=sa.false()),
    ]


def upgrade():
    op.create_table(
        'volume_types',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('description', sa.String(255)),
        sa.Column('is_public', sa.Boolean, nullable=False,
                  server_default=sa.true()),
        *_common(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('volume_types_name_idx', 'volume_types', ['name'])

    op.create_table(
        'volume_type_extra_specs',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('volume_type_id', sa.String(36),
                  sa.ForeignKey('volume_types.id'), nullable=False),
        sa.Column('key', sa.String(255), nullable=False),
        sa.Column('value', sa.String(255)),
        *_common(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('volume_type_extra_specs_type_key_idx',
                    'volume_type_extra_specs', ['volume_type_id', 'key'])

    op.create_table(
        'volumes',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('user_id', sa.String(255)),
        sa.Column('name', sa.String(255)),
        sa.Column('description', sa.String(255)),
        sa.Column('size', sa.Integer, nullable=False),
        sa.Column('status', sa.String(255), nullable=False),
        sa.Column('error_reason', sa.Text),
        sa.Column('host', sa.String(255)),
        sa.Column('availability_zone', sa.String(255)),
        sa.Column('volume_type_id', sa.String(36),
                  sa.ForeignKey('volume_types.id'), nullable=False),
        sa.Column('multiattach', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('bootable', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('encrypted', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('shared_targets', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('service_uuid', sa.String(36)),
        sa.Column('attach_count', sa.Integer, nullable=False,
                  server_default='0'),
        sa.Column('reserved_instance_uuid', sa.String(36)),
        *_common(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('volumes_project_id_idx', 'volumes',
                    ['project_id', 'deleted'])
    op.create_index('volumes_host_idx', 'volumes', ['host'])

    op.create_table(
        'volume_metadata',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('volume_id', sa.String(36), sa.ForeignKey('volumes.id'),
                  nullable=False),
        sa.Column('key', sa.String(255), nullable=False),
        sa.Column('value', sa.String(255)),
        *_common(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('volume_metadata_volume_id_idx', 'volume_metadata',
                    ['volume_id', 'key'])

    op.create_table(
        'volume_attachment',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('volume_id', sa.String(36), sa.ForeignKey('volumes.id'),
                  nullable=False),
        sa.Column('instance_uuid', sa.String(36)),
        sa.Column('attached_host', sa.String(255)),
        sa.Column('manager_host', sa.String(255)),
        sa.Column('mountpoint', sa.String(255)),
        sa.Column('connector', sa.Text),
        sa.Column('connection_info', sa.Text),
        sa.Column('attach_mode', sa.String(2), nullable=False,
                  server_default='rw'),
        sa.Column('attach_status', sa.String(255), nullable=False),
        sa.Column('attach_time', sa.DateTime),
        sa.Column('detach_time', sa.DateTime),
        *_common(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('volume_attachment_volume_id_idx', 'volume_attachment',
                    ['volume_id', 'deleted'])
    op.create_index('volume_attachment_instance_idx', 'volume_attachment',
                    ['instance_uuid'])

    op.create_table(
        'services',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('uuid', sa.String(36), nullable=False, unique=True),
        sa.Column('host', sa.String(255), nullable=False),
        sa.Column('binary', sa.String(255), nullable=False),
        sa.Column('topic', sa.String(255), nullable=False),
        sa.Column('availability_zone', sa.String(255)),
        sa.Column('disabled', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.Column('disabled_reason', sa.String(255)),
        sa.Column('heartbeat_at', sa.DateTime),
        sa.Column('capabilities', sa.Text),
        *_common(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('services_host_binary_idx', 'services',
                    ['host', 'binary'])
