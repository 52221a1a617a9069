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

"""Quotas: project limits, quota classes and usage counters.

``quotas`` and ``quota_classes`` hold limits set through the API (a
missing row falls back to the class, then to the options);
``quota_usages`` holds one counter per project and resource, changed in
the transaction of each volume change. Usage rows are created on first
use from the volumes present, so volumes made before this revision are
counted without a data migration.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def _timestamps():
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade():
    op.create_table(
        'quotas',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('resource', sa.String(300), nullable=False),
        sa.Column('hard_limit', sa.Integer, nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('project_id', 'resource',
                            name='uniq_quotas0project_id0resource'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_table(
        'quota_classes',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('class_name', sa.String(255), nullable=False),
        sa.Column('resource', sa.String(300), nullable=False),
        sa.Column('hard_limit', sa.Integer, nullable=False),
        *_timestamps(),
        sa.UniqueConstraint('class_name', 'resource',
                            name='uniq_quota_classes0class_name0resource'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_table(
        'quota_usages',
        sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('resource', sa.String(300), nullable=False),
        sa.Column('in_use', sa.Integer, nullable=False,
                  server_default='0'),
        *_timestamps(),
        sa.UniqueConstraint('project_id', 'resource',
                            name='uniq_quota_usages0project_id0resource'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
