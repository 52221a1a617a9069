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

"""A volume's live attachments in the order they were made, from the
index.

The index of attachments by volume (``volume_id``, ``deleted``) gains
``created_at``: the live attachments of a page of volumes are read in
that order (oldest first for each volume), which the database then takes
from the index instead of sorting them. The new index is created before
the old one is dropped: MySQL keeps an index on the foreign key
``volume_id`` at every moment.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25
"""

from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('volume_attachment_volume_order_idx',
                    'volume_attachment',
                    ['volume_id', 'deleted', 'created_at'])
    op.drop_index('volume_attachment_volume_id_idx',
                  table_name='volume_attachment')
