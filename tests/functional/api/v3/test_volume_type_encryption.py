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

"""python-cinderclient against the app served over HTTP:
cinder_ma/api/v3/volume_type_encryption.py (its unit tests are in
tests/unit/api/v3/test_volume_type_encryption.py)."""

from cinder_ma.api import microversions as mv
from tests.functional.api import fixtures as api_fixtures
from tests.unit.api.v3 import test_volume_type_encryption as unit


class TestWithCinderclient(unit.EncryptionTestCase):
    """python-cinderclient's encryption-type-create/show/update/delete
    calls."""

    def setUp(self):
        super().setUp()
        from cinderclient import exceptions
        self.client_errors = exceptions
        served = self.useFixture(api_fixtures.ServedApp(self.app.app))
        self.admin = api_fixtures.cinderclient_for(served.url, mv.MAX_VERSION,
                                                   user='admin-user',
                                                   roles=('admin',))

    def test_encryption_type_create_update_delete(self):
        manager = self.admin.volume_encryption_types
        vtype = self.admin.volume_types.find(name='secret')
        # As `cinder encryption-type-create secret luks` sends it.
        created = manager.create(vtype, {
            'provider': 'luks', 'cipher': None, 'key_size': None,
            'control_location': 'front-end'})
        self.assertEqual('luks', created.provider)
        shown = manager.get(vtype)
        self.assertEqual((self.vtype.id, 'luks', 'front-end'),
                         (shown.volume_type_id, shown.provider,
                          shown.control_location))
        listed = manager.list()
        self.assertEqual([self.vtype.id],
                         [e.volume_type_id for e in listed])
        manager.update(vtype, {'cipher': 'aes-xts-plain64',
                               'key_size': 256})
        self.assertEqual(256, manager.get(vtype).key_size)
        shared = self.admin.volume_types.create('shared')
        shared.set_keys({'multiattach': '<is> True'})
        error = self.assertRaises(self.client_errors.BadRequest,
                                  manager.create, shared,
                                  {'provider': 'luks',
                                   'control_location': 'front-end'})
        self.assertIn('a multiattach type cannot be encrypted',
                      error.message)
        manager.delete(vtype)
        self.assertFalse(hasattr(manager.get(vtype), 'volume_type_id'))
