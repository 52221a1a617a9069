"""cinder-ma-api: the REST API on the embedded threaded WSGI server.

Deployments may instead serve ``cinder_ma.wsgi.api:application`` with
uWSGI, gunicorn or mod_wsgi; this command uses waitress with
``[api] host_ip``, ``port`` and ``threads``.
"""

import signal
import sys

from oslo_config import cfg
from oslo_log import log as logging
import waitress

from cinder_ma import cmd
from cinder_ma import rpc

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


def load_app():
    """The WSGI application (imported late: it loads policy, routes...)."""
    from cinder_ma.api import app
    return app.setup_app()


def create_server(application, conf=CONF):
    """A waitress server bound to ``[api] host_ip``/``port``, not yet
    running.
    """
    return waitress.create_server(
        application, host=conf.api.host_ip, port=conf.api.port,
        threads=conf.api.threads, ident='cinder-ma')


def server_url(server):
    """``http://host:port`` of a bound server."""
    host = server.effective_host
    if ':' in str(host):
        host = '[%s]' % host
    return 'http://%s:%s' % (host, server.effective_port)


class _Stop(SystemExit):
    """Raised by the signal handlers to leave waitress' loop."""


def _on_signal(signo, frame):
    LOG.info('Caught %s, stopping', signal.Signals(signo).name)
    raise _Stop(0)


def run_server(server):
    """Serve until SIGTERM or SIGINT, then close the server.

    waitress leaves its loop on SystemExit (finishing the requests it has
    taken) and returns.
    """
    previous = {sig: signal.signal(sig, _on_signal)
                for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.close()


def main(argv=None):
    cmd.prepare_service(argv)
    if CONF.rpc_transport == 'local':
        print('cinder-ma-api: rpc_transport = local only works inside '
              'cinder-ma-all; set rpc_transport = oslo and transport_url',
              file=sys.stderr)
        return 1
    rpc.init(CONF)
    try:
        server = create_server(load_app())
        LOG.info('API listening on %s/v3', server_url(server))
        run_server(server)
    finally:
        rpc.cleanup()
    return 0


if __name__ == '__main__':
    sys.exit(main())
