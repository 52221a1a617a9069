"""Tests of the WSGI app as a whole: middleware, dispatch, faults."""

import fixtures

from cinder_ma.api import app
from tests.unit.api import base

REQUEST_ID = 'X-OpenStack-Request-Id'


class TestRequestId(base.APITestCase):

    def _assert_request_id(self, response):
        self.assertTrue(response.headers.get(REQUEST_ID, '').startswith(
            'req-'), response.headers)

    def test_on_success(self):
        self._assert_request_id(self.app.get(self.url('volumes'),
                                             headers=base.MEMBER))
        self._assert_request_id(self.app.get('/', status=300))

    def test_on_errors(self):
        for response in (
                self.app.get(self.url('volumes'), status=401),
                self.app.get(self.url('nothing-here'), headers=base.MEMBER,
                             status=404),
                self.app.delete(self.url('volumes'), headers=base.MEMBER,
                                status=405),
                self.app.post(self.url('volumes'), 'not json',
                              headers=base.MEMBER, status=400,
                              content_type='application/json'),
                self.app.get(self.url('volumes'), status=406,
                             headers=base.headers(version='3.999'))):
            self._assert_request_id(response)

    def test_unique_per_request(self):
        first = self.app.get('/', status=300).headers[REQUEST_ID]
        second = self.app.get('/', status=300).headers[REQUEST_ID]
        self.assertNotEqual(first, second)


class TestDispatch(base.APITestCase):

    def test_unknown_route_is_a_404_fault(self):
        response = self.app.get('/v4/whatever', headers=base.MEMBER,
                                status=404)
        self.assertFault(response, 404, 'itemNotFound',
                         'could not be found')

    def test_wrong_method_is_a_405_fault_with_allow(self):
        response = self.app.patch(self.url('volumes'), headers=base.MEMBER,
                                  status=405)
        self.assertFault(response, 405, 'badMethod', 'PATCH')
        self.assertEqual('GET, HEAD, POST', response.headers['Allow'])

    def test_head_answers_like_get_without_a_body(self):
        for path, status, headers in (
                ('/', 300, {}), ('/v3/', 200, {}), ('/v3', 200, {}),
                (self.url('volumes'), 200, base.MEMBER),
                (self.url('types/default'), 200, base.MEMBER)):
            got = self.app.get(path, headers=headers, status=status)
            head = self.app.head(path, headers=headers, status=status)
            self.assertEqual(b'', head.body)
            self.assertEqual(got.headers['Content-Length'],
                             head.headers['Content-Length'])
            self.assertEqual(got.content_type, head.content_type)

    def test_head_needs_what_get_needs(self):
        self.app.head(self.url('volumes'), status=401)
        self.app.head(self.url('volumes/%s' % 'nope'), headers=base.MEMBER,
                      status=404)
        # Only where GET is served.
        response = self.app.head(self.url('volumes/x/action'),
                                 headers=base.MEMBER, status=405)
        self.assertEqual('POST', response.headers['Allow'])

    def test_empty_200_stays_a_200(self):
        # Pecan would make it a 204; Cinder answers 200 (os-set_bootable).
        volume = self.create_volume()
        response = self.app.post_json(
            self.url('volumes/%s/action' % volume.id),
            {'os-set_bootable': {'bootable': True}}, headers=base.MEMBER,
            status=200)
        self.assertEqual(b'', response.body)

    def test_trailing_slash_is_ignored(self):
        response = self.app.get(self.url('volumes/'), headers=base.MEMBER)
        self.assertEqual({'volumes': []}, response.json)

    def test_url_of_another_project_is_malformed(self):
        # Cinder's answer when the URL's project is not the caller's.
        response = self.app.get(self.url('volumes', project='someone'),
                                headers=base.MEMBER, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'Malformed request url')

    def test_unexpected_error_is_a_500_without_traceback(self):
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.volume.api.list_volumes',
            side_effect=RuntimeError('secret internals')))
        response = self.app.get(self.url('volumes'), headers=base.MEMBER,
                                status=500)
        self.assertFault(response, 500, 'computeFault')
        self.assertNotIn('secret internals', response.text)
        self.assertEqual('volume 3.0',
                         response.headers['OpenStack-API-Version'])

    def test_error_escaping_the_app_is_a_500_fault(self):
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.api.app.dispatch',
            side_effect=RuntimeError('secret internals')))
        response = self.app.get(self.url('volumes'), headers=base.MEMBER,
                                status=500)
        self.assertFault(response, 500, 'computeFault')
        self.assertNotIn('secret internals', response.text)
        self.assertIn(REQUEST_ID, response.headers)

    def test_accept_header_does_not_matter(self):
        response = self.app.get(self.url('volumes'), headers=dict(
            base.MEMBER, Accept='text/html'))
        self.assertEqual('application/json', response.content_type)

    def test_undecodable_query_is_a_400_fault(self):
        response = self.app.get(self.url('volumes') + '?name=%FF%FE',
                                headers=base.MEMBER, status=400)
        self.assertFault(response, 400, 'badRequest', 'UTF-8')


class TestSetupApp(base.APITestCase):

    def test_schema_ranges_are_checked(self):
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.api.validation.check_ranges',
            side_effect=ValueError('gap')))
        self.assertRaises(ValueError, app.setup_app, self.conf)

    def test_heap_is_frozen_once_per_process(self):
        collect = self.useFixture(fixtures.MockPatch('gc.collect')).mock
        freeze = self.useFixture(fixtures.MockPatch('gc.freeze')).mock
        getpid = self.useFixture(fixtures.MockPatch(
            'os.getpid', return_value=-1)).mock
        self.useFixture(fixtures.MockPatchObject(app, '_FROZEN_PID', None))
        app.setup_app(self.conf)
        app.setup_app(self.conf)
        self.assertEqual(1, freeze.call_count)
        self.assertEqual(1, collect.call_count)
        # A forked worker freezes its own.
        getpid.return_value = -2
        app.setup_app(self.conf)
        self.assertEqual(2, freeze.call_count)
