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

"""Tests of the route table and of its API reference."""

import os
import re

import webob.exc

from cinder_ma.api import actions
from cinder_ma.api import extensions
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
from tests import base


class TestMatch(base.BaseTestCase):

    def test_path_parameters(self):
        handler, params = routes.match('GET', '/v3/p1/volumes/v1')
        self.assertIs(volumes.show, handler)
        self.assertEqual({'project_id': 'p1', 'volume_id': 'v1'}, params)
        handler, params = routes.match(
            'PUT', '/v3/p1/types/t1/extra_specs/k1')
        self.assertIs(types.extra_spec_update, handler)
        self.assertEqual({'project_id': 'p1', 'type_id': 't1',
                          'key': 'k1'}, params)

    def test_without_the_project(self):
        # Microversion 3.67: every project route also without the project;
        # the handler gets project_id=None (the caller's).
        handler, params = routes.match('GET', '/v3/volumes/v1')
        self.assertIs(volumes.show, handler)
        self.assertEqual({'project_id': None, 'volume_id': 'v1'}, params)
        handler, params = routes.match('GET', '/v3/volumes/detail')
        self.assertIs(volumes.detail, handler)
        # The long form wins where both could match.
        handler, params = routes.match('GET', '/v3/volumes/volumes')
        self.assertIs(volumes.index, handler)
        self.assertEqual({'project_id': 'volumes'}, params)
        handler, params = routes.match('GET', '/v3')
        self.assertEqual({}, params)

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
        # Elsewhere a trailing slash leaves an empty id: nothing.
        for method in ('GET', 'PUT', 'DELETE'):
            self.assertRaises(webob.exc.HTTPNotFound, routes.match,
                              method, '/v3/p/volumes/')

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


class TestAPIReference(base.BaseTestCase):
    """Every route, and every action of an action route, has its section
    in the API reference (api-ref/source, built by ``tox -e api-ref``)."""

    SOURCE = os.path.join(os.path.dirname(__file__), '..', '..', '..',
                          'api-ref', 'source')
    METHOD = re.compile(r'^\.\. rest_method:: (\w+) (\S+)\s*$', re.M)

    def _reference(self):
        documented, text = set(), ''
        for name in sorted(os.listdir(self.SOURCE)):
            if name.endswith('.inc'):
                with open(os.path.join(self.SOURCE, name)) as inc:
                    content = inc.read()
                text += content
                documented.update(self.METHOD.findall(content))
        return documented, text

    def test_every_route_is_documented(self):
        documented, _text = self._reference()
        served = {(method, template)
                  for template, methods in routes.ROUTES.items()
                  for method in methods}
        self.assertEqual(set(), served - documented,
                         'routes without an api-ref section (add one to '
                         'api-ref/source/<resource>.inc)')
        self.assertEqual(set(), documented - served,
                         'api-ref sections of routes not served')

    def test_every_action_is_documented(self):
        _documented, text = self._reference()
        keys = ['``%s``' % key for handler in routes.handlers()
                for key in getattr(handler, 'actions', {})]
        self.assertEqual([], [key for key in keys if key not in text])

    def test_every_extension_is_documented(self):
        _documented, text = self._reference()
        aliases = ['``%s``' % ext.alias for ext in extensions.EXTENSIONS]
        self.assertEqual([], [a for a in aliases if a not in text])

    def test_every_microversion_is_in_the_history(self):
        _documented, text = self._reference()
        last = int(mv.MAX_VERSION.split('.')[1])
        entries = ['- 3.%d: ' % minor for minor in range(55, last + 1)]
        self.assertEqual([], [e for e in entries if e not in text])
