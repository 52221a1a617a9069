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
