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

"""Fixtures for tests of the manager side (usable by any test).

``LocalRPC`` sets up the in-process RPC transport; ``VolumeFactory``
records volumes the way the API does before it casts to a manager;
``AttachmentTestCase`` runs a backend and a compute manager with
recording drivers for the attach and detach flows.
"""

import contextlib
import logging
import os
import sqlite3
import threading
import time
from unittest import mock

import fixtures
import oslo_messaging as messaging
from oslo_messaging import opts as messaging_opts
from oslo_serialization import jsonutils
from oslo_utils import timeutils

from cinder_ma.conf import backend as backend_conf
from cinder_ma import context as cm_context
from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import services as service_db
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import exception
from cinder_ma.hypervisor.drivers import base as hv_base
from cinder_ma.hypervisor.drivers import fake as fake_hv
from cinder_ma.manager import connector as host_connector
from cinder_ma.manager import flows
from cinder_ma.manager import manager
from cinder_ma.manager import rpcapi
from cinder_ma.manager import service as manager_service
from cinder_ma import rpc
from cinder_ma.volume import attachments
from cinder_ma.volume.drivers import base as driver_base
from cinder_ma.volume.drivers import file as file_driver
from tests import base


class LocalRPC(fixtures.Fixture):
    """``rpc_transport = local``, initialized; cleaned up afterwards."""

    def __init__(self, conf):
        super().__init__()
        self.conf = conf

    def _setUp(self):
        rpc.cleanup()
        self.conf.set_override('rpc_transport', 'local')
        self.addCleanup(self.conf.clear_override, 'rpc_transport')
        rpc.init(self.conf)
        self.addCleanup(rpc.cleanup)


class VolumeFactory:
    """Volume rows as the API records them before casting."""

    def __init__(self, context, host='testhost@file#file'):
        self.context = context
        self.host = host
        self._type_id = None

    def _type(self):
        if self._type_id is None:
            vtype = type_db.volume_type_create(
                self.context, {'name': 'manager-tests'})
            self._type_id = vtype.id
        return self._type_id

    def create(self, status='creating', size=1, **values):
        row = {'project_id': self.context.project_id or 'fake-project',
               'user_id': self.context.user_id, 'size': size,
               'status': status, 'host': self.host,
               'volume_type_id': self._type()}
        row.update(values)
        return volume_db.volume_create(self.context, row)

    @staticmethod
    def ref(volume):
        return driver_base.VolumeRef.for_volume(
            volume.id, volume.size, multiattach=volume.multiattach,
            host=volume.host)


# Recording drivers for the attach and detach flows.
#
# The flows' tests must see every initialize/terminate, connect/disconnect
# and attach/detach the manager asks for, and fail any of them on demand.
# The real drivers and connectors have their own tests
# (tests/unit/volume/drivers, tests/unit/hypervisor, test_connector); these
# subclasses keep their behaviour (real files, the fake hypervisor's
# records) and only add the recording, so they live here and never in
# cinder_ma.


class Sections:
    """Records critical sections, and how many ran at the same time.

    ``hold`` seconds are spent inside each section, so that sections that
    are not serialized do overlap.
    """

    def __init__(self, hold=0.0):
        self.hold = hold
        self._lock = threading.Lock()
        self.active = []
        self.log = []
        self.overlaps = []
        self.entered = threading.Event()

    @contextlib.contextmanager
    def section(self, label):
        with self._lock:
            if self.active:
                self.overlaps.append((label, tuple(self.active)))
            self.active.append(label)
            self.log.append(('enter', label))
        self.entered.set()
        try:
            if self.hold:
                time.sleep(self.hold)
            yield
        finally:
            with self._lock:
                self.active.remove(label)
                self.log.append(('exit', label))


class _Recording:
    """Mixin: ``calls`` made, ``failures`` to inject and ``hooks`` to run
    (inside the call's section) by method name.
    """

    sections = None

    def _init_recording(self):
        self.calls = []
        self.failures = {}
        self.hooks = {}
        self._rec_lock = threading.Lock()

    def fail(self, method, exc=None):
        """Make the next calls of ``method`` raise ``exc``."""
        self.failures[method] = exc or exception.DriverError(
            reason='injected failure of %s' % method)

    def _record(self, method, *args):
        with self._rec_lock:
            self.calls.append((method,) + args)
        hook = self.hooks.get(method)
        if hook is not None:
            hook(*args)
        exc = self.failures.get(method)
        if exc is not None:
            raise exc

    def _section(self, label):
        if self.sections is None:
            return contextlib.nullcontext()
        return self.sections.section(label)

    def called(self, method):
        return [c[1:] for c in self.calls if c[0] == method]


