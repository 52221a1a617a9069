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

"""Tests of cinder_ma.api.schemas.transfers."""

from cinder_ma.api.schemas import transfers as schemas
from cinder_ma.api import validation
from cinder_ma import exception
from tests import base

VOLUME = '6f0b4bde-4a3f-4b8d-9f0c-3f4a4cf2f7d1'


class TransferSchemaTestCase(base.BaseTestCase):

    def _ok(self, schema, body):
        validation.validate(schema, body)

    def _bad(self, schema, body):
        self.assertRaises(exception.CinderMAException, validation.validate,
                          schema, body)

    def test_create(self):
        self._ok(schemas.create, {'transfer': {'volume_id': VOLUME}})
        self._ok(schemas.create, {'transfer': {'volume_id': VOLUME,
                                               'name': None}})
        self._bad(schemas.create, {'transfer': {'name': 'x'}})
        self._bad(schemas.create, {'transfer': {'volume_id': 'nope'}})
        # no_snapshots from 3.55 only.
        body = {'transfer': {'volume_id': VOLUME, 'no_snapshots': 'true'}}
        self._bad(schemas.create, body)
        self._ok(schemas.create_v355, body)
        self._bad(schemas.create_v355, {'transfer': {
            'volume_id': VOLUME, 'no_snapshots': 'maybe'}})

    def test_accept(self):
        self._ok(schemas.accept, {'accept': {'auth_key': 'abc'}})
        self._bad(schemas.accept, {'accept': {}})
        self._bad(schemas.accept, {'accept': {'auth_key': ''}})
        self._bad(schemas.accept, {'accept': {'auth_key': 'k', 'x': 1}})
