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

"""Claims on in-flight work, an attachment's failure reason and the size
an extend grows a volume to.

A volume in a transient status (creating, deleting, extending) and an
attachment in one (reserved, attaching, detaching through a manager) are
work that must be finished. The process running that work claims the row
(``claimed_by``) until ``claimed_until``, which it renews while it lives;
a manager's reconcile loop takes over work whose claim expired (see
docs/admin/operations.rst). ``target_size`` records an extend's intent,
so that an interrupted extend can be finished; ``error_reason`` of an
attachment is why its last step failed.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('volumes') as batch:
        batch.add_column(sa.Column('claimed_by', sa.String(80)))
        batch.add_column(sa.Column('claimed_until', sa.DateTime))
        batch.add_column(sa.Column('target_size', sa.Integer))
    with op.batch_alter_table('volume_attachment') as batch:
        batch.add_column(sa.Column('claimed_by', sa.String(80)))
        batch.add_column(sa.Column('claimed_until', sa.DateTime))
        batch.add_column(sa.Column('error_reason', sa.Text))
    op.create_index('volumes_status_idx', 'volumes', ['status'])
    op.create_index('volume_attachment_status_idx', 'volume_attachment',
                    ['attach_status'])
