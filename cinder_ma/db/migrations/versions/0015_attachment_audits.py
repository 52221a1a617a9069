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

"""The results of ``cinder-ma-manage attachment audit``.

Each run of the audit records when it ran, on which host, how many hosts
it audited and its findings, which administrators read through the
``cinder-ma-audit`` extension (``GET /v3/{project_id}/cinder-ma-audits``).
The table is new: nothing to move.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'attachment_audits',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('host', sa.String(255), nullable=False),
        sa.Column('hosts_audited', sa.Integer, nullable=False),
        sa.Column('findings_count', sa.Integer, nullable=False),
        sa.Column('findings', sa.Text, nullable=False),
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('deleted_at', sa.DateTime),
        sa.Column('deleted', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('attachment_audits_created_idx', 'attachment_audits',
                    ['created_at', 'id'])
