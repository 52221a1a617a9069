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


from django.urls import re_path
from django.views import generic

from cinder_ma_dashboard.dashboards.project.cinder_ma import views

ID = r'(?P<%s>[^/]+)'

urlpatterns = [
    # The panel has no page of its own (nor an entry in the navigation).
    re_path(r'^$', generic.RedirectView.as_view(
        pattern_name='horizon:project:volumes:index'), name='index'),
    re_path(r'^volumes/%s/set_readonly/$' % (ID % 'volume_id'),
            views.ReadonlyView.as_view(readonly=True), name='set_readonly'),
    re_path(r'^volumes/%s/clear_readonly/$' % (ID % 'volume_id'),
            views.ReadonlyView.as_view(readonly=False),
            name='clear_readonly'),
    re_path(r'^attachments/%s/fence/$' % (ID % 'attachment_id'),
            views.FenceView.as_view(), name='fence'),
    re_path(r'^attachments/%s/promote/$' % (ID % 'attachment_id'),
            views.PromoteView.as_view(), name='promote'),
]
