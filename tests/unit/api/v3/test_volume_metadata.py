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

"""Tests of volume metadata (``/volumes/{id}/metadata``), ETags from 3.15
and python-cinderclient's metadata calls."""

import uuid

from cinder_ma.api import microversions as mv
from tests.unit.api import base

ETAGS = base.headers(roles=['member', 'reader'], version=mv.ETAGS)
BEFORE_ETAGS = base.headers(roles=['member', 'reader'],
                            version=mv.prior(mv.ETAGS))


class MetadataTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.volume = self.create_volume(metadata={'a': '1', 'b': '2'})
        self.meta_url = self.url('volumes/%s/metadata' % self.volume.id)

    def metadata(self, volume=None):
        return self.app.get(
            self.url('volumes/%s' % (volume or self.volume).id),
            headers=base.MEMBER).json['volume']['metadata']


class TestMetadata(MetadataTestCase):

    def test_index(self):
        response = self.app.get(self.meta_url, headers=BEFORE_ETAGS)
        self.assertEqual({'metadata': {'a': '1', 'b': '2'}}, response.json)
        self.assertNotIn('Etag', response.headers)
        reader = base.headers(user='reader-user', roles=['reader'])
        self.assertEqual({'a': '1', 'b': '2'}, self.app.get(
            self.meta_url, headers=reader).json['metadata'])

    def test_create_merges(self):
        response = self.app.post_json(
            self.meta_url, {'metadata': {'b': '3', 'c': '4'}},
            headers=base.MEMBER)
        self.assertEqual({'metadata': {'a': '1', 'b': '3', 'c': '4'}},
                         response.json)
        self.assertEqual({'a': '1', 'b': '3', 'c': '4'}, self.metadata())

    def test_update_all_replaces(self):
        response = self.app.put_json(self.meta_url,
                                     {'metadata': {'c': '4'}},
                                     headers=base.MEMBER)
        self.assertEqual({'metadata': {'c': '4'}}, response.json)
        self.assertEqual({'c': '4'}, self.metadata())
        self.app.put_json(self.meta_url, {'metadata': {}},
                          headers=base.MEMBER)
        self.assertEqual({}, self.metadata())

    def test_one_item(self):
        item_url = self.meta_url + '/a'
        self.assertEqual({'meta': {'a': '1'}}, self.app.get(
            item_url, headers=base.MEMBER).json)
        response = self.app.put_json(item_url, {'meta': {'a': '5'}},
                                     headers=base.MEMBER)
        self.assertEqual({'meta': {'a': '5'}}, response.json)
        self.app.put_json(self.meta_url + '/new', {'meta': {'new': 'x'}},
                          headers=base.MEMBER)
        self.assertEqual({'a': '5', 'b': '2', 'new': 'x'},
                         self.metadata())
        response = self.app.delete(item_url, headers=base.MEMBER,
                                   status=200)
        self.assertEqual(b'', response.body)
        self.assertEqual({'b': '2', 'new': 'x'}, self.metadata())

    def test_missing_key(self):
        for response in (
                self.app.get(self.meta_url + '/nope', headers=base.MEMBER,
                             status=404),
                self.app.delete(self.meta_url + '/nope',
                                headers=base.MEMBER, status=404)):
            self.assertFault(response, 404, 'itemNotFound',
                             'Volume %s has no metadata with key nope.'
                             % self.volume.id)

    def test_validation(self):
        for body, message in (
                ({'metadata': {'k': 1}}, 'field/attribute k'),
                ({'metadata': {'bad\\key': 'v'}}, 'does not match'),
                ({'metadata': {'k': 'v' * 256}}, 'is too long'),
                ({'metadata': None}, "None is not of type 'object'"),
                ({'meta': {'k': 'v'}}, "'metadata' is a required property"),
                ({'metadata': {}, 'x': 1}, "'x' was unexpected")):
            for method in (self.app.post_json, self.app.put_json):
                response = method(self.meta_url, body,
                                  headers=base.MEMBER, status=400)
                self.assertFault(response, 400, 'badRequest', message)
        item_url = self.meta_url + '/a'
        for body, message in (
                ({'meta': {'b': '1'}}, 'Request body and URI mismatch'),
                ({'meta': {'a': '1', 'b': '2'}}, 'has too many'),
                ({'meta': {}}, 'should be non-empty'),
                ({'metadata': {'a': '1'}}, "'meta' is a required")):
            response = self.app.put_json(item_url, body,
                                         headers=base.MEMBER, status=400)
            self.assertFault(response, 400, 'badRequest', message)
        self.assertEqual({'a': '1', 'b': '2'}, self.metadata())

    def test_reader_cannot_write(self):
        reader = base.headers(user='reader-user', roles=['reader'])
        for response in (
                self.app.post_json(self.meta_url, {'metadata': {'c': '3'}},
                                   headers=reader, status=403),
                self.app.put_json(self.meta_url, {'metadata': {}},
                                  headers=reader, status=403),
                self.app.put_json(self.meta_url + '/a',
                                  {'meta': {'a': '3'}}, headers=reader,
                                  status=403),
                self.app.delete(self.meta_url + '/a', headers=reader,
                                status=403)):
            self.assertFault(response, 403, 'forbidden', 'volume:update')
        self.assertEqual({'a': '1', 'b': '2'}, self.metadata())

    def test_unknown_volumes(self):
        foreign = self.create_volume(project=base.OTHER_PROJECT)
        for volume_id in ('nope', str(uuid.uuid4()), foreign.id):
            url = self.url('volumes/%s/metadata' % volume_id)
            for response in (
                    self.app.get(url, headers=base.MEMBER, status=404),
                    self.app.post_json(url, {'metadata': {}},
                                       headers=base.MEMBER, status=404),
                    self.app.get(url + '/a', headers=base.MEMBER,
                                 status=404),
                    self.app.delete(url + '/a', headers=base.MEMBER,
                                    status=404)):
                self.assertFault(response, 404, 'itemNotFound', volume_id)

    def test_head(self):
        response = self.app.head(self.meta_url, headers=ETAGS)
        self.assertEqual(b'', response.body)
        self.assertIn('Etag', response.headers)


