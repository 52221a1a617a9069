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

"""The manager service: one per host, run by ``cinder-ma-manager`` (or in
the ``cinder-ma-all`` process).

On :meth:`ManagerService.start` it loads the storage driver of every
enabled backend and the host's hypervisor driver by entry point name,
registers itself in the services table, serves the RPC API and reports a
heartbeat with its capabilities every ``[manager] report_interval``
seconds, renewing then its claims on the work it runs. Every
``[manager] reconcile_interval`` seconds it finishes or rolls back the
work nobody holds that it can do (:mod:`cinder_ma.manager.reconcile`).
Nothing is opened at import or construction: a launcher forks its
worker after building the service.
"""

import threading

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_service import service
from oslo_utils import timeutils
import stevedore
from stevedore import exception as stevedore_exc

from cinder_ma.conf import backend as backend_conf
from cinder_ma import context as cm_context
from cinder_ma import coordination
from cinder_ma.db import services as service_db
from cinder_ma.db import work as work_db
from cinder_ma import exception
from cinder_ma.hypervisor.drivers import base as hv_base
from cinder_ma.manager import connector as host_connector
from cinder_ma.manager import manager
from cinder_ma.manager import reconcile
from cinder_ma.manager import rpcapi
from cinder_ma import rpc
from cinder_ma.volume.drivers import base as driver_base

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

VOLUME_DRIVER_NAMESPACE = 'cinder_ma.volume.drivers'
HYPERVISOR_DRIVER_NAMESPACE = 'cinder_ma.hypervisor.drivers'

#: services.binary of a backend row and of the manager's own row.
VOLUME_BINARY = 'cinder-ma-volume'
MANAGER_BINARY = 'cinder-ma-manager'


def _load_plugin(namespace, name, base_class):
    """The class registered as ``name`` in ``namespace``.

    :raises DriverNotFound: no such entry point.
    :raises DriverError: it cannot be imported or is not a ``base_class``.
    """
    def _failed(_manager, entrypoint, exc):
        raise exception.DriverError(
            reason='cannot load %s driver %s (%s): %s' % (
                namespace, entrypoint.name, entrypoint.value, exc))

    try:
        plugin = stevedore.DriverManager(
            namespace, name, invoke_on_load=False,
            on_load_failure_callback=_failed).driver
    except stevedore_exc.NoMatches:
        raise exception.DriverNotFound(name=name, namespace=namespace)
    except stevedore_exc.MultipleMatches:
        raise exception.DriverError(
            reason='several packages register a driver named %s in %s' % (
                name, namespace))
    if not (isinstance(plugin, type) and issubclass(plugin, base_class)):
        raise exception.DriverError(
            reason='%s driver %s is not a %s' % (
                namespace, name, base_class.__name__))
    return plugin


def load_backend(conf, host, name):
    """Load, configure and set up the driver of backend section ``name``.

    :returns: a :class:`cinder_ma.manager.manager.Backend`.
    :raises DriverNotFound: the section's volume_driver is not installed.
    :raises DriverError: the driver cannot be loaded or set up.
    """
    driver_name = backend_conf.BackendConfig(conf, name).volume_driver
    cls = _load_plugin(VOLUME_DRIVER_NAMESPACE, driver_name,
                       driver_base.VolumeDriver)
    config = backend_conf.BackendConfig(conf, name,
                                        cls.get_driver_options())
    if not isinstance(cls.capabilities, driver_base.Capabilities):
        raise exception.DriverError(
            reason='driver %s declares no Capabilities' % driver_name)
    backend_host = '%s@%s' % (host, name)
    driver = cls(configuration=config, host=backend_host)
    driver.do_setup()
    LOG.info('Backend %(name)s: driver %(driver)s (%(cls)s) on %(host)s',
             {'name': name, 'driver': driver_name, 'cls': cls.__name__,
              'host': backend_host})
    return manager.Backend(name=name, driver_name=driver_name,
                           driver=driver, config=config, host=backend_host)


