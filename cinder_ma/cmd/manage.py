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

"""cinder-ma-manage: administration of a cinder_ma deployment.

::

    cinder-ma-manage [--config-file FILE] db sync
    cinder-ma-manage db version
    cinder-ma-manage db purge --before YYYY-MM-DD[THH:MM:SS]
    cinder-ma-manage service list
    cinder-ma-manage volume check [--older-than SECONDS]
    cinder-ma-manage attachment audit
    cinder-ma-manage attachment detach ATTACHMENT_ID
    cinder-ma-manage message purge
    cinder-ma-manage nbd credentials BACKEND HOST DIRECTORY

Exit status 0 on success, 1 when the command failed (with a message on
standard error), 2 for a command line that cannot be parsed; ``volume
check`` and ``attachment audit`` exit 3 when they found something.
"""

import contextlib
import datetime
import os
import sys

from oslo_config import cfg
from oslo_db import exception as db_exception
from oslo_log import log as logging
from oslo_utils import timeutils

from cinder_ma import cmd
from cinder_ma import context
from cinder_ma.db import audits as audit_db
from cinder_ma.db import maintenance
from cinder_ma.db import messages as message_db
from cinder_ma.db import migration
from cinder_ma.db import services as service_db
from cinder_ma import exception

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

PROG = 'cinder-ma-manage'

#: Exit status of a check that found something to look at.
FOUND = 3


def args(*arg_args, **arg_kwargs):
    """Declare a command line argument of an action (argparse's
    add_argument); its value is passed as the keyword ``dest``."""
    def decorate(func):
        func.__dict__.setdefault('args', []).insert(0, (arg_args,
                                                        arg_kwargs))
        return func
    return decorate


def _datetime(text):
    try:
        value = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError('%r is not a date (YYYY-MM-DD[THH:MM:SS])' % text)
    if value.tzinfo is not None:
        value = timeutils.normalize_time(value)
    return value


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

    @args('--before', required=True, metavar='DATE', type=_datetime,
          help='purge rows deleted before this UTC date and time '
               '(YYYY-MM-DD[THH:MM:SS])')
    def purge(self, before):
        """Delete the rows soft-deleted before a date."""
        if before > timeutils.utcnow():
            raise ValueError('--before %s is in the future' % before)
        counts = maintenance.purge_deleted_rows(
            context.get_admin_context(), before)
        _print_table(['Table', 'Purged'], sorted(counts.items()))


class ServiceCommands:
    """Services registered by the managers."""

    def list(self):
        """List services: host, binary, zone, status, state, updated."""
        services = service_db.service_get_all(context.get_admin_context())
        rows = []
        for svc in services:
            updated = svc.heartbeat_at or svc.updated_at or svc.created_at
            rows.append([
                svc.host, svc.binary, svc.availability_zone,
                'disabled' if svc.disabled else 'enabled',
                'up' if service_db.service_is_up(svc) else 'down',
                updated.isoformat(sep=' ', timespec='seconds')
                if updated else None])
        _print_table(['Host', 'Binary', 'Zone', 'Status', 'State',
                      'Updated'], rows)


def _age(when):
    if when is None:
        return None
    return '%ds' % (timeutils.utcnow() - when).total_seconds()


class VolumeCommands:
    """Volumes: find what is stuck or inconsistent."""

    @args('--older-than', dest='older_than', type=int, default=300,
          metavar='SECONDS',
          help='a transitional status older than this is stuck '
               '(default: %(default)s)')
    def check(self, older_than):
        """List stuck volumes and attachments (transitional statuses
        older than --older-than) and volumes whose status or attachment
        count disagrees with their attachments."""
        ctxt = context.get_admin_context()
        volumes, attachments = maintenance.stuck(ctxt, older_than)
        wrong = maintenance.inconsistent(ctxt)
        rows = [['volume', v.id, v.status, v.host, _age(v.updated_at),
                 'stuck'] for v in volumes]
        rows += [['attachment', a.id, a.status, a.host, _age(a.updated_at),
                  'stuck (volume %s)' % a.volume_id] for a in attachments]
        for v in wrong:
            problems = []
            if v.status != v.expected and (
                    v.status in maintenance.vstatus.ATTACHABLE_STATUSES):
                problems.append('its attachments give %s' % v.expected)
            if v.attach_count != v.live:
                problems.append('attach_count %d, %d live attachments' % (
                    v.attach_count, v.live))
            rows.append(['volume', v.id, v.status, None, None,
                         '; '.join(problems)])
        if not rows:
            print('Nothing stuck or inconsistent.')
            return 0
        _print_table(['Kind', 'Id', 'Status', 'Host', 'Age', 'Problem'],
                     rows)
        return FOUND


