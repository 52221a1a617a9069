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


"""Admin > Volume > Shared Volumes, and its Create Shareable Volume Type
form.

The volumes and attachments of every project come from two calls
(``GET /volumes/detail`` and ``GET /attachments/detail`` with
``all_tenants``), the project names from Keystone, the instance names
from Nova. The attachments fenced now come with their generation; the
recent fencing events are the user messages cinder_ma records for an
attachment fenced (``GET /messages`` filtered by its event id, every
project's to an administrator), each with its volume's project. The
last result of the attachment audit (``cinder-ma-manage attachment
audit``, which records each run) comes from the ``cinder-ma-audit``
extension.
"""

from django.urls import reverse_lazy
from django.utils.translation import gettext_lazy as _

from horizon import exceptions
from horizon import forms
from horizon import tables

from openstack_dashboard.api import keystone

from cinder_ma_dashboard.api import cinder_ma
from cinder_ma_dashboard.content.attachments import tabs
from cinder_ma_dashboard.dashboards.admin.shared_volumes \
    import forms as type_forms
from cinder_ma_dashboard.dashboards.admin.shared_volumes \
    import tables as sv_tables


def is_shared(volume):
    """Shareable (every shareable volume has a writer policy, one or
    many), or attached more than once."""
    return volume.multiattach or len(volume.attachments) > 1


def matches(volume, field, value):
    """The server-side filter: a project by id or name, a host by the
    volume's (host, host@backend or host@backend#pool) or an
    attachment's."""
    value = value.strip()
    if not value:
        return True
    if field == 'project':
        return value in (volume.project_id, volume.project_name)
    if field == 'host':
        hosts = {a.host for a in volume.attachments if a.host}
        if volume.host:
            hosts.update({volume.host, volume.host.split('#')[0],
                          volume.host.split('@')[0]})
        return value in hosts
    return True


def all_volumes(request):
    """Every project's volumes with their attachments."""
    volumes = cinder_ma.volume_list(request, all_projects=True)
    attachments = cinder_ma.attachment_list(request, all_projects=True)
    names = tabs.instance_names(request,
                                [a.get('instance') for a in attachments])
    for volume in volumes:
        cinder_ma.attachments_of(volume, attachments, names)
    return volumes


def shared_volumes(request):
    """Every project's shared volumes with their attachments."""
    return [v for v in all_volumes(request) if is_shared(v)]


def event_matches(event, filters):
    """A fencing event under the table's filter: its volume's (an event
    of a volume deleted since shows only when nothing is filtered)."""
    if not any(value.strip() for value in filters.values()):
        return True
    return event.volume is not None and all(
        matches(event.volume, field, value)
        for field, value in filters.items())


def project_names(request):
    try:
        projects, _more = keystone.tenant_list(request)
    except Exception:
        exceptions.handle(request, _('Unable to retrieve project list.'))
        return {}
    return {p.id: p.name for p in projects}


class IndexView(tables.DataTableView):
    table_class = sv_tables.SharedVolumesTable
    template_name = 'cinder_ma_dashboard/shared_volumes/index.html'
    page_title = _('Shared Volumes')

    def get_data(self):
        self._fenced = []
        self._events = []
        try:
            volumes = all_volumes(self.request)
        except Exception:
            exceptions.handle(self.request,
                              _('Unable to retrieve shared volumes.'))
            return []
        names = project_names(self.request)
        for volume in volumes:
            volume.project_name = names.get(volume.project_id,
                                            volume.project_id)
        filters = self.get_filters()
        self._events = self.fencing_events(
            {v.id: v for v in volumes}, filters)
        volumes = [v for v in volumes
                   if is_shared(v) and
                   all(matches(v, field, value)
                       for field, value in filters.items())]
        volumes.sort(key=lambda v: (v.project_name or '', v.name, v.id))
        for volume in volumes:
            for attachment in volume.fenced:
                attachment.volume_label = volume.name or volume.id
                self._fenced.append(attachment)
        return volumes

    def fencing_events(self, volumes, filters):
        """The recent fencing events, with their volumes, filtered."""
        try:
            events = cinder_ma.fencing_events(self.request)
        except Exception:
            exceptions.handle(self.request,
                              _('Unable to retrieve the fencing events.'))
            return []
        for event in events:
            event.volume = volumes.get(event.resource_uuid)
        return [e for e in events if event_matches(e, filters)]

    def last_audit(self):
        """The newest run of the attachment audit (None: never run), and
        whether it could be read."""
        try:
            return cinder_ma.last_audit(self.request), True
        except Exception:
            exceptions.handle(self.request,
                              _('Unable to retrieve the last attachment '
                                'audit.'))
            return None, False

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context['audit'], context['audit_read'] = self.last_audit()
        context['fenced_table'] = sv_tables.FencedAttachmentsTable(
            self.request, data=getattr(self, '_fenced', []))
        context['events_table'] = sv_tables.FencingEventsTable(
            self.request, data=getattr(self, '_events', []))
        return context


class CreateTypeView(forms.ModalFormView):
    form_class = type_forms.CreateShareableType
    template_name = 'cinder_ma_dashboard/form.html'
    ajax_template_name = 'cinder_ma_dashboard/_form.html'
    modal_id = 'cinder_ma_create_type_modal'
    page_title = _('Create Shareable Volume Type')
    submit_label = _('Create Volume Type')
    submit_url = reverse_lazy('horizon:admin:shared_volumes:create_type')
    success_url = reverse_lazy('horizon:admin:shared_volumes:index')
    cancel_url = reverse_lazy('horizon:admin:shared_volumes:index')

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context['description'] = [
            _('A volume type whose volumes attach to several instances '
              '(multiattach="<is> True").'),
            _('Writer policy "one": any number of read-only attachments '
              'and at most one read-write attachment at a time; a '
              'standby can be promoted to writer, fencing the writer. '
              '"many": every attachment may write (the guests need a '
              'cluster filesystem).'),
            _('The attachment cap (multiattach:max_attachments) limits '
              'how many attachments a volume of the type may have.')]
        return context
