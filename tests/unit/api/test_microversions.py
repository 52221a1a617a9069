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

"""Tests of microversion parsing and negotiation."""

import webob

from cinder_ma.api import microversions as mv
from tests import base as test_base
from tests.unit.api import base

HEADER = 'OpenStack-API-Version'


class TestAPIVersionRequest(test_base.BaseTestCase):

    def test_order(self):
        self.assertLess(mv.APIVersionRequest('3.9'),
                        mv.APIVersionRequest('3.10'))
        self.assertEqual(mv.APIVersionRequest('3.10'), '3.10')
        self.assertGreater(mv.APIVersionRequest('4.0'), '3.99')

    def test_matches(self):
        version = mv.APIVersionRequest('3.27')
        self.assertTrue(version.matches('3.27'))
        self.assertTrue(version.matches('3.0', '3.27'))
        self.assertTrue(version.matches(None, None))
        self.assertFalse(version.matches('3.28'))
        self.assertFalse(version.matches(None, '3.26'))

    def test_malformed(self):
        for bad in ('3', '3.', 'x.1', '3.01', '3.1.1', '', ' 3 .1', '-3.1'):
            self.assertRaises(mv.InvalidAPIVersionString,
                              mv.APIVersionRequest, bad)

    def test_prior(self):
        self.assertEqual('3.49', mv.prior(mv.MULTIATTACH_VOLUMES))
        self.assertRaises(ValueError, mv.prior, '3.0')

    def test_cinders_line_up_to_its_maximum(self):
        # Cinder 29's maximum; the numbers are Cinder's, ours are
        # extensions (cinder_ma.api.extensions).
        self.assertEqual('3.71', mv.MAX_VERSION)
        self.assertEqual('3.55', mv.TRANSFER_WITH_SNAPSHOTS)
        self.assertFalse(hasattr(mv, 'ATTACH_THROUGH_MANAGER'))

    def test_every_version_has_a_history_entry(self):
        # One named constant and one history entry per version, none
        # missing between 3.55 and the maximum.
        versions = {getattr(mv, name) for name in dir(mv)
                    if name.isupper() and name not in ('UPDATED',) and
                    isinstance(getattr(mv, name), str) and
                    getattr(mv, name)[:1].isdigit()}
        for minor in range(55, 72):
            version = '3.%d' % minor
            self.assertIn(version, versions)
            self.assertIn('* %s' % version, mv.__doc__.replace(
                ', 3.', '\n* 3.'))

    def test_constants_are_in_range(self):
        for name in dir(mv):
            value = getattr(mv, name)
            if name.isupper() and isinstance(value, str) and \
                    value[:1].isdigit() and name != 'UPDATED':
                self.assertTrue(mv.APIVersionRequest(value).matches(
                    mv.MIN_VERSION, mv.MAX_VERSION), name)


class TestFromHeaders(test_base.BaseTestCase):

    def test_absent_is_the_minimum(self):
        self.assertEqual(mv.MIN_VERSION, str(mv.from_headers({})))

    def test_latest_is_the_maximum(self):
        self.assertEqual(mv.MAX_VERSION, str(mv.from_headers(
            {HEADER: 'volume latest'})))

    def test_other_services_are_ignored(self):
        self.assertEqual('3.0', str(mv.from_headers(
            {HEADER: 'compute 2.60'})))
        self.assertEqual('3.27', str(mv.from_headers(
            {HEADER: 'compute 2.60, volume 3.27'})))

    def test_out_of_range(self):
        for version in ('2.0', '3.999', '4.0'):
            self.assertRaises(mv.InvalidGlobalAPIVersion, mv.from_headers,
                              {HEADER: 'volume %s' % version})

    def test_malformed(self):
        self.assertRaises(mv.InvalidAPIVersionString, mv.from_headers,
                          {HEADER: 'volume 3.x'})
        for bad in ('3.' + '9' * 5000, '9' * 5000 + '.0', '\u0663.0',
                    '3.\uff15', '3.0_0', '+3.0', '3.0 3.1'):
            error = self.assertRaises(mv.InvalidAPIVersionString,
                                      mv.from_headers,
                                      {HEADER: 'volume %s' % bad})
            self.assertLess(len(str(error)), 250)

    def test_service_without_a_version_is_the_minimum(self):
        # As in Cinder, which reads the header with microversion_parse.
        self.assertEqual('3.0', str(mv.from_headers({HEADER: 'volume'})))

    def test_last_volume_entry_counts(self):
        self.assertEqual('3.27', str(mv.from_headers(
            {HEADER: 'volume 3.0, compute 2.1, volume 3.27'})))

    def test_request_headers_any_case(self):
        request = webob.Request.blank('/v3', headers={
            'openstack-api-version': 'volume 3.27', 'X-Other': 'volume 3.5'})
        self.assertEqual('3.27', str(mv.from_headers(request.headers)))

    def test_request_headers_repeated(self):
        # A header sent twice reaches the application joined by a comma.
        request = webob.Request.blank('/v3')
        request.environ['HTTP_OPENSTACK_API_VERSION'] = (
            'volume 3.10, compute 2.1')
        self.assertEqual('3.10', str(mv.from_headers(request.headers)))


class TestNegotiation(base.APITestCase):

    def _get(self, version=None, status=200):
        headers = dict(base.MEMBER)
        if version is not None:
            headers[HEADER] = version
        return self.app.get(self.url('volumes'), headers=headers,
                            status=status)

    def test_absent_is_served_as_3_0(self):
        response = self._get()
        self.assertEqual('volume 3.0', response.headers[HEADER])
        self.assertEqual(HEADER, response.headers['Vary'])

    def test_echo(self):
        response = self._get('volume 3.27')
        self.assertEqual('volume 3.27', response.headers[HEADER])
        self.assertEqual(HEADER, response.headers['Vary'])

    def test_latest(self):
        response = self._get('volume latest')
        self.assertEqual('volume %s' % mv.MAX_VERSION,
                         response.headers[HEADER])

    def test_malformed_is_a_400(self):
        response = self._get('volume 3.x', status=400)
        self.assertFault(response, 400, 'badRequest',
                         'API Version String 3.x is of invalid format')

    def test_out_of_range_is_a_406(self):
        response = self._get('volume 3.999', status=406)
        # Cinder has no fault name for 406: computeFault, code 406.
        self.assertFault(response, 406, 'computeFault',
                         'Version 3.999 is not supported by the API. '
                         'Minimum is 3.0 and maximum is %s.'
                         % mv.MAX_VERSION)

    def test_errors_of_a_versioned_request_echo_the_version(self):
        response = self.app.get(self.url('volumes/nope'), status=404,
                                headers=dict(base.MEMBER,
                                             **{HEADER: 'volume 3.50'}))
        self.assertEqual('volume 3.50', response.headers[HEADER])

    def test_root_is_not_versioned(self):
        response = self.app.get('/', status=300,
                                headers={HEADER: 'volume 3.999'})
        self.assertNotIn(HEADER, response.headers)

    def test_v3_document_is_versioned(self):
        response = self.app.get('/v3/', headers={HEADER: 'volume 3.27'})
        self.assertEqual('volume 3.27', response.headers[HEADER])