@contextlib.contextmanager
def _managers():
    """RPC to the managers; with ``rpc_transport = local`` (cinder-ma-all)
    the manager of this host runs in this process for the command's
    duration (its connection locks are the coordination backend's, shared
    with the service's workers)."""
    from cinder_ma.manager import service as manager_service
    from cinder_ma import rpc

    rpc.init(CONF)
    local = None
    try:
        if rpc.is_local():
            local = manager_service.ManagerService()
            local.start()
        yield
    finally:
        if local is not None:
            local.stop()
        rpc.cleanup()


def _connector_host(attachment):
    connector = attachment.connector
    if isinstance(connector, dict):
        return connector.get('host')
    return None


#: Attachment statuses that should hold a backend connection and a disk.
_CONNECTED = ('attached',)


def audit(ctxt, reports):
    """Problems found by comparing the live attachments with what the
    managers report (``reports``: {host: list_connections() or an error
    string}).

    :returns: rows (kind, id, host, problem).
    """
    rows = []
    # {(node@backend, volume id, connector host): attachments}: each
    # backend of a node is compared with its own volumes' attachments. A
    # fenced attachment holds no connection: its fence ended it.
    expected_connections = {}
    expected_disks = {}
    live = {}
    for att, volume_host in maintenance.live_attachments(ctxt):
        live[att.id] = att
        backend_host = volume_host.split('#', 1)[0] if volume_host else None
        conn_host = _connector_host(att)
        if conn_host and backend_host and att.fenced_at is None:
            expected_connections.setdefault(
                (backend_host, att.volume_id, conn_host), []).append(att)
        if att.manager_host:
            expected_disks.setdefault(att.manager_host, {})[att.id] = att
    for host, report in sorted(reports.items()):
        if isinstance(report, str):
            rows.append(['host', host, host, 'not audited: %s' % report])
            continue
        for backend, conns in sorted(report['backends'].items()):
            if conns is None or isinstance(conns, str):
                rows.append(['backend', '%s@%s' % (host, backend), host,
                             'not audited: %s' % (
                                 conns or 'the driver cannot list its '
                                 'connections')])
                continue
            backend_host = '%s@%s' % (host, backend)
            held = set()
            for conn in conns:
                problem = _attachment_connection_problem(conn, live)
                if problem:
                    rows.append(['connection', conn['volume_id'],
                                 conn['host'], '%s on %s' % (
                                     problem, backend_host)])
                else:
                    held.add((backend_host, conn['volume_id'],
                              conn['host']))
            for key, atts in sorted(expected_connections.items()):
                if key[0] != backend_host:
                    continue
                for att in atts:
                    if (att.attach_status in _CONNECTED and
                            key not in held):
                        rows.append(['attachment', att.id, key[2],
                                     'no connection on backend %s@%s' % (
                                         host, backend)])
            for key in sorted(held - set(expected_connections)):
                rows.append(['connection', key[1], key[2],
                             'connected on %s@%s but no live attachment '
                             'uses it' % (host, backend)])
        disks = report['hypervisor']
        if disks is None:
            if expected_disks.get(host):
                rows.append(['host', host, host, 'not audited: no '
                             'hypervisor driver or it cannot list disks'])
            continue
        if isinstance(disks, str):
            rows.append(['host', host, host, 'not audited: %s' % disks])
            continue
        plugged = {d['attachment_id']: d for d in disks}
        for att_id, att in sorted(expected_disks.get(host, {}).items()):
            if att.attach_status in _CONNECTED and att_id not in plugged:
                rows.append(['attachment', att_id, host,
                             'not attached to instance %s on the '
                             'hypervisor' % att.instance_uuid])
        for att_id, disk in sorted(plugged.items()):
            if att_id not in expected_disks.get(host, {}):
                rows.append(['disk', att_id, host,
                             'attached to instance %s but no live '
                             'attachment has this id' %
                             disk.get('instance_uuid')])
    return rows


def _attachment_connection_problem(conn, live):
    """What is wrong with a backend's connection of one attachment (one
    that names its ``attachment_id``: backends with
    ``per_attachment_connections``), given the ``live`` attachments by
    id, or None (and None for a host's connection)."""
    attachment_id = conn.get('attachment_id')
    if attachment_id is None:
        return None
    att = live.get(attachment_id)
    if att is None or att.volume_id != conn['volume_id']:
        return ('connection of attachment %s, which is not a live '
                'attachment of the volume' % attachment_id)
    if att.fenced_at is not None:
        return 'connection of attachment %s, which is fenced' % (
            attachment_id)
    return None


