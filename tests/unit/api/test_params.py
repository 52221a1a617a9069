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

"""Tests of query string parameters."""

import webob
import webob.exc

from cinder_ma.api import params
from tests import base


class TestParams(base.TestCase):

    def test_limit(self):
        self.flags(max_limit=50, group='api')
        self.assertEqual(50, params.limit({}))
        self.assertEqual(10, params.limit({'limit': '10'}))
        self.assertEqual(50, params.limit({'limit': '500'}))
        self.assertEqual(0, params.limit({'limit': '0'}))
        self.assertRaises(webob.exc.HTTPBadRequest, params.limit,
                          {'limit': 'x'})
        self.assertRaises(webob.exc.HTTPBadRequest, params.limit,
                          {'limit': '-1'})

    def test_sort(self):
        self.assertEqual((None, None), params.sort({}))
        self.assertEqual((['created_at'], ['desc']),
                         params.sort({}, default_key='created_at'))
        self.assertEqual((['name', 'size'], ['asc', 'desc']),
                         params.sort({'sort': 'name:ASC, size'}))
        self.assertEqual((['size'], ['asc']),
                         params.sort({'sort_key': 'size',
                                      'sort_dir': 'asc'}))
        for bad in ({'sort': 'name:up'}, {'sort': ','},
                    {'sort': 'name', 'sort_dir': 'asc'}):
            self.assertRaises(webob.exc.HTTPBadRequest, params.sort, bad)

    def test_boolean(self):
        self.assertFalse(params.boolean({}, 'x'))
        self.assertTrue(params.boolean({}, 'x', default=True))
        self.assertTrue(params.boolean({'x': 'yes'}, 'x'))
        self.assertFalse(params.boolean({'x': '0'}, 'x'))
        self.assertRaises(webob.exc.HTTPBadRequest, params.boolean,
                          {'x': 'maybe'}, 'x')

    def test_json_object(self):
        self.assertEqual({'a': 'b', 'n': '1'}, params.json_object(
            {'m': '{"a": "b", "n": 1}'}, 'm'))
        # Cinder's form: a Python literal dict (str() of a dict).
        self.assertEqual({'Type': 'work'}, params.json_object(
            {'m': "{'Type': 'work'}"}, 'm'))
        for bad in ('[1]', 'nope', '"s"', "['a']", '{1: (', '__import__'):
            self.assertRaises(webob.exc.HTTPBadRequest, params.json_object,
                              {'m': bad}, 'm')

    def test_check_url_text(self):
        req = webob.Request.blank('/v3/volumes/detail?name=n')
        # A URL without the project (3.67): project_id is None.
        params.check_url_text(req, {'project_id': None})
        params.check_url_text(req, {'project_id': 'p', 'volume_id': 'v'})
        self.assertRaises(webob.exc.HTTPBadRequest, params.check_url_text,
                          req, {'project_id': None, 'volume_id': 'v\x00'})
        req = webob.Request.blank('/v3/volumes?name=%00')
        self.assertRaises(webob.exc.HTTPBadRequest, params.check_url_text,
                          req, {'project_id': None})
