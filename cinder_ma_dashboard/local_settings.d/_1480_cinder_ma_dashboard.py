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

# cinder_ma's dashboard: Horizon's "volume" policy also reads cinder_ma's
# rules (fencing, promotion...). Copy this file to Horizon's
# openstack_dashboard/local/local_settings.d/; Horizon runs it within its
# settings, after local_settings.py.
# ruff: noqa: F821

from cinder_ma_dashboard import policy as _cinder_ma_policy

POLICY_DIRS = dict(POLICY_DIRS)  # noqa: F821
POLICY_DIRS['volume'] = (list(POLICY_DIRS.get('volume', [])) +
                         [_cinder_ma_policy.POLICY_DIR])