class TestETags(MetadataTestCase):

    def etag(self):
        return self.app.get(self.meta_url, headers=ETAGS).headers['Etag']

    def test_etag_follows_the_metadata(self):
        first = self.etag()
        self.assertEqual(first, self.etag())
        self.app.post_json(self.meta_url, {'metadata': {'c': '3'}},
                           headers=ETAGS)
        self.assertNotEqual(first, self.etag())

    def test_if_match(self):
        etag = self.etag()
        response = self.app.put_json(
            self.meta_url, {'metadata': {'a': '1'}},
            headers=dict(ETAGS, **{'If-Match': etag}))
        self.assertEqual({'metadata': {'a': '1'}}, response.json)
        # The metadata changed: the old ETag no longer holds.
        for method, url, body in (
                (self.app.put_json, self.meta_url, {'metadata': {}}),
                (self.app.put_json, self.meta_url + '/a',
                 {'meta': {'a': '9'}})):
            response = method(url, body,
                              headers=dict(ETAGS, **{'If-Match': etag}),
                              status=412)
            self.assertFault(response, 412, 'computeFault',
                             'changed since it was read')
        self.assertEqual({'a': '1'}, self.metadata())
        self.app.put_json(self.meta_url + '/a', {'meta': {'a': '9'}},
                          headers=dict(ETAGS, **{'If-Match': self.etag()}))
        self.assertEqual({'a': '9'}, self.metadata())

    def test_if_match_ignored_before_3_15(self):
        self.app.put_json(self.meta_url, {'metadata': {'z': '0'}},
                          headers=dict(BEFORE_ETAGS,
                                       **{'If-Match': 'stale'}))
        self.assertEqual({'z': '0'}, self.metadata())
