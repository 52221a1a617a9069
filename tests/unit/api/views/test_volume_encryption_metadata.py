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

"""The view of a volume's encryption metadata
(cinder_ma.api.views.volume_encryption_metadata), Cinder's shape."""

import types

from cinder_ma.api.views import volume_encryption_metadata as view
from tests import base


class TestIndex(base.BaseTestCase):

    def test_unencrypted_type_has_only_the_key_id(self):
        self.assertEqual({'encryption_key_id': None}, view.index(None))

    def test_encrypted_type(self):
        encryption = types.SimpleNamespace(
            control_location='front-end', cipher='aes-xts-plain64',
            key_size=256, provider='luks')
        self.assertEqual({'encryption_key_id': None,
                          'control_location': 'front-end',
                          'cipher': 'aes-xts-plain64', 'key_size': 256,
                          'provider': 'luks'}, view.index(encryption))
