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


"""The names of cinder_ma's policy rules the dashboard checks.

Horizon checks them in its "volume" policy, which reads them from
``conf/cinder_ma_policy.d`` (added to Horizon's ``POLICY_DIRS`` by
``local_settings.d/_1480_cinder_ma_dashboard.py``).
"""

import os

SERVICE = 'volume'
ADMIN = 'context_is_admin'
ATTACHMENT_LIST = 'volume:attachment_get_all'
FENCE = 'volume:attachment_fence'
PROMOTE = 'volume:attachment_promote'
UPDATE_READONLY = 'volume_extension:volume_actions:update_readonly_flag'
#: Horizon's name (its Volume Types panel's) for cinder_ma's
#: volume_extension:types_manage: both are rule:admin_api.
TYPE_CREATE = 'volume_extension:type_create'

#: The policy directory of the plugin (absolute: Horizon joins it to its
#: POLICY_FILES_PATH, which leaves an absolute path as it is).
POLICY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          'conf', 'cinder_ma_policy.d')


def rules(*names):
    """Horizon's ``policy_rules`` for ``names``."""
    return tuple((SERVICE, name) for name in names)
