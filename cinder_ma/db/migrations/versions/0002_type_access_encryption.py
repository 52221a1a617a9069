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

"""Private volume type access and volume type encryption.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from alembic import op
import sqlalchemy as sa

revision = '0002'
down_revision = '0001'
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
        'volume_type_projects',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('volume_type_id', sa.String(36),
                  sa.ForeignKey('volume_types.id'), nullable=False),
        sa.Column('project_id', sa.String(255), nullable=False),
        *_common(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('volume_type_projects_type_project_idx',
                    'volume_type_projects', ['volume_type_id', 'project_id'])

    op.create_table(
        'encryption',
        sa.Column('encryption_id', sa.String(36), primary_key=True),
        sa.Column('volume_type_id', sa.String(36),
                  sa.ForeignKey('volume_types.id'), nullable=False),
        sa.Column('provider', sa.String(255), nullable=False),
        sa.Column('cipher', sa.String(255)),
        sa.Column('key_size', sa.Integer),
        sa.Column('control_location', sa.String(255), nullable=False),
        *_common(),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('encryption_volume_type_id_idx', 'encryption',
                    ['volume_type_id'])
