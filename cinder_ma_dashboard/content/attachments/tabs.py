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


"""The Attachments tab of a volume's detail page (Project > Volumes and
Admin > Volumes), added to Horizon's tab groups by ``EXTRA_TABS`` in the
plugin's enabled file."""

from django.utils.translation import gettext_lazy as _

from horizon import exceptions
from horizon import tabs

from openstack_dashboard.api import base
from openstack_dashboard.api import nova
from openstack_dashboard import policy as horizon_policy

from cinder_ma_dashboard.api import cinder_ma
from cinder_ma_dashboard.content.attachments import tables
from cinder_ma_dashboard import policy


def is_admin(request):
    """Whether cinder_ma's policy makes the user an administrator (who
    sees every project's attachments)."""
    return horizon_policy.check(policy.rules(policy.ADMIN), request)


def instance_names(request, instance_ids):
    """Instance id -> name, from Nova where it runs and knows them."""
    names = {}
    if not base.is_service_enabled(request, 'compute'):
        return names
    for instance_id in sorted(set(filter(None, instance_ids))):
        try:
            names[instance_id] = nova.server_get(request, instance_id).name
        except Exception:  # noqa: S112 - not every consumer is Nova's
            continue
    return names


def load_volume(request, volume_id):
    """The volume with its attachments (an administrator's: of every
    project) and their instances' names."""
    volume = cinder_ma.volume_get(request, volume_id)
    attachments = cinder_ma.attachment_list(
        request, volume_id=volume_id, all_projects=is_admin(request))
    names = instance_names(request, [a.get('instance')
                                     for a in attachments])
    return cinder_ma.attachments_of(volume, attachments, names)


class AttachmentsTab(tabs.TableTab):
    name = _('Attachments')
    slug = 'cinder_ma_attachments'
    table_classes = (tables.AttachmentsTable,)
    template_name = 'cinder_ma_dashboard/_attachments_tab.html'
    policy_rules = policy.rules(policy.ATTACHMENT_LIST)
    preload = True

    def _volume(self):
        if not hasattr(self, '_ma_volume'):
            self._ma_volume = None
            volume = self.tab_group.kwargs.get('volume')
            if volume is not None:
                try:
                    self._ma_volume = load_volume(self.request, volume.id)
                except Exception:
                    exceptions.handle(self.request, _(
                        'Unable to retrieve the attachments of the '
                        'volume.'))
        return self._ma_volume

    def get_cinder_ma_attachments_data(self):
        volume = self._volume()
        self._tables['cinder_ma_attachments'].ma_volume = volume
        return volume.attachments if volume is not None else []

    def get_context_data(self, request, **kwargs):
        context = super().get_context_data(request, **kwargs)
        context['ma_volume'] = self._volume()
        return context