def _count(number, noun):
    """'1 host', '2 hosts'."""
    return '%d %s%s' % (number, noun, '' if number == 1 else 's')


def external_hosts(ctxt):
    """The hosts of external consumers (Nova's compute hosts, anything
    that connects through the attachments API without a cinder_ma
    manager): no manager can tell which disks they hold.

    :returns: ``[(host, number of live attachments)]``, sorted.
    """
    counts = {}
    for att, _volume_host in maintenance.live_attachments(ctxt):
        host = _connector_host(att)
        if host and not att.manager_host:
            counts[host] = counts.get(host, 0) + 1
    return sorted(counts.items())


def _record_audit(ctxt, hosts_audited, rows):
    """Record the audit's result for the ``cinder-ma-audit`` API (a
    failure to record it is logged: the audit printed it anyway)."""
    try:
        audit_db.audit_create(ctxt, CONF.host, hosts_audited, rows)
    except Exception:
        LOG.exception('Could not record the result of the attachment '
                      'audit (%d findings)', len(rows))
        return
    LOG.info('Recorded the attachment audit of %s: %s', _count(
        hosts_audited, 'host'), _count(len(rows), 'finding'))


class AttachmentCommands:
    """Attachments: audit them against the hosts, detach one."""

    def audit(self):
        """Compare every live attachment with its backend's connections
        and its host's hypervisor: attachments without a connection or
        disk, connections and disks that no attachment accounts for.
        The result is recorded (administrators read the newest through
        GET /v3/{project_id}/cinder-ma-audits)."""
        from cinder_ma.manager import rpcapi

        ctxt = context.get_admin_context()
        api = rpcapi.ManagerAPI()
        reports = {}
        with _managers():
            for svc in service_db.service_get_all(
                    ctxt, filters={'binary': 'cinder-ma-manager'}):
                if not service_db.service_is_up(svc):
                    reports[svc.host] = 'the manager is down'
                    continue
                try:
                    reports[svc.host] = api.list_connections(ctxt, svc.host)
                except exception.CinderMAException as exc:
                    reports[svc.host] = str(exc)
                except Exception as exc:
                    reports[svc.host] = 'no answer: %s' % exc
        rows = audit(ctxt, reports)
        _record_audit(ctxt, len(reports), rows)
        if not rows:
            print('Every attachment of %s checked out.' %
                  _count(len(reports), 'host'))
        else:
            _print_table(['Kind', 'Id', 'Host', 'Problem'], rows)
        unchecked = external_hosts(ctxt)
        if unchecked:
            print('Not checked on their hosts (no cinder_ma manager runs '
                  'there; their connections were checked on the '
                  'backends): the disks of the external consumers on %s.'
                  % ', '.join('%s (%s)' % (host, _count(number,
                                                        'attachment'))
                              for host, number in unchecked))
        return FOUND if rows else 0

    @args('attachment_id', metavar='ATTACHMENT_ID',
          help='the attachment to detach')
    def detach(self, attachment_id):
        """Detach one attachment through its host (hypervisor detach,
        disconnect, terminate the connection) and delete it; the other
        attachments of a shared volume are left alone."""
        from cinder_ma.volume import attachments as volume_attachments

        ctxt = context.get_admin_context()
        with _managers():
            volume_attachments.delete_attachment(ctxt, attachment_id,
                                                 force=True, wait=True)
        print('Detached and deleted attachment %s' % attachment_id)


class MessageCommands:
    """User messages."""

    def purge(self):
        """Delete the user messages past their guaranteed_until
        (``[message] message_ttl`` after they were recorded).
        """
        count = message_db.message_purge_expired(
            context.get_admin_context())
        LOG.info('Purged %d expired user messages', count)
        print('Purged %d expired user messages' % count)


