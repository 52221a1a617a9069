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


from django.utils.translation import gettext_lazy as _

import horizon

from cinder_ma_dashboard.dashboards.project.cinder_ma import panel
from cinder_ma_dashboard import policy


class SharedVolumes(horizon.Panel):
    name = _('Shared Volumes')
    slug = 'shared_volumes'
    permissions = panel.VOLUME_SERVICES
    policy_rules = policy.rules(policy.ADMIN)
