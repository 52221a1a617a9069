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


# cinder_ma's dashboard: Admin > Volume > Shared Volumes (the Django
# application is added by _1481).

PANEL = 'shared_volumes'
PANEL_DASHBOARD = 'admin'
PANEL_GROUP = 'volume'
ADD_PANEL = ('cinder_ma_dashboard.dashboards.admin.shared_volumes.panel.'
             'SharedVolumes')
