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

"""An index for the default order of volume lists.

A project's volumes are listed newest first (``created_at`` then ``id``,
descending). With an index on the project, ``deleted`` and these keys the
database reads a page in index order and stops at the page's end, instead
of sorting all the project's volumes for every page. It replaces the index
on the project and ``deleted`` alone, of which it is an extension.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21
"""

from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('volumes_project_created_idx', 'volumes',
                    ['project_id', 'deleted', 'created_at', 'id'])
    op.drop_index('volumes_project_id_idx', table_name='volumes')