def load_hypervisor(conf, host):
    """The host's hypervisor driver, as ``(entry point name, driver)``, or
    ``(None, None)`` when ``[hypervisor] driver`` is unset.
    """
    name = conf.hypervisor.driver
    if not name:
        return None, None
    cls = _load_plugin(HYPERVISOR_DRIVER_NAMESPACE, name,
                       hv_base.HypervisorDriver)
    if not isinstance(cls.capabilities, hv_base.HypervisorCapabilities):
        raise exception.DriverError(
            reason='hypervisor driver %s declares no '
                   'HypervisorCapabilities' % name)
    conf.register_opts(cls.get_driver_options(), group='hypervisor')
    driver = cls(conf)
    driver.init_host(host)
    LOG.info('Hypervisor driver %s (%s), multiattach %s', name,
             cls.__name__, cls.capabilities.supports_multiattach)
    return name, driver


def check_drivers(conf):
    """Check that every configured driver is installed, without loading
    or setting up any backend.

    :raises DriverNotFound: a driver's entry point is missing.
    :raises DriverError: a driver cannot be imported.
    """
    for name in dict.fromkeys(conf.enabled_backends):
        _load_plugin(VOLUME_DRIVER_NAMESPACE,
                     backend_conf.BackendConfig(conf, name).volume_driver,
                     driver_base.VolumeDriver)
    if conf.hypervisor.driver:
        _load_plugin(HYPERVISOR_DRIVER_NAMESPACE, conf.hypervisor.driver,
                     hv_base.HypervisorDriver)


def backend_capabilities(backend):
    """The capability report of a backend (services.capabilities).

    :raises: whatever the driver's get_stats raises.
    """
    driver = backend.driver
    stats = dict(driver.get_stats())
    pools = []
    for pool in stats.pop('pools', None) or []:
        pool = dict(pool)
        pool.setdefault('pool_name', backend.config.backend_name)
        pool.setdefault('reserved_percentage',
                        backend.config.reserved_percentage)
        pools.append(pool)
    caps = driver.capabilities
    report = dict(stats)
    report.update({
        'volume_backend_name': backend.config.backend_name,
        'driver': backend.driver_name,
        'vendor_name': stats.get('vendor_name', driver.vendor_name),
        'driver_version': stats.get('driver_version',
                                    driver.driver_version),
        'storage_protocol': stats.get('storage_protocol',
                                      driver.storage_protocol),
        'multiattach': caps.multiattach,
        'shared_targets': caps.shared_targets,
        'online_extend': caps.online_extend,
        'per_attachment_connections': caps.per_attachment_connections,
        'snapshots': caps.snapshots,
        'clone': caps.clone,
        'consistent_snapshots': caps.consistent_snapshots,
        'pools': pools,
    })
    return report


def hypervisor_capabilities(name, driver):
    """The capability report of the manager's own row, with the RPC API
    version it serves (for ``[upgrade_levels] manager = auto``)."""
    version = {rpcapi.VERSION_KEY: rpcapi.ManagerAPI.RPC_API_VERSION}
    if driver is None:
        return dict(version, hypervisor=None)
    return dict(version, hypervisor={
        'driver': name,
        'supports_multiattach': driver.capabilities.supports_multiattach,
        'reports_instance_owner':
            driver.capabilities.reports_instance_owner,
        'supports_extend_volume':
            driver.capabilities.supports_extend_volume,
        'supports_reconnect': driver.capabilities.supports_reconnect})


def _get_or_create_service(ctxt, host, binary, availability_zone):
    row = service_db.service_get_by_host_and_binary(ctxt, host, binary)
    if row is None:
        row = service_db.service_create(ctxt, {
            'host': host, 'binary': binary,
            'topic': rpcapi.ManagerAPI.TOPIC,
            'availability_zone': availability_zone})
        LOG.info('Registered service %s %s (%s)', binary, host, row.uuid)
    return row


