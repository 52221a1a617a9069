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

"""Snapshot schemas: Cinder's bodies pass, others do not."""

import uuid

import jsonschema

from cinder_ma.api.schemas import snapshots as schemas
from tests import base


class SnapshotSchemasTestCase(base.TestCase):

    def _valid(self, schema, body):
        jsonschema.validate(body, schema,
                            format_checker=jsonschema.FormatChecker())

    def _invalid(self, schema, body):
        self.assertRaises(jsonschema.ValidationError, self._valid, schema,
                          body)

    def test_create(self):
        volume_id = str(uuid.uuid4())
        self._valid(schemas.create, {'snapshot': {
            'volume_id': volume_id, 'force': 'True', 'name': 'n',
            'metadata': None}})
        self._invalid(schemas.create, {'snapshot': {'name': 'n'}})
        self._invalid(schemas.create, {'snapshot': {
            'volume_id': volume_id, 'force': 'maybe'}})
        self._invalid(schemas.create, {'snapshot': {
            'volume_id': volume_id, 'size': 1}})

    def test_update_needs_a_field(self):
        self._valid(schemas.update, {'snapshot': {'description': 'd'}})
        self._invalid(schemas.update, {'snapshot': {}})

    def test_actions(self):
        self._valid(schemas.update_snapshot_status, {
            'os-update_snapshot_status': {'status': 'available',
                                          'progress': '50%'}})
        self._invalid(schemas.update_snapshot_status, {
            'os-update_snapshot_status': {'status': 'available',
                                          'progress': 'half'}})
        self._valid(schemas.reset_status, {'os-reset_status': {
            'status': 'error'}})
        self._invalid(schemas.reset_status, {'os-reset_status': {}})
        self._valid(schemas.metadata_item, {'meta': {'k': 'v'}})
        self._invalid(schemas.metadata_item, {'meta': {'k': 'v', 'l': 'w'}})
