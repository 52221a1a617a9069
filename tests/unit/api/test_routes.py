"""Tests of the route table."""

import testtools
import webob.exc

from cinder_ma.api import actions
from cinder_ma.api import microversions as mv
from cinder_ma.api import routes
from cinder_ma.api.v3 import attachments
from cinder_ma.api.v3 import types
from cinder_ma.api.v3 import versions
from cinder_ma.api.v3 import volume_actions
from cinder_ma.api.v3 import volume_metadata
from cinder_ma.api.v3 import volume_type_access
from cinder_ma.api.v3 import volume_type_encryption
from cinder_ma.api.v3 import volumes


class TestMatch(testtools.TestCase):

    def test_path_parameters(self):
        handler, params = routes.match('GET', '/v3/p1/volumes/v1')
        self.assertIs(volumes.show, handler)
        self.assertEqual({'project_id': 'p1', 'volume_id': 'v1'}, params)
        handler, params = routes.match(
            'PUT', '/v3/p1/types/t1/extra_specs/k1')
        self.assertIs(types.extra_spec_update, handler)
        self.assertEqual({'project_id': 'p1', 'type_id': 't1',
                          'key': 'k1'}, params)

    def test_attachments_and_actions(self):
        for method, path, handler, params in (
                ('GET', '/v3/p/attachments', attachments.index, {}),
                ('POST', '/v3/p/attachments', attachments.create, {}),
                ('GET', '/v3/p/attachments/detail', attachments.detail, {}),
                ('GET', '/v3/p/attachments/a1', attachments.show,
                 {'attachment_id': 'a1'}),
                ('PUT', '/v3/p/attachments/a1', attachments.update,
                 {'attachment_id': 'a1'}),
                ('DELETE', '/v3/p/attachments/a1', attachments.delete,
                 {'attachment_id': 'a1'}),
                ('POST', '/v3/p/attachments/a1/action', attachments.action,
                 {'attachment_id': 'a1'}),
                ('POST', '/v3/p/volumes/v1/action', volume_actions.action,
                 {'volume_id': 'v1'})):
            found, found_params = routes.match(method, path)
            self.assertIs(handler, found)
            self.assertEqual(dict(params, project_id='p'), found_params)

    def test_fixed_segments_win(self):
        self.assertIs(volumes.detail,
                      routes.match('GET', '/v3/p/volumes/detail')[0])
        # Like Cinder: "detail" is then a volume id for other methods.
        self.assertIs(volumes.update,
                      routes.match('PUT', '/v3/p/volumes/detail')[0])

    def test_trailing_slash(self):
        self.assertIs(versions.show_v3, routes.match('GET', '/v3/')[0])
        self.assertIs(versions.show_v3, routes.match('GET', '/v3')[0])
        self.assertIs(versions.list_versions, routes.match('GET', '/')[0])
        self.assertIs(volumes.index,
                      routes.match('GET', '/v3/p/volumes/')[0])

    def test_not_found(self):
        for path in ('/v2/p/volumes', '/v3/p/volumes/a/b', '/v3/p',
                     '/v3//volumes'):
            self.assertRaises(webob.exc.HTTPNotFound, routes.match,
                              'GET', path)

    def test_method_not_allowed(self):
        error = self.assertRaises(webob.exc.HTTPMethodNotAllowed,
                                  routes.match, 'PATCH', '/v3/p/volumes/v')
        self.assertEqual('DELETE, GET, HEAD, PUT', error.headers['Allow'])

    def test_head_is_served_by_get(self):
        for path, handler in (('/', versions.list_versions),
                              ('/v3/', versions.show_v3),
                              ('/v3/p/volumes/v1', volumes.show),
                              ('/v3/p/volumes/v1/metadata',
                               volume_metadata.index)):
            self.assertIs(handler, routes.match('HEAD', path)[0])
        error = self.assertRaises(webob.exc.HTTPMethodNotAllowed,
                                  routes.match, 'HEAD',
                                  '/v3/p/types/t1/action')
        self.assertEqual('POST', error.headers['Allow'])

    def test_metadata_access_and_encryption(self):
        for method, path, handler, params in (
                ('GET', '/v3/p/volumes/v1/metadata', volume_metadata.index,
                 {'volume_id': 'v1'}),
                ('POST', '/v3/p/volumes/v1/metadata',
                 volume_metadata.create, {'volume_id': 'v1'}),
                ('PUT', '/v3/p/volumes/v1/metadata',
                 volume_metadata.update_all, {'volume_id': 'v1'}),
                ('GET', '/v3/p/volumes/v1/metadata/k', volume_metadata.show,
                 {'volume_id': 'v1', 'key': 'k'}),
                ('PUT', '/v3/p/volumes/v1/metadata/k',
                 volume_metadata.update, {'volume_id': 'v1', 'key': 'k'}),
                ('DELETE', '/v3/p/volumes/v1/metadata/k',
                 volume_metadata.delete, {'volume_id': 'v1', 'key': 'k'}),
                ('GET', '/v3/p/types/t1/os-volume-type-access',
                 volume_type_access.index, {'type_id': 't1'}),
                ('POST', '/v3/p/types/t1/action', volume_type_access.action,
                 {'type_id': 't1'}),
                ('GET', '/v3/p/types/t1/encryption',
                 volume_type_encryption.index, {'type_id': 't1'}),
                ('POST', '/v3/p/types/t1/encryption',
                 volume_type_encryption.create, {'type_id': 't1'}),
                ('GET', '/v3/p/types/t1/encryption/provider',
                 volume_type_encryption.show,
                 {'type_id': 't1', 'encryption_id': 'provider'}),
                ('PUT', '/v3/p/types/t1/encryption/e1',
                 volume_type_encryption.update,
                 {'type_id': 't1', 'encryption_id': 'e1'}),
                ('DELETE', '/v3/p/types/t1/encryption/e1',
                 volume_type_encryption.delete,
                 {'type_id': 't1', 'encryption_id': 'e1'})):
            found, found_params = routes.match(method, path)
            self.assertIs(handler, found, (method, path))
            self.assertEqual(dict(params, project_id='p'), found_params)

    def test_public_and_versioned(self):
        self.assertTrue(routes.is_public('/'))
        self.assertTrue(routes.is_public('/v3/'))
        self.assertFalse(routes.is_public('/v3/p/volumes'))
        self.assertTrue(routes.is_versioned('/v3'))
        self.assertTrue(routes.is_versioned('/v3/p/volumes'))
        self.assertFalse(routes.is_versioned('/'))
        self.assertFalse(routes.is_versioned('/v30'))

    def test_every_handler_is_exposed(self):
        for handler in routes.handlers():
            self.assertTrue(hasattr(handler, 'success_status'), handler)
            for action in actions.action_functions(handler):
                self.assertTrue(hasattr(action, 'success_status'), action)

    def test_attachments_need_3_27(self):
        for handler in routes.ROUTES['/v3/{project_id}/attachments'
                                     '/{attachment_id}'].values():
            self.assertEqual(mv.NEW_ATTACH, handler.min_version)
