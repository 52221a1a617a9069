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

"""Tests of cinder_ma.api.views.transfers: the fields per path and
microversion."""

import datetime
from unittest import mock

from cinder_ma.api import microversions as mv
from cinder_ma.api.views import transfers as views
from cinder_ma.db import records
from tests import base

TRANSFER = records.Transfer(
    id='t1', volume_id='v1', display_name='gift', no_snapshots=True,
    source_project_id='p1', destination_project_id=None, accepted=False,
    created_at=datetime.datetime(2026, 11, 27, 12, 0, 0))


def _req(version):
    return mock.Mock(application_url='http://api:8776', GET={},
                     context=mock.Mock(project_id='p1'),
                     api_version=mv.APIVersionRequest(version))


class TransferViewTestCase(base.BaseTestCase):

    def _keys(self, body):
        return set(body['transfer'])

    def test_fields_per_path_and_version(self):
        base_keys = {'id', 'volume_id', 'name', 'links', 'created_at'}
        latest = _req(mv.MAX_VERSION)
        self.assertEqual({'id', 'volume_id', 'name', 'links'},
                         self._keys(views.summary(latest, TRANSFER)))
        self.assertEqual(base_keys, self._keys(views.show(latest, TRANSFER)))
        self.assertEqual(base_keys | {'no_snapshots'}, self._keys(
            views.show(_req('3.55'), TRANSFER, v3=True)))
        self.assertEqual(base_keys | {'no_snapshots', 'accepted',
                                      'source_project_id',
                                      'destination_project_id'},
                         self._keys(views.show(_req('3.57'), TRANSFER,
                                               v3=True)))
        created = views.create(latest, TRANSFER, 'k')['transfer']
        self.assertEqual(('k', '2026-11-27T12:00:00.000000'),
                         (created['auth_key'], created['created_at']))
        self.assertIn('/os-volume-transfer/t1', created['links'][0]['href'])

    def test_lists(self):
        req = _req(mv.MAX_VERSION)
        self.assertEqual(['transfers'], list(views.summary_list(req, [])))
        body = views.detail_list(req, [TRANSFER], limit=1, v3=True)
        self.assertEqual('next', body['transfers_links'][0]['rel'])
        self.assertIn('no_snapshots', body['transfers'][0])
