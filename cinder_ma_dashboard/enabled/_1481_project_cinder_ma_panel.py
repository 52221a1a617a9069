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


# cinder_ma's dashboard: the Attachments tab of the volume detail pages
# (Project > Volumes and Admin > Volumes) and the forms of its actions.
# Copy to openstack_dashboard/local/enabled/ with _2481 (and the
# settings snippet of local_settings.d/).

PANEL = 'cinder_ma'
PANEL_DASHBOARD = 'project'
PANEL_GROUP = 'volumes'
ADD_PANEL = 'cinder_ma_dashboard.dashboards.project.cinder_ma.panel.CinderMA'
ADD_INSTALLED_APPS = ['cinder_ma_dashboard']

_TAB = 'cinder_ma_dashboard.content.attachments.tabs.AttachmentsTab'
EXTRA_TABS = {
    'openstack_dashboard.dashboards.project.volumes.tabs.VolumeDetailTabs':
        ((50, _TAB),),
    'openstack_dashboard.dashboards.admin.volumes.tabs.VolumeDetailTabs':
        ((50, _TAB),),
}
