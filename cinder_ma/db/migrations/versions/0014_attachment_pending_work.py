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

"""The flow a manager runs on a consumer's attachment.

The attachments API's flows (connect, disconnect, terminate, fence,
reconnect, promote) run in the manager of the volume's backend, under a
work claim on the attachment. ``pending_work`` records, with the claim,
which flow and what undoing or finishing it needs (the consumer's
connector, for one): when the claim expires, the reconcile loop finishes
or reverts that flow from there. Existing attachments have none.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('volume_attachment') as batch:
        batch.add_column(sa.Column('pending_work', sa.Text))
