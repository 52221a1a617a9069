"""Base class of the API tests: the real WSGI app over a real database.

The app runs with noauth; the headers below name the caller. The manager
is out of scope of an API unit test: its RPC casts
(:class:`cinder_ma.manager.rpcapi.ManagerAPI`) are replaced by mocks,
which the tests inspect. A backend is registered in the services table so
that the scheduler can place volumes, as a running manager would.
"""

import fixtures
from oslo_serialization import jsonutils
from oslo_utils import timeutils
import webtest

from cinder_ma.api import app
from cinder_ma.db import api as db_api
from cinder_ma.volume import types as volume_types
from tests import base

PROJECT = 'fake-project'
OTHER_PROJECT = 'other-project'

BACKEND_HOST = 'testhost@file'
BACKEND_CAPABILITIES = {
    'volume_backend_name': 'file', 'driver': 'file', 'vendor_name': 'test',
    'driver_version': '1.0', 'storage_protocol': 'file',
    'multiattach': True, 'shared_targets': False, 'online_extend': False,
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


class APITestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.create_cast = self.useFixture(fixtures.MockPatch(
            'cinder_ma.manager.rpcapi.ManagerAPI.create_volume')).mock
        self.delete_cast = self.useFixture(fixtures.MockPatch(
            'cinder_ma.manager.rpcapi.ManagerAPI.delete_volume')).mock
        self.default_type = volume_types.ensure_default_type(
            self.admin_context)
        self.service = db_api.service_create(self.admin_context, {
            'host': BACKEND_HOST, 'binary': 'cinder-ma-volume',
            'topic': 'cinder-ma-manager', 'availability_zone': 'nova',
            'heartbeat_at': timeutils.utcnow(),
            'capabilities': jsonutils.dumps(BACKEND_CAPABILITIES)})
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
        return db_api.volume_create(self.admin_context, record)

    def assertFault(self, response, code, name, message=None):
        """A Cinder fault body with the given code (and message part)."""
        self.assertEqual(code, response.status_int)
        self.assertEqual([name], list(response.json))
        self.assertEqual(code, response.json[name]['code'])
        if message is not None:
            self.assertIn(message, response.json[name]['message'])
        self.assertNotIn('Traceback', response.text)
