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


"""Horizon's unit test settings with the plugin enabled."""

# ruff: noqa: F403, F405
from openstack_dashboard.test.settings import *  # noqa: F403,H303

from openstack_dashboard import enabled as _horizon_enabled
from openstack_dashboard.utils import settings as _settings_utils

from cinder_ma_dashboard import enabled as _enabled
from cinder_ma_dashboard import policy as _policy

# Enable Horizon's panels and the plugin's again, from Horizon's list.
_plugins = HORIZON_CONFIG.pop('plugins', [])
HORIZON_CONFIG.pop('dashboards', None)
HORIZON_CONFIG.pop('default_dashboard', None)
INSTALLED_APPS = [app for app in INSTALLED_APPS if app not in _plugins]
_settings_utils.update_dashboards([_horizon_enabled, _enabled],
                                  HORIZON_CONFIG, INSTALLED_APPS)

POLICY_FILES = dict(POLICY_FILES, volume='cinder_policy.yaml')
POLICY_DIRS = {'volume': [_policy.POLICY_DIR]}
DEFAULT_POLICY_FILES = {'volume': 'default_policies/cinder.yaml'}
