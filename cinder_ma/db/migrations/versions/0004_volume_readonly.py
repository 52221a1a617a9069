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

"""The read-only flag of volumes (os-update_readonly_flag).

A read-only volume's attachments are ``ro`` whatever mode is asked.
Cinder keeps the flag as the admin metadata ``readonly``; cinder_ma keeps
it on the volume row, which every reservation already locks and reads.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade():
    # A plain ADD COLUMN (with its default) on every database, SQLite
    # included: no table copy.
    op.add_column('volumes', sa.Column('readonly', sa.Boolean,
                                       nullable=False,
                                       server_default=sa.false()))
