"""cinder-ma-manage: administration of a cinder_ma deployment.

::

    cinder-ma-manage [--config-file FILE] db sync
    cinder-ma-manage db version
    cinder-ma-manage service list

Exit status 0 on success, 1 when the command failed (with a message on
standard error), 2 for a command line that cannot be parsed.
"""

import os
import sys

from oslo_config import cfg
from oslo_db import exception as db_exception
from oslo_log import log as logging

from cinder_ma import cmd
from cinder_ma import context
from cinder_ma.db import api as db_api
from cinder_ma.db import migration

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

PROG = 'cinder-ma-manage'


def _print_table(headers, rows, out=None):
    out = out or sys.stdout
    rows = [['-' if v is None else str(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows])
              for i, h in enumerate(headers)]
    line = '+%s+' % '+'.join('-' * (w + 2) for w in widths)

    def fmt(values):
        return '| %s |' % ' | '.join(
            v.ljust(w) for v, w in zip(values, widths))

    print(line, file=out)
    print(fmt(headers), file=out)
    print(line, file=out)
    for row in rows:
        print(fmt(row), file=out)
    print(line, file=out)


class DbCommands:
    """Database schema."""

    def sync(self):
        """Migrate the database to the newest schema and create the
        default volume type if missing.
        """
        from cinder_ma.volume import types

        if CONF.database.connection.startswith('sqlite'):
            os.makedirs(os.path.abspath(CONF.state_path), exist_ok=True)
        migration.upgrade('head')
        vtype = types.ensure_default_type(context.get_admin_context())
        print('Database at revision %s; default volume type %s (%s)' % (
            migration.version(), vtype.name, vtype.id))

    def version(self):
        """Print the database's schema revision."""
        print(migration.version() or 'None (run "%s db sync")' % PROG)


class ServiceCommands:
    """Services registered by the managers."""

    def list(self):
        """List services: host, binary, zone, status, state, updated."""
        services = db_api.service_get_all(context.get_admin_context())
        rows = []
        for svc in services:
            updated = svc.heartbeat_at or svc.updated_at or svc.created_at
            rows.append([
                svc.host, svc.binary, svc.availability_zone,
                'disabled' if svc.disabled else 'enabled',
                'up' if db_api.service_is_up(svc) else 'down',
                updated.isoformat(sep=' ', timespec='seconds')
                if updated else None])
        _print_table(['Host', 'Binary', 'Zone', 'Status', 'State',
                      'Updated'], rows)


CATEGORIES = {
    'db': (DbCommands, ('sync', 'version')),
    'service': (ServiceCommands, ('list',)),
}


def _first_line(doc):
    return (doc or '').strip().split('\n')[0]


def add_command_parsers(subparsers):
    for category, (cls, actions) in CATEGORIES.items():
        commands = cls()
        parser = subparsers.add_parser(category,
                                       help=_first_line(cls.__doc__))
        action_parsers = parser.add_subparsers(
            dest='action', metavar='<action>')
        action_parsers.required = True
        for action in actions:
            func = getattr(commands, action)
            sub = action_parsers.add_parser(action,
                                            help=_first_line(func.__doc__))
            sub.set_defaults(action_fn=func)


category_opt = cfg.SubCommandOpt('category',
                                 title='Command categories',
                                 help='Available categories',
                                 handler=add_command_parsers)


def main(argv=None):
    """Run the command; returns the exit status."""
    try:
        return _run(argv)
    finally:
        # The sub-command is a required command line option of the global
        # CONF: take it away again for whatever parses CONF next in this
        # process (tests).
        CONF.clear()
        CONF.unregister_opt(category_opt)


def _run(argv):
    try:
        cmd.prepare_service(argv, cli_opts=[category_opt])
    except SystemExit as exc:
        # argparse: --help, --version or a bad command line.
        return exc.code
    except cfg.Error as exc:
        print('%s: error: %s' % (PROG, exc), file=sys.stderr)
        return 2
    action = CONF.category.action_fn
    try:
        action()
    except Exception as exc:
        LOG.debug('%s %s failed', CONF.category.name, CONF.category.action,
                  exc_info=True)
        print('%s: error: %s %s failed: %s' % (
            PROG, CONF.category.name, CONF.category.action,
            _describe(exc)), file=sys.stderr)
        return 1
    return 0


def _describe(exc):
    """A short message for an error, with a hint for database errors."""
    if isinstance(exc, db_exception.DBError):
        inner = getattr(exc, 'inner_exception', None) or exc
        first = str(getattr(inner, 'orig', None) or inner).split('\n')[0]
        return ('%s (check [database] connection, and run "%s db sync" '
                'before other commands)' % (first, PROG))
    return str(exc)


if __name__ == '__main__':
    sys.exit(main())
