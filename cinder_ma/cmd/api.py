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

"""cinder-ma-api: the REST API on the embedded threaded WSGI server.

Deployments may instead serve ``cinder_ma.wsgi.api:application`` with
uWSGI, gunicorn or mod_wsgi; this command uses waitress with
``[api] host_ip``, ``port`` and ``threads``, in ``[api] workers``
processes that share one listening socket (oslo.service's process
launcher forks and watches them).
"""

import signal
import socket
import sys
import threading

from oslo_concurrency import processutils
from oslo_config import cfg
from oslo_log import log as logging
from oslo_serialization import jsonutils
from oslo_service import service
import waitress
from waitress import channel
from waitress import server as waitress_server
from waitress import task

from cinder_ma.api import expose

from cinder_ma import cmd
from cinder_ma import coordination
from cinder_ma.db import api as db_api
from cinder_ma import exception
from cinder_ma import rpc

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


def load_app():
    """The WSGI application (imported late: it loads policy, routes...),
    with the heap of this process frozen once it is built
    (:func:`cinder_ma.cmd.freeze_heap`) and its thread switch interval
    set (:func:`cinder_ma.cmd.set_switch_interval`).

    Called in the process that serves: each worker, after the fork.
    """
    from cinder_ma.api import app
    application = app.setup_app()
    cmd.freeze_heap()
    cmd.set_switch_interval()
    return application


def worker_count(conf=CONF):
    """``[api] workers``, or the number of CPUs when unset."""
    return conf.api.workers or processutils.get_worker_count()


class FaultErrorTask(task.ErrorTask):
    """waitress' answer to a request it refuses before the application
    sees it (malformed request line or headers, bad chunked encoding, a
    body over the size limit...): its status, with Cinder's fault body
    instead of waitress' text page, and the connection closed."""

    def execute(self):
        error = self.request.error
        code, reason = error.code, error.reason
        if code >= 500:
            # waitress answers a Transfer-Encoding it does not know with
            # 501 (RFC 9112); it is still the client's request that is
            # wrong, and no input of a client gets a 5xx here.
            code, reason = 400, 'Bad Request'
        message = '%s: %s' % (error.reason, str(error.body).strip())
        body = jsonutils.dumps(
            expose.fault_body(code, message)).encode('utf-8')
        self.status = '%d %s' % (code, reason)
        self.response_headers.append(
            ('Content-Type', '%s; charset=UTF-8' % expose.JSON))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class FaultChannel(channel.HTTPChannel):
    """waitress' HTTP channel, answering refusals with a fault."""

    error_task_class = FaultErrorTask


def _use_fault_channel(server):
    """Make every listening server of ``server`` answer refusals with
    faults (a MultiSocketServer holds one per address in its map)."""
    if isinstance(server, waitress_server.BaseWSGIServer):
        server.channel_class = FaultChannel
        return server
    for dispatcher in list(server.map.values()):
        if isinstance(dispatcher, waitress_server.BaseWSGIServer):
            dispatcher.channel_class = FaultChannel
    return server


def create_server(application, conf=CONF, sock=None):
    """A waitress server bound to ``[api] host_ip``/``port`` (or serving
    the already bound ``sock``), not yet running.

    waitress refuses a body over ``[oslo_middleware]
    max_request_body_size`` as it arrives (a chunked one too), before
    buffering it for the application, whose sizelimit middleware applies
    the same limit behind any other server; its refusals are faults
    (:class:`FaultErrorTask`).
    """
    adjustments = {
        'threads': conf.api.threads, 'ident': 'cinder-ma',
        # waitress refuses a body of exactly its limit; the middleware
        # takes it.
        'max_request_body_size':
            conf.oslo_middleware.max_request_body_size + 1}
    if sock is not None:
        server = waitress.create_server(application, sockets=[sock],
                                        **adjustments)
    else:
        server = waitress.create_server(
            application, host=conf.api.host_ip, port=conf.api.port,
            **adjustments)
    return _use_fault_channel(server)