def register_services(conf, host):
    """Make sure the services rows of a host's manager and backends exist.

    For a process about to fork several managers of the host (the workers
    of cinder-ma-all), which would otherwise all find no row and each
    create one. The rows stay down until a manager reports.
    """
    ctxt = cm_context.get_admin_context()
    zone = conf.storage_availability_zone
    for name in dict.fromkeys(conf.enabled_backends):
        _get_or_create_service(ctxt, '%s@%s' % (host, name), VOLUME_BINARY,
                               zone)
    _get_or_create_service(ctxt, host, MANAGER_BINARY, zone)


class ManagerService(service.Service):
    """The manager of one host: its backends and its hypervisor."""

    def __init__(self, host=None, conf=None):
        """Several processes may serve one host (the workers of
        cinder-ma-all, each with the API and an in-process manager): each
        claims work under its own worker id, so that a worker never takes
        the work of a live sibling, and their connection locks are the
        coordination backend's (:mod:`cinder_ma.coordination`).
        """
        super().__init__()
        self.conf = conf or CONF
        self.host = host or self.conf.host
        self.backends = {}
        self.hypervisor_name = None
        self.hypervisor = None
        self.manager = None
        self._rpcserver = None
        self._stop_event = threading.Event()
        self._reporter = None
        self._reconciler = None
        self._service_ids = {}
        self._renew_failed = False
        #: (host, binary) of the rows whose last heartbeat failed, and
        #: whether the last reconcile pass failed: an outage is logged
        #: when it starts and when it ends, not at every interval.
        self._report_failed = set()
        self._reconcile_failed = False

    # Lifecycle

    def start(self):
        """Load the drivers, register in the services table, serve RPC.

        :raises DriverNotFound: a backend names a driver that is not
            installed; nothing is started.
        :raises DriverError: a driver cannot be loaded or set up.
        """
        super().start()
        self._stop_event.clear()
        names = list(dict.fromkeys(self.conf.enabled_backends))
        self.backends = {name: load_backend(self.conf, self.host, name)
                         for name in names}
        self.hypervisor_name, self.hypervisor = load_hypervisor(
            self.conf, self.host)
        if not self.backends and self.hypervisor is None:
            LOG.warning('The manager of %s runs no backend '
                        '(enabled_backends) and no hypervisor driver '
                        '([hypervisor] driver): it has nothing to do',
                        self.host)
        rpc.init(self.conf)
        self.manager = manager.Manager(
            self.host, self.backends, self.hypervisor,
            connectors=host_connector.Connectors(self.conf),
            worker_id=work_db.new_worker_id())
        if self.backends:
            self._check_nova()
        target = messaging.Target(topic=rpcapi.ManagerAPI.TOPIC,
                                  server=self.host)
        self._rpcserver = rpc.get_server(target, [self.manager])
        self._rpcserver.start()
        # Up in the services table only once it can be called.
        self.report_state()
        self._reporter = threading.Thread(
            target=self._report_loop, name='cinder-ma-manager-report',
            daemon=True)
        self._reporter.start()
        self._reconciler = threading.Thread(
            target=self._reconcile_loop, name='cinder-ma-manager-reconcile',
            daemon=True)
        self._reconciler.start()
        LOG.info('Manager of %s started: backends %s, hypervisor %s',
                 self.host, ', '.join(self.backends) or '(none)',
                 self.hypervisor_name or '(none)')

    def _check_nova(self):
        """Say at start whether Nova will be told of extends ([nova])."""
        nova_api = self.manager.nova_api
        if not nova_api.configured:
            LOG.info('Nova is not told of extends: [nova] auth_type is '
                     'unset')
            return
        reason = nova_api.check()
        if reason is not None:
            LOG.error('[nova] cannot be used, so Nova will not be told of '
                      'extends (the attachments will say so): %s', reason)

    def stop(self, graceful=False):
        """Stop serving RPC and reporting. Flows already running finish."""
        self._stop_event.set()
        if self._rpcserver is not None:
            self._rpcserver.stop()
            self._rpcserver.wait()
            self._rpcserver = None
        for thread in (self._reporter, self._reconciler):
            if (thread is not None and
                    thread is not threading.current_thread()):
                thread.join(timeout=30)
        self._reporter = self._reconciler = None
        # Its flows are done: release what the process may still hold on
        # the coordination backend (a later use starts it again).
        coordination.COORDINATOR.stop()
        super().stop(graceful)
        LOG.info('Manager of %s stopped', self.host)

    def wait(self):
        """Block until :meth:`stop`."""
        self._stop_event.wait()
        super().wait()

    def reset(self):
        """SIGHUP: mutable options were reloaded; report right away."""
        self.report_state()

    # Services table

    def _report_loop(self):
        while not self._stop_event.wait(
                self.conf.manager.report_interval):
            self.report_state()

    def _reconcile_loop(self):
        while not self._stop_event.wait(
                self.conf.manager.reconcile_interval):
            self.reconcile()

    def reconcile(self):
        """One pass of the reconcile loop; never raises."""
        try:
            done = reconcile.reconcile(self.manager,
                                       cm_context.get_admin_context())
        except Exception:
            if not self._reconcile_failed:
                LOG.exception('The reconcile loop of %s failed; it runs '
                              'again every %s s (logged again once it '
                              'works)', self.host,
                              self.conf.manager.reconcile_interval)
            self._reconcile_failed = True
            return
        if self._reconcile_failed:
            LOG.info('The reconcile loop of %s works again', self.host)
        self._reconcile_failed = False
        if done:
            LOG.info('Reconciled %d interrupted item(s) of work', done)

    def renew_claims(self):
        """Renew this process's claims on its work; never raises (a
        failure is logged once until a renewal works again)."""
        try:
            work_db.renew(cm_context.get_admin_context(),
                          self.manager._running_claims(),
                          self.conf.manager.work_lease_time)
        except Exception as exc:
            if not self._renew_failed:
                LOG.error('Could not renew the claims of %s on its work: '
                          '%s', self.host, exc)
            self._renew_failed = True
            return
        if self._renew_failed:
            LOG.info('Claims of %s renewed again', self.host)
        self._renew_failed = False

    def report_state(self):
        """Heartbeat and capabilities of every row of this manager.

        Never raises: a backend whose driver cannot report keeps its last
        capabilities and no heartbeat, so that it goes down in
        ``service_down_time`` and is no longer scheduled to.
        """
        ctxt = cm_context.get_admin_context()
        for backend in list(self.backends.values()):
            try:
                capabilities = backend_capabilities(backend)
            except Exception:
                LOG.exception('Backend %s could not report its capacity',
                              backend.host)
                continue
            self._report(ctxt, backend.host, VOLUME_BINARY, capabilities)
        self._report(ctxt, self.host, MANAGER_BINARY,
                     hypervisor_capabilities(self.hypervisor_name,
                                             self.hypervisor))
        if self.manager is not None:
            self.renew_claims()

    def _report(self, ctxt, host, binary, capabilities):
        values = {'capabilities': capabilities,
                  'heartbeat_at': timeutils.utcnow(),
                  'availability_zone': self.conf.storage_availability_zone}
        key = (host, binary)
        try:
            service_id = self._service_ids.get(key)
            reported = False
            if service_id is not None:
                try:
                    service_db.service_update(ctxt, service_id, values)
                    reported = True
                except exception.ServiceNotFound:
                    LOG.warning('Service %s %s was deleted; registering it '
                                'again', binary, host)
            if not reported:
                self._service_ids[key] = self._register(ctxt, host, binary,
                                                        values)
        except Exception:
            # Once per outage (the database down, say), not once per
            # report_interval.
            if key not in self._report_failed:
                LOG.exception('Could not report the state of %s %s; '
                              'retrying every %s s (logged again once it '
                              'works)', binary, host,
                              self.conf.manager.report_interval)
            self._report_failed.add(key)
            return
        if key in self._report_failed:
            self._report_failed.discard(key)
            LOG.info('State of %s %s reported again', binary, host)

    def _register(self, ctxt, host, binary, values):
        row = _get_or_create_service(ctxt, host, binary,
                                     values['availability_zone'])
        service_db.service_update(ctxt, row.id, values)
        return row.id
