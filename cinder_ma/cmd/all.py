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

"""cinder-ma-all: the API and a manager in one service.

Made to try cinder_ma with nothing else installed: RPC in-process
(``rpc_transport = local``), no authentication (``auth_strategy =
noauth``: it warns when it listens on an address that is not a loopback
one), SQLite in ``./cinder-ma-state``, one backend named 'file' using the
file driver when ``enabled_backends`` is empty. The database is migrated
and the default volume type created at every start. Any of these defaults
can be changed in a config file.

``[api] workers`` processes (by default one per CPU) serve the API on one
socket, each with its own in-process manager of the host, so that
requests use every CPU. The main process prepares the state, binds the
socket and then only watches the workers; what a killed worker (or a
previous run) left half-done is finished or rolled back by the reconcile
loop of the workers (see docs/admin/operations.rst). With
``workers = 1`` the main process serves itself.
"""

import ipaddress
import os
import sys

from oslo_config import cfg
from oslo_log import log as logging

from cinder_ma import cmd
from cinder_ma.cmd import api as api_cmd
from cinder_ma import context
from cinder_ma import coordination
from cinder_ma.db import migration
from cinder_ma import exception
from cinder_ma.manager import service as manager_service
from cinder_ma import rpc

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

DEFAULT_BACKEND = cmd.ALL_IN_ONE_BACKEND
DEFAULT_STATE_PATH = cmd.ALL_IN_ONE_STATE_PATH


def set_defaults(conf=CONF):
    """Defaults of the all-in-one service; config files still win."""
    cmd.all_in_one_defaults(conf)


def is_loopback(host):
    """Whether ``host`` (an address or a host name) is a loopback one."""
    if host.lower() in ('localhost', 'localhost.localdomain'):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def warn_if_open(conf=CONF):
    """Warn when the API answers anyone on the network without
    authentication (noauth on an address that is not a loopback one)."""
    if conf.auth_strategy == 'noauth' and not is_loopback(conf.api.host_ip):
        LOG.warning('auth_strategy = noauth and the API listens on %s: '
                    'anyone who reaches it is trusted as whoever they '
                    'claim to be, administrator included. Listen on a '
                    'loopback address, or use auth_strategy = keystone.',
                    conf.api.host_ip)


def prepare_state(conf=CONF):
    """Enable the default backend if none is, create the state directory,
    migrate the database, ensure the default volume type, and record the
    configuration in the state directory for cinder-ma-manage and
    cinder-ma-status (:func:`cinder_ma.cmd.find_all_in_one`).

    :returns: the absolute path of the state directory.
    """
    from cinder_ma.volume import types

    if not conf.enabled_backends:
        conf.set_override('enabled_backends', [DEFAULT_BACKEND])
    state_path = os.path.abspath(conf.state_path)
    os.makedirs(state_path, exist_ok=True)
    migration.upgrade('head')
    types.ensure_default_type(context.get_admin_context())
    cmd.record_all_in_one(conf, state_path)
    return state_path


def _run_workers(count):
    """Prepare, bind, then fork ``count`` API+manager workers."""
    try:
        state_path = prepare_state()
        manager_service.check_drivers(CONF)
        manager_service.register_services(CONF, CONF.host)
        sock = api_cmd.bind_socket()
    except (exception.CinderMAException, OSError) as exc:
        print('cinder-ma-all: error: %s' % exc, file=sys.stderr)
        return 1
    print('cinder-ma-all: API listening on %s/v3 (state in %s)' % (
        api_cmd.socket_url(sock), state_path), flush=True)
    LOG.info('Starting %d workers', count)
    status = api_cmd.launch_workers(
        api_cmd.APIWorker(sock,
                          manager_factory=manager_service.ManagerService),
        count)
    LOG.info('cinder-ma-all stopped')
    return status


def main(argv=None):
    set_defaults()
    cmd.prepare_service(argv)
    from cinder_ma.api import auth
    try:
        auth.check_config(CONF)
        coordination.check_backend(CONF)
    except exception.InvalidConfiguration as exc:
        print('cinder-ma-all: error: %s' % exc, file=sys.stderr)
        return 1
    warn_if_open()
    cmd.setup_guru_meditation()
    workers = api_cmd.worker_count()
    if workers > 1:
        return _run_workers(workers)
    manager = manager_service.ManagerService()
    try:
        state_path = prepare_state()
        rpc.init(CONF)
        manager.start()
        server = api_cmd.create_server(api_cmd.load_app())
        print('cinder-ma-all: API listening on %s/v3 (state in %s)' % (
            api_cmd.server_url(server), state_path), flush=True)
        api_cmd.run_server(server)
    except (exception.CinderMAException, OSError) as exc:
        print('cinder-ma-all: error: %s' % exc, file=sys.stderr)
        return 1
    finally:
        manager.stop()
        rpc.cleanup()
    LOG.info('cinder-ma-all stopped')
    return 0


if __name__ == '__main__':
    sys.exit(main())