def bind_socket(conf=CONF):
    """The listening socket the workers share."""
    host = conf.api.host_ip
    family = socket.AF_INET6 if ':' in host else socket.AF_INET
    return socket.create_server((host, conf.api.port), family=family,
                                backlog=1024)


def _url(host, port):
    if ':' in str(host):
        host = '[%s]' % host
    return 'http://%s:%s' % (host, port)


def socket_url(sock):
    """``http://host:port`` of a bound socket."""
    return _url(*sock.getsockname()[:2])


def server_url(server):
    """``http://host:port`` of a bound server."""
    return _url(server.effective_host, server.effective_port)


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


class APIWorker(service.ServiceBase):
    """One process of the API, serving a socket its parent bound.

    Built in the parent and started in each forked worker, so nothing is
    opened before :meth:`start`: the database connections, the RPC
    transport and (for cinder-ma-all) the in-process manager belong to
    the worker.

    :param manager_factory: a callable returning a manager service to
        run in the worker beside the API (cinder-ma-all), or None.
    """

    def __init__(self, sock, manager_factory=None):
        self.sock = sock
        self.manager_factory = manager_factory
        self.manager = None
        self.server = None
        self._thread = None
        self._stopped = threading.Event()

    def start(self):
        rpc.init(CONF)
        if self.manager_factory is not None:
            self.manager = self.manager_factory()
            self.manager.start()
        self.server = create_server(load_app(), sock=self.sock)
        self._thread = threading.Thread(target=self.server.run,
                                        name='cinder-ma-api', daemon=True)
        self._thread.start()
        LOG.info('API worker serving %s/v3', socket_url(self.sock))

    def wait(self):
        self._stopped.wait()

    def stop(self, graceful=False):
        """Stop taking requests (those being served finish), then stop
        the manager."""
        if self.server is not None:
            self.server.close()
            self.server = None
        if self.manager is not None:
            self.manager.stop()
            self.manager = None
        coordination.COORDINATOR.stop()
        rpc.cleanup()
        self._stopped.set()

    def reset(self):
        pass


def launch_workers(worker, count):
    """Fork ``count`` processes running ``worker`` and watch them until
    SIGTERM or SIGINT, both graceful (a worker that dies is replaced);
    SIGHUP reloads the mutable options.

    :returns: the launcher's exit status.
    """
    # No pooled connection may be used on both sides of fork().
    db_api.dispose_engine()
    cmd.sigint_as_sigterm()
    launcher = service.ProcessLauncher(CONF, restart_method='mutate')
    launcher.launch_service(worker, workers=count)
    return launcher.wait() or 0


def main(argv=None):
    cmd.prepare_service(argv)
    cmd.setup_guru_meditation()
    if CONF.rpc_transport == 'local':
        print('cinder-ma-api: rpc_transport = local only works inside '
              'cinder-ma-all; set rpc_transport = oslo and transport_url',
              file=sys.stderr)
        return 1
    from cinder_ma.api import auth
    try:
        # Here, not in a worker that the launcher would restart.
        auth.check_config(CONF)
        coordination.check_backend(CONF)
    except exception.InvalidConfiguration as exc:
        print('cinder-ma-api: error: %s' % exc, file=sys.stderr)
        return 1
    rpc.init(CONF)
    workers = worker_count()
    if workers > 1:
        try:
            sock = bind_socket()
        except OSError as exc:
            print('cinder-ma-api: error: %s' % exc, file=sys.stderr)
            return 1
        rpc.cleanup()
        LOG.info('API listening on %s/v3 (%d workers)', socket_url(sock),
                 workers)
        return launch_workers(APIWorker(sock), workers)
    try:
        server = create_server(load_app())
        LOG.info('API listening on %s/v3', server_url(server))
        run_server(server)
    finally:
        coordination.COORDINATOR.stop()
        rpc.cleanup()
    return 0


if __name__ == '__main__':
    sys.exit(main())
