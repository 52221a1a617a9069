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

"""Fencing of attachments: a generation and when it was fenced.

An attachment's ``generation`` counts the connections it was given: 1 for
its first, one more each time it is connected again with new credentials
(reconnected after being fenced, or promoted from standby to writer).
``fenced_at`` is set when its access was revoked at the target (fencing,
or the writer a promotion replaced) and cleared when it is connected
again; while it is set, the attachment holds no usable connection.
Existing attachments are at generation 1, not fenced.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('volume_attachment') as batch:
        batch.add_column(sa.Column('generation', sa.Integer, nullable=False,
                                   server_default='1'))
        batch.add_column(sa.Column('fenced_at', sa.DateTime))
