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

"""Database options: oslo.db's ``[database]`` group with our default."""

from oslo_config import cfg
from oslo_db import options as db_options

_DEFAULT_CONNECTION = 'sqlite:///$state_path/cinder-ma.sqlite'

opts = [
    cfg.IntOpt('sqlite_busy_timeout',
               default=30000, min=0,
               help='Milliseconds an SQLite connection waits for a lock '
                    'held by another writer before giving up.'),
]


def register_opts(conf):
    db_options.set_defaults(conf, connection=_DEFAULT_CONNECTION)
    conf.register_opts(opts, group='database')


def list_opts():
    return {'database': opts}
