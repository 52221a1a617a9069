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

"""Base class of the API tests: the real WSGI app over a real database.

The app runs with noauth (set explicitly: keystone is the default); the
headers below name the caller. The manager
is out of scope of an API unit test: its RPC casts
(:class:`cinder_ma.manager.rpcapi.ManagerAPI`) are replaced by mocks,
which the tests inspect. A backend is registered in the services table so
that the scheduler can place volumes, as a running manager would.

The attachment rules (:mod:`cinder_ma.volume.attachments`) call managers
too (the flows of consumers' attachments on the manager of the volume's
backend, attach/detach on an instance's host). Those calls go to a
:class:`RecordingRPC` instead of the in-process transport: an API test
checks what the API asks for and answers, the manager's tests and the
functional tests check what a manager does with it. The recorder hands
the flows of consumers' attachments to a real
:class:`~cinder_ma.manager.manager.Manager` of the backend's node, whose
own calls to the backend (initialize/terminate a connection) come back
to the recorder, which answers ``initialize_connection`` with a
connection_info as a file backend would. Notifications (sent through the
RPC layer too) are a mock.
"""

import uuid

import fixtures
import oslo_messaging as messaging
from oslo_serialization import jsonutils
from oslo_utils import timeutils
import webtest

from cinder_ma.api import app
from cinder_ma.db import api as db_api
from cinder_ma.db import models
from cinder_ma.db import services as service_db
from cinder_ma.db import volumes as volume_db
from cinder_ma.manager import manager as manager_module
from cinder_ma import rpc
from cinder_ma.volume import attachments as volume_attachments
from cinder_ma.volume import types as volume_types
from tests import base

PROJECT = 'fake-project'
OTHER_PROJECT = 'other-project'

BACKEND_HOST = 'testhost@file'
BACKEND_CAPABILITIES = {
    'volume_backend_name': 'file', 'driver': 'file', 'vendor_name': 'test',
    'driver_version': '1.0', 'storage_protocol': 'file',
    'multiattach': True, 'shared_targets': False, 'online_extend': False,
    'snapshots': True, 'clone': True,
    'pools': [{'pool_name': 'pool', 'total_capacity_gb': 1000.0,
               'free_capacity_gb': 1000.0, 'reserved_percentage': 0}],
}


def headers(project=PROJECT, user='fake-user', roles=None, version=None,
            service_roles=None):
    """noauth headers of a caller; roles None means admin."""
    result = {'X-Auth-Token': '%s:%s' % (user, project)}
    if roles is not None:
        result['X-Roles'] = ','.join(roles)
    if service_roles is not None:
        result['X-Service-Roles'] = ','.join(service_roles)
    if version is not None:
        result['OpenStack-API-Version'] = 'volume %s' % version
    return result


ADMIN = headers(user='admin-user')
MEMBER = headers(roles=['member', 'reader'])
READER = headers(user='reader-user', roles=['reader'])
OTHER_MEMBER = headers(project=OTHER_PROJECT, user='other-user',
                       roles=['member', 'reader'])
# A compute service acting for a member of the project (user token plus
# service token).
SERVICE = headers(user='nova', roles=['member', 'reader'],
                  service_roles=['service'])

MANAGER_HOST = 'compute1'


class RecordingRPC:
    """Stands in for ManagerAPI: records every call, in order, as
    ``(method, *positional args)`` (keyword arguments in ``kwargs``);
    answers initialize_connection, and get_instance_owner from
    ``owners`` (by instance; ``PROJECT`` for others)."""

    #: What the manager of the volume's backend runs (see the module).
    CONSUMER_FLOWS = ('connect_attachment', 'disconnect_attachment',
                      'fence_attachment', 'reconnect_attachment',
                      'promote_consumer_attachment')

    def __init__(self, backend_host=BACKEND_HOST):
        self.calls = []
        self.kwargs = []
        self.flows = []
        self.owners = {}
        backend = manager_module.Backend(
            name='file', driver_name='file', driver=None, config=None,
            host=backend_host)
        self.manager = manager_module.Manager(backend_host.split('@')[0],
                                              {'file': backend})
        self.manager.manager_api = self

    def can_send_version(self, version):
        """Every version may be sent (not recorded)."""
        return True

    def __getattr__(self, name):
        def record(context, *args, **kwargs):
            if name in self.CONSUMER_FLOWS:
                # Without the volume's host, as the manager serves it;
                # what it asks of the backend is recorded.
                self.flows.append((name,) + args)
                try:
                    return getattr(self.manager, name)(context, *args[1:],
                                                       **kwargs)
                except messaging.ExpectedException as exc:
                    # What the RPC server unwraps.
                    raise exc.exc_info[1] from None
            self.calls.append((name,) + args)
            self.kwargs.append(kwargs)
            if name == 'initialize_connection':
                return {'driver_volume_type': 'file',
                        'data': {'path': '/srv/volume-%s' % args[0]}}
            if name == 'get_instance_owner':
                return self.owners.get(args[0], PROJECT)
            return None
        return record

    def methods(self):
        return [call[0] for call in self.calls]


class APITestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.create_cast = self.useFixture(fixtures.MockPatch(
            'cinder_ma.manager.rpcapi.ManagerAPI.create_volume')).mock
        self.delete_cast = self.useFixture(fixtures.MockPatch(
            'cinder_ma.manager.rpcapi.ManagerAPI.delete_volume')).mock
        self.snapshot_casts = {
            name: self.useFixture(fixtures.MockPatch(
                'cinder_ma.manager.rpcapi.ManagerAPI.' + name)).mock
            for name in ('create_snapshot', 'delete_snapshot',
                         'revert_to_snapshot')}
        self.default_type = volume_types.ensure_default_type(
            self.admin_context)
        self.service = service_db.service_create(self.admin_context, {
            'host': BACKEND_HOST, 'binary': 'cinder-ma-volume',
            'topic': 'cinder-ma-manager', 'availability_zone': 'nova',
            'heartbeat_at': timeutils.utcnow(),
            'capabilities': jsonutils.dumps(BACKEND_CAPABILITIES)})
        # RPC set up as the API process sets it up (here with the
        # in-process transport, whose casts go nowhere: the managers'
        # calls are recorded or mocked), so that the notifier answers
        # whether notifications are enabled; what they would emit is
        # recorded by the mock below.
        self.flags(rpc_transport='local')
        rpc.init(self.conf)
        self.addCleanup(rpc.cleanup)
        self.notify = self.useFixture(fixtures.MockPatch(
            'cinder_ma.notifications.notify')).mock
        self.rpc = RecordingRPC()
        self.useFixture(fixtures.MockPatchObject(
            volume_attachments, '_rpc', lambda: self.rpc))
        # keystone is the default; these tests name callers with noauth.
        self.flags(auth_strategy='noauth')
        self.app = webtest.TestApp(app.setup_app(self.conf))

    @staticmethod
    def url(path, project=PROJECT):
        return '/v3/%s/%s' % (project, path.lstrip('/'))

    def create_volume(self, project=PROJECT, **values):
        """A volume recorded directly in the database (no API, no RPC)."""
        metadata = values.pop('metadata', {})
        record = {'project_id': project, 'user_id': 'fake-user',
                  'size': 1, 'status': 'available', 'host':
                  BACKEND_HOST + '#pool', 'availability_zone': 'nova',
                  'volume_type_id': self.default_type.id,
                  'metadata': metadata}
        record.update(values)
        return volume_db.volume_create(self.admin_context, record)

    def make_manager(self, host=MANAGER_HOST, supports_multiattach=True,
                     hypervisor='fake', supports_reconnect=True,
                     rpc_api_version=None):
        """The services row of a cinder_ma manager running a hypervisor
        driver on ``host``, up."""
        caps = {'hypervisor': {
            'driver': hypervisor,
            'supports_multiattach': supports_multiattach,
            'reports_instance_owner': True,
            'supports_reconnect': supports_reconnect}}
        if rpc_api_version:
            caps['rpc_api_version'] = rpc_api_version
        return service_db.service_create(self.admin_context, {
            'host': host, 'binary': 'cinder-ma-manager',
            'topic': 'cinder-ma-manager', 'availability_zone': 'nova',
            'heartbeat_at': timeutils.utcnow(),
            'capabilities': jsonutils.dumps(caps)})

    def add_attachment(self, volume, **values):
        """An attachment row written directly (no rules, no counters):
        for views and lists."""
        row = {'id': str(uuid.uuid4()), 'volume_id': volume.id,
               'instance_uuid': str(uuid.uuid4()),
               'attach_status': 'attached', 'attach_mode': 'rw'}
        row.update(values)
        with db_api.main_context_manager.writer.using(self.admin_context):
            self.admin_context.session.add(models.VolumeAttachment(**row))
        return row['id']

    def assertFault(self, response, code, name, message=None):
        """A Cinder fault body with the given code (and message part)."""
        self.assertEqual(code, response.status_int)
        self.assertEqual([name], list(response.json))
        self.assertEqual(code, response.json[name]['code'])
        if message is not None:
            self.assertIn(message, response.json[name]['message'])
        self.assertNotIn('Traceback', response.text)
