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

"""Tests of the action dispatcher (``POST .../{id}/action``)."""

import fixtures
import webob

from cinder_ma.api import actions
from cinder_ma.api import app
from cinder_ma.api import expose
from cinder_ma.api import microversions as mv
from cinder_ma.api import routes
from cinder_ma.api import validation
from tests import base as test_base
from tests.unit.api import base


@expose.expose(status=202)
def _plain(req, thing_id):
    return {'plain': thing_id}


@expose.expose(status=204, min_version='3.44')
@validation.schema({'type': 'object',
                    'properties': {'os-new': {'type': 'object'}}})
def _new(req, thing_id, body):
    return None


DISPATCH = expose.expose()(actions.dispatcher(
    {'os-plain': _plain, 'os-new': _new}, 'action'))


def _post(body, version='3.0'):
    req = webob.Request.blank('/', method='POST', body=body,
                              content_type='application/json')
    req.api_version = mv.APIVersionRequest(version)
    return DISPATCH(req, thing_id='t1')


class TestDispatcher(test_base.BaseTestCase):

    def test_picks_the_action_of_the_key(self):
        response = _post(b'{"os-plain": null}')
        self.assertEqual(202, response.status_int)
        self.assertEqual({'plain': 't1'}, response.json)
        response = _post(b'{"os-new": {}}', '3.44')
        self.assertEqual(204, response.status_int)

    def test_gate_and_schema_of_the_action(self):
        response = _post(b'{"os-new": {}}', '3.43')
        self.assertEqual(404, response.status_int)
        self.assertIn('API version 3.43 is not supported',
                      response.json['itemNotFound']['message'])
        response = _post(b'{"os-new": 1}', '3.44')
        self.assertEqual(400, response.status_int)

    def test_bad_bodies(self):
        for body, message in (
                (b'{"os-other": null}', 'There is no such action: '
                                        'os-other'),
                (b'{}', 'Malformed request body'),
                (b'{"os-plain": null, "os-new": {}}',
                 'Malformed request body'),
                (b'["os-plain"]', 'Malformed request body'),
                (b'{"os-plain"', 'Malformed request body'),
                (b'', 'The request body is missing.')):
            response = _post(body)
            self.assertEqual(400, response.status_int, body)
            self.assertEqual(message,
                             response.json['badRequest']['message'])

    def test_actions_are_listed(self):
        self.assertEqual({_plain, _new},
                         set(actions.action_functions(DISPATCH)))
        self.assertEqual('action', DISPATCH.__name__)
        self.assertEqual([], list(actions.action_functions(_plain)))


class TestRangesOfActions(base.APITestCase):

    def test_every_action_of_every_route(self):
        checked = []
        for handler in routes.handlers():
            for action in actions.action_functions(handler):
                validation.check_ranges(action)
                checked.append(action.__name__)
        self.assertIn('complete', checked)
        self.assertIn('begin_detaching', checked)

    def test_app_checks_them(self):
        broken = validation.schema({'type': 'object'},
                                   max_version='3.20')(
            lambda req, body: None)
        self.useFixture(fixtures.MockPatchObject(
            routes, 'ROUTES', {'/x': {'POST': actions.dispatcher(
                {'os-broken': broken}, 'action')}}))
        error = self.assertRaises(ValueError, app.setup_app, self.conf)
        self.assertIn('no schema above 3.20', str(error))

    def test_rejected_before_the_body_is_read(self):
        # The attachments' dispatcher is gated at 3.27 itself.
        response = self.app.post(
            self.url('attachments/%s/action' % 'x'), 'not json',
            headers=base.headers(roles=['member'], version='3.26'),
            content_type='application/json', status=404)
        self.assertFault(response, 404, 'itemNotFound', 'API version 3.26')
