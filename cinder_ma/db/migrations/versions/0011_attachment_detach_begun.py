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

"""When a consumer began detaching an attachment (os-begin_detaching).

Cinder's ``os-begin_detaching`` marks the volume ``detaching`` and leaves
its attachments ``attached`` until the consumer deletes one (or rolls the
mark back with ``os-roll_detaching``). cinder_ma records the mark on the
attachment the consumer is detaching (``detach_begun_at``), which stays
``attached``: the ``detaching`` attachment status keeps its one meaning,
an attachment cinder_ma is deleting (work the reconcile loop finishes).
Existing attachments have no mark.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('volume_attachment') as batch:
        batch.add_column(sa.Column('detach_begun_at', sa.DateTime))