class NbdCommands:
    """The X.509 credentials of compute hosts for nbd backends' exports."""

    @args('backend', metavar='BACKEND',
          help='an nbd backend of this storage host (a section named in '
               'enabled_backends)')
    @args('compute_host', metavar='HOST',
          help='the compute host, named as its manager names itself '
               '([DEFAULT] host)')
    @args('directory', metavar='DIRECTORY',
          help='where to write ca-cert.pem, client-cert.pem and '
               'client-key.pem (made, mode 0700)')
    def credentials(self, backend, compute_host, directory):
        """Write a compute host's X.509 client credentials for the exports
        of an nbd backend (issued by the backend's CA when the host has
        none yet): the files its libvirt's nbd_tls_x509_cert_dir must
        hold.
        """
        import shutil

        from cinder_ma.conf import backend as backend_conf
        from cinder_ma.volume.drivers import nbd
        from cinder_ma.volume.drivers import nbd_x509

        if backend not in CONF.enabled_backends:
            raise ValueError('%s is not in enabled_backends (%s)' % (
                backend, ', '.join(CONF.enabled_backends) or 'empty'))
        config = backend_conf.BackendConfig(CONF, backend,
                                            nbd.NBDDriver.get_driver_options())
        if config.volume_driver != 'nbd':
            raise ValueError('backend %s runs the %s driver, not nbd' % (
                backend, config.volume_driver))
        authority = nbd.x509_authority(config)
        authority.setup()
        host = compute_host
        authority.ensure_host(host)
        source = authority.client_dir(host)
        os.makedirs(directory, mode=0o700, exist_ok=True)
        for name in (nbd_x509.CA_CERT, nbd_x509.CLIENT_CERT,
                     nbd_x509.CLIENT_KEY):
            target = os.path.join(directory, name)
            shutil.copyfile(os.path.join(source, name), target)
            os.chmod(target, 0o600 if name == nbd_x509.CLIENT_KEY else 0o644)
        print('Wrote the credentials of host %s for backend %s to %s: '
              'copy them to the nbd_tls_x509_cert_dir of its libvirt '
              '(qemu.conf), readable by the user QEMU runs as.' % (
                  host, backend, directory))


CATEGORIES = {
    'db': (DbCommands, ('sync', 'version', 'purge')),
    'service': (ServiceCommands, ('list',)),
    'volume': (VolumeCommands, ('check',)),
    'attachment': (AttachmentCommands, ('audit', 'detach')),
    'message': (MessageCommands, ('purge',)),
    'nbd': (NbdCommands, ('credentials',)),
}


def _summary(doc):
    """The first sentence of a docstring, whatever its line breaks: the
    help of a command (argparse shows it on one line)."""
    paragraph = ' '.join((doc or '').strip().split('\n\n')[0].split())
    sentence, _sep, _rest = paragraph.partition('. ')
    return sentence.rstrip('.')


def add_command_parsers(subparsers):
    for category, (cls, actions) in CATEGORIES.items():
        commands = cls()
        parser = subparsers.add_parser(category,
                                       help=_summary(cls.__doc__))
        action_parsers = parser.add_subparsers(
            dest='action', metavar='<action>')
        action_parsers.required = True
        for action in actions:
            func = getattr(commands, action)
            sub = action_parsers.add_parser(action,
                                            help=_summary(func.__doc__))
            for arg_args, arg_kwargs in getattr(func, 'args', ()):
                sub.add_argument(*arg_args, **arg_kwargs)
            sub.set_defaults(action_fn=func, action_args=[
                arg_kwargs.get('dest') or arg_args[0].lstrip('-')
                .replace('-', '_')
                for arg_args, arg_kwargs in getattr(func, 'args', ())])


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
    argv = cmd.find_all_in_one(sys.argv if argv is None else argv)
    try:
        cmd.prepare_service(argv, cli_opts=[category_opt])
    except SystemExit as exc:
        # argparse: --help, --version or a bad command line.
        return exc.code
    except cfg.Error as exc:
        print('%s: error: %s' % (PROG, exc), file=sys.stderr)
        return 2
    action = CONF.category.action_fn
    kwargs = {name: getattr(CONF.category, name)
              for name in CONF.category.action_args}
    try:
        status = action(**kwargs)
    except Exception as exc:
        LOG.debug('%s %s failed', CONF.category.name, CONF.category.action,
                  exc_info=True)
        print('%s: error: %s %s failed: %s' % (
            PROG, CONF.category.name, CONF.category.action,
            _describe(exc)), file=sys.stderr)
        return 1
    return status or 0


def _describe(exc):
    """A short message for an error, with a hint for database errors."""
    if isinstance(exc, db_exception.DBError):
        inner = getattr(exc, 'inner_exception', None) or exc
        first = str(getattr(inner, 'orig', None) or inner).split('\n')[0]
        return '%s (%s)' % (first, cmd.database_hint())
    return str(exc)


if __name__ == '__main__':
    sys.exit(main())