class RecordingFileDriver(_Recording, file_driver.FileDriver):
    """The file storage driver, recording its connections.

    ``connections``: the (volume id, connector host) pairs initialized and
    not terminated.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._init_recording()
        self.connections = set()

    def initialize_connection(self, volume, connector, attach_mode):
        with self._section('initialize %s' % volume.id):
            self._record('initialize_connection', volume.id,
                         connector['host'], attach_mode)
            info = super().initialize_connection(volume, connector,
                                                 attach_mode)
            with self._rec_lock:
                self.connections.add((volume.id, connector['host']))
            return info

    def terminate_connection(self, volume, connector):
        with self._section('terminate %s' % volume.id):
            self._record('terminate_connection', volume.id,
                         connector['host'])
            super().terminate_connection(volume, connector)
            with self._rec_lock:
                self.connections.discard((volume.id, connector['host']))


class PerAttachmentFileDriver(RecordingFileDriver):
    """A recording file driver making one connection per attachment
    (``per_attachment_connections``), as the nbd driver does.

    ``connections``: the (volume id, attachment id) pairs initialized and
    not terminated, with the mode, in ``modes``.
    """

    capabilities = driver_base.Capabilities(
        multiattach=True, per_attachment_connections=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.modes = {}

    def initialize_connection(self, volume, connector, attach_mode,
                              attachment_id=None):
        with self._section('initialize %s' % volume.id):
            self._record('initialize_connection', volume.id,
                         connector['host'], attach_mode, attachment_id)
            info = file_driver.FileDriver.initialize_connection(
                self, volume, connector, attach_mode)
            with self._rec_lock:
                self.connections.add((volume.id, attachment_id))
                self.modes[(volume.id, attachment_id)] = attach_mode
            return info

    def terminate_connection(self, volume, connector, attachment_id=None):
        with self._section('terminate %s' % volume.id):
            self._record('terminate_connection', volume.id,
                         connector['host'], attachment_id)
            with self._rec_lock:
                self.connections.discard((volume.id, attachment_id))
                self.modes.pop((volume.id, attachment_id), None)


class SharedTargetsFileDriver(RecordingFileDriver):
    """A recording file driver declaring shared targets."""

    capabilities = driver_base.Capabilities(
        multiattach=True, shared_targets=True, online_extend=True)


class RecordingFileConnector(_Recording, host_connector.FileConnector):
    """The file connector, recording connections.

    ``connected``: paths connected and not disconnected;
    ``target_hints``: the shared_target_in_use of every disconnect.
    """

    def __init__(self, conf):
        super().__init__(conf)
        self._init_recording()
        self.connected = set()

    def connect_volume(self, connection_info):
        path = connection_info['data']['path']
        with self._section('connect %s' % path):
            self._record('connect_volume', path)
            device = super().connect_volume(connection_info)
            with self._rec_lock:
                self.connected.add(path)
            return device

    def disconnect_volume(self, connection_info, device_info=None,
                          shared_target_in_use=False):
        path = connection_info['data']['path']
        with self._section('disconnect %s' % path):
            self._record('disconnect_volume', path, shared_target_in_use)
            super().disconnect_volume(connection_info, device_info,
                                      shared_target_in_use)
            with self._rec_lock:
                self.connected.discard(path)


class RecordingHypervisor(_Recording, fake_hv.FakeDriver):
    """The fake hypervisor driver, recording calls; reports device
    '/dev/vdb' when no mountpoint is asked for."""

    def __init__(self, conf):
        super().__init__(conf)
        self._init_recording()

    def attach_volume(self, instance_uuid, connection_info, attachment_id,
                      mountpoint=None, mode='rw', shareable=False):
        self._record('attach_volume', instance_uuid, attachment_id, mode,
                     shareable, connection_info)
        return super().attach_volume(
            instance_uuid, connection_info, attachment_id,
            mountpoint=mountpoint, mode=mode,
            shareable=shareable) or '/dev/vdb'

    def detach_volume(self, instance_uuid, connection_info, attachment_id):
        self._record('detach_volume', instance_uuid, attachment_id)
        super().detach_volume(instance_uuid, connection_info,
                              attachment_id)

    def resize_volume(self, instance_uuid, attachment_id, new_size_bytes):
        self._record('resize_volume', instance_uuid, attachment_id,
                     new_size_bytes)
        super().resize_volume(instance_uuid, attachment_id, new_size_bytes)

    def reconnect_volume(self, instance_uuid, connection_info,
                         attachment_id, mode='rw', shareable=False):
        self._record('reconnect_volume', instance_uuid, attachment_id,
                     mode, shareable, connection_info)
        super().reconnect_volume(instance_uuid, connection_info,
                                 attachment_id, mode=mode,
                                 shareable=shareable)


class NoResizeHypervisor(RecordingHypervisor):
    """A recording hypervisor driver that cannot resize attached disks
    (no ``supports_extend_volume``)."""

    capabilities = hv_base.HypervisorCapabilities(
        supports_multiattach=True, reports_instance_owner=True)


class NoMultiattachHypervisor(RecordingHypervisor):
    """A recording hypervisor driver that cannot share disks."""

    capabilities = hv_base.HypervisorCapabilities(
        supports_multiattach=False, reports_instance_owner=True)


class FlowInjector(fixtures.Fixture):
    """Makes the next flow built by ``flow_module.get_flow`` fail.

    Flows are compiled once per factory (:func:`cinder_ma.manager.flows.
    run`): an armed injector puts a factory of its own in the module, so
    that the next run compiles the flow it builds, then puts the original
    back.

    :param fail_after: a task class appended to fail after the last task.
    :param factory: the name of the module's factory to patch.
    """

    def __init__(self, flow_module, fail_after, factory='get_flow'):
        super().__init__()
        self.module = flow_module
        self.fail_after = fail_after
        self.factory = factory
        self.original = getattr(flow_module, factory)
        self._index = None
        self.failed = None

    def _setUp(self):
        # Puts the original back in the end, whatever is there then.
        self.useFixture(fixtures.MockPatchObject(
            self.module, self.factory, self.original))

    def fail_at(self, index):
        """Fail the next flow in its task ``index`` (None: after its last
        task)."""
        self._index = index
        self.failed = None

        def armed(*args):
            setattr(self.module, self.factory, self.original)
            return self._get_flow(*args)

        setattr(self.module, self.factory, armed)

    def _get_flow(self, *args):
        flow = self.original(*args)
        if self._index is None:
            flow.add(self.fail_after())
            self.failed = self.fail_after.__name__
            return flow
        atom = flows.tasks_of(flow)[self._index]
        self.failed = type(atom).__name__
        atom.execute = mock.Mock(side_effect=exception.DriverError(
            reason='injected in %s' % self.failed))
        return flow


class Notifications(fixtures.Fixture):
    """Notifications sent through oslo.messaging's documented 'log'
    driver, caught from its loggers (``oslo.messaging.notification.*``)
    and read back by :meth:`sent` as ``(event_type, payload)`` pairs.
    """

    LOGGER = 'oslo.messaging.notification'

    def __init__(self, conf):
        super().__init__()
        self.conf = conf

    def _setUp(self):
        for group, group_opts in messaging_opts.list_opts():
            if group == 'oslo_messaging_notifications':
                self.conf.register_opts(group_opts, group=group)
        self.conf.set_override('driver', ['log'],
                               group='oslo_messaging_notifications')
        self.addCleanup(self.conf.clear_override, 'driver',
                        group='oslo_messaging_notifications')
        self.messages = []
        handler = _MessageHandler(self.messages)
        logger = logging.getLogger(self.LOGGER)
        level, propagate = logger.level, logger.propagate
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
        self.addCleanup(logger.removeHandler, handler)
        self.addCleanup(setattr, logger, 'propagate', propagate)
        self.addCleanup(logger.setLevel, level)

    def sent(self, prefix='volume.'):
        """What was sent, oldest first, of the event types starting with
        ``prefix``."""
        return [(msg['event_type'], msg['payload']) for msg in self.messages
                if msg['event_type'].startswith(prefix)]


class _MessageHandler(logging.Handler):
    def __init__(self, messages):
        super().__init__()
        self.messages = messages

    def emit(self, record):
        self.messages.append(jsonutils.loads(record.getMessage()))


class AttachmentTestCase(base.DBTestCase):
    """A backend node and a compute node, each with its manager, served
    over the local RPC transport; attachments made and deleted through
    the API rules (cinder_ma.volume.attachments), so that API -> instance
    host manager -> backend manager calls all really run.
    """

    DRIVER = RecordingFileDriver
    HYPERVISOR = RecordingHypervisor
    COMPUTE = 'compute1'
    TIMEOUT = 10

    def setUp(self):
        super().setUp()
        # The engine opens and closes an SQLite connection per
        # transaction; closing the last one checkpoints the WAL (about
        # 15 ms a write). Keeping one open makes these flow-heavy tests
        # three times faster and changes nothing they check.
        if db_api.get_engine().dialect.name == 'sqlite':
            keeper = sqlite3.connect(db_api.get_engine().url.database)
            keeper.execute('SELECT 1').fetchall()
            self.addCleanup(keeper.close)
        self.notifications = self.useFixture(Notifications(self.conf)).sent
        self.useFixture(LocalRPC(self.conf))
        config = backend_conf.BackendConfig(
            self.conf, 'file', file_driver.FileDriver.get_driver_options())
        self.driver = self.DRIVER(configuration=config,
                                  host='testhost@file')
        self.driver.do_setup()
        self.backend_manager = manager.Manager('testhost', {
            'file': manager.Backend(name='file', driver_name='recording',
                                    driver=self.driver, config=config,
                                    host='testhost@file')})
        self.hypervisor = self.HYPERVISOR(self.conf)
        # The instances of these tests are the test project's.
        self.hypervisor.default_owner = 'fake-project'
        self.connectors = host_connector.Connectors(
            self.conf, classes={'file': RecordingFileConnector})
        self.connector = self.connectors.get('file')
        self.compute_manager = manager.Manager(
            self.COMPUTE, {}, hypervisor=self.hypervisor,
            connectors=self.connectors)
        for server, endpoint in (('testhost', self.backend_manager),
                                 (self.COMPUTE, self.compute_manager)):
            self.serve(server, endpoint)
        self.backend_service = self.make_backend(
            'testhost@file',
            shared_targets=self.DRIVER.capabilities.shared_targets)
        self.make_compute(self.COMPUTE, self.hypervisor)
        self.volumes = VolumeFactory(self.context)
        self.service_context = cm_context.RequestContext(
            user_id='nova', project_id='fake-project',
            roles=['member', 'reader'], service_roles=['service'])

    def serve(self, server, endpoint):
        """Serve ``endpoint`` as ``server`` over the local transport."""
        rpcserver = rpc.get_server(messaging.Target(
            topic=rpcapi.ManagerAPI.TOPIC, server=server), [endpoint])
        rpcserver.start()
        self.addCleanup(rpcserver.stop)

    def add_compute(self, host, hypervisor_class=None):
        """Another compute host: its manager, served, with its own
        recording hypervisor driver, and its services row.

        :returns: (manager, hypervisor driver).
        """
        hypervisor = (hypervisor_class or self.HYPERVISOR)(self.conf)
        hypervisor.default_owner = 'fake-project'
        connectors = host_connector.Connectors(
            self.conf, classes={'file': RecordingFileConnector})
        compute = manager.Manager(host, {}, hypervisor=hypervisor,
                                  connectors=connectors)
        self.serve(host, compute)
        self.make_compute(host, hypervisor)
        return compute, hypervisor

    def make_compute(self, host, hypervisor):
        """The services row of a manager running ``hypervisor``."""
        row = service_db.service_create(self.admin_context, {
            'host': host, 'binary': 'cinder-ma-manager',
            'topic': rpcapi.ManagerAPI.TOPIC, 'availability_zone': 'nova'})
        service_db.service_update(self.admin_context, row.id, {
            'capabilities': manager_service.hypervisor_capabilities(
                'recording', hypervisor),
            'heartbeat_at': timeutils.utcnow()})
        return row

    def volume(self, multiattach=False, size=1):
        """An available volume of the backend, with its file."""
        caps = self.DRIVER.capabilities
        volume = self.volumes.create(
            status='available', size=size, multiattach=multiattach,
            shared_targets=caps.shared_targets,
            service_uuid=self.backend_service.uuid)
        self.driver.create_volume(self.volumes.ref(volume))
        return volume

    def path(self, volume):
        return os.path.join(self.driver.volumes_dir, 'volume-' + volume.id)

    def status(self, volume):
        return volume_db.volume_get(self.admin_context, volume.id).status

    def get(self, attachment_id):
        """The attachment, or None once deleted."""
        try:
            return attachment_db.attachment_get(self.admin_context,
                                                attachment_id)
        except exception.VolumeAttachmentNotFound:
            return None

    def settle(self):
        """Wait for every cast (attach or detach flow) to finish."""
        self.assertTrue(rpc.wait_for_casts(self.TIMEOUT),
                        'casts still running after %ss' % self.TIMEOUT)

    def start_attach(self, volume, instance, mode='rw', host=None,
                     context=None):
        """Reserve and cast the attach; the attachment, 'reserved'."""
        return attachments.create_attachment(
            context or self.context, volume.id, instance, mode=mode,
            instance_host=host or self.COMPUTE)

    def attach(self, volume, instance, mode='rw', host=None, context=None):
        """Attach through the API; the attachment once its flow ran."""
        attachment = self.start_attach(volume, instance, mode, host,
                                       context)
        self.settle()
        return self.get(attachment.id)

    def start_detach(self, attachment_id):
        attachments.delete_attachment(self.service_context, attachment_id)

    def detach(self, attachment_id):
        """Detach through the API; the attachment once its flow ran (None
        when deleted)."""
        self.start_detach(attachment_id)
        self.settle()
        return self.get(attachment_id)
