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

"""A volume's encryption metadata, in the shape of Cinder's
``GET /volumes/{volume_id}/encryption``: ``encryption_key_id`` (always
null: no key manager here) and, for a volume of an encrypted type, the
type's ``control_location``, ``cipher``, ``key_size`` and
``provider``."""


def index(encryption):
    values = {'encryption_key_id': None}
    if encryption is not None:
        values.update(control_location=encryption.control_location,
                      cipher=encryption.cipher,
                      key_size=encryption.key_size,
                      provider=encryption.provider)
    return values
