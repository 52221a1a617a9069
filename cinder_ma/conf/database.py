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
