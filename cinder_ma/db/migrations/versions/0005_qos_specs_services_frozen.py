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

"""QoS specs, the QoS specs of a volume type, frozen backends.

``quality_of_service_specs`` holds QoS specs as Cinder does (a root row
per specs named by its value, one row per key below it);
``volume_types.qos_specs_id`` is the specs a type is associated with;
``services.frozen`` marks a backend frozen by ``os-services/freeze``.

Revision ID: 0005
Revises: 0003
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'quality_of_service_specs',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('specs_id', sa.String(36),
                  sa.ForeignKey('quality_of_service_specs.id')),
        sa.Column('key', sa.String(255)),
        sa.Column('value', sa.String(255)),
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('deleted_at', sa.DateTime),
        sa.Column('deleted', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('quality_of_service_specs_specs_id_idx',
                    'quality_of_service_specs', ['specs_id'])
    # No foreign key: SQLite could add it only by copying volume_types,
    # which the volumes' foreign keys forbid; the QoS specs API checks
    # the specs exist, and deleting them clears the column first.
    op.add_column('volume_types', sa.Column('qos_specs_id', sa.String(36)))
    op.add_column('services', sa.Column('frozen', sa.Boolean,
                                        nullable=False,
                                        server_default=sa.false()))
