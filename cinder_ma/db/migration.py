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

"""Alembic migrations, driven programmatically (no alembic.ini needed)."""

import os

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration

from cinder_ma.db import api as db_api

_MIGRATIONS = os.path.join(os.path.dirname(__file__), 'migrations')


def _config(engine=None):
    config = alembic_config.Config()
    config.set_main_option('script_location', _MIGRATIONS)
    config.attributes['engine'] = engine or db_api.get_engine()
    return config


def upgrade(revision='head', engine=None):
    """Migrate the database to ``revision`` (default: the newest)."""
    alembic_command.upgrade(_config(engine), revision)


def version(engine=None):
    """The database's current revision, or None before the first sync."""
    engine = engine or db_api.get_engine()
    with engine.connect() as conn:
        return alembic_migration.MigrationContext.configure(
            conn).get_current_revision()


def head():
    """The newest revision the migrations know."""
    from alembic import script as alembic_script

    return alembic_script.ScriptDirectory.from_config(
        _config(engine=object())).get_current_head()
