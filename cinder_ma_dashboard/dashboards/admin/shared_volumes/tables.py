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


"""Admin > Volume > Shared Volumes: every shareable volume and every
volume with more than one attachment, with its attachments; the fenced
attachments; the recent fencing events."""

from django.template import defaultfilters
from django.urls import reverse
from django.utils import html
from django.utils import safestring
from django.utils.translation import gettext_lazy as _

from horizon import tables

from cinder_ma_dashboard.content.attachments import tables as att_tables
from cinder_ma_dashboard import policy


def volume_link(volume):
    return reverse('horizon:admin:volumes:detail', args=[volume.id])


def attachments_cell(volume):
    """One line per attachment: instance, mode, role, fenced."""
    lines = []
    for attachment in volume.attachments:
        text = '%s: %s' % (att_tables.instance_label(attachment),
                           attachment.attach_mode or '-')
        role = att_tables.role(attachment)
        if role != '-':
            text += ', %s' % role
        if attachment.fenced:
            text += ', %s %s' % (_('fenced at generation'),
                                 attachment.generation)
        if attachment.host:
            text += ' [%s]' % attachment.host
        lines.append((text,))
    if not lines:
        return '-'
    return html.format_html_join(safestring.SafeString('<br>'), '{}', lines)


def event_volume_cell(event):
    """The event's volume: its name (or id), linked, or the id of a volume
    gone since."""
    if event.volume is None:
        return event.resource_uuid or '-'
    return html.format_html('<a href="{}">{}</a>', volume_link(event.volume),
                            event.volume.name or event.volume.id)


def event_project_cell(event):
    if event.volume is None:
        return '-'
    return event.volume.project_name or event.volume.project_id or '-'


def writer_cell(volume):
    writer = volume.writer
    if writer is None:
        return '-'
    return writer.instance_name or writer.instance


def writers_cell(volume):
    return volume.writers or '-'


def readonly_cell(volume):
    return _('Yes') if volume.readonly else _('No')


class CreateShareableType(tables.LinkAction):
    name = 'create_type'
    verbose_name = _('Create Shareable Volume Type')
    url = 'horizon:admin:shared_volumes:create_type'
    classes = ('ajax-modal',)
    icon = 'plus'
    policy_rules = policy.rules(policy.TYPE_CREATE)


class SharedVolumesFilter(tables.FilterAction):
    filter_type = 'server'
    filter_choices = (('project', _('Project ='), True),
                      ('host', _('Host ='), True))


class SharedVolumesTable(tables.DataTable):
    name = tables.Column('name', verbose_name=_('Name'), link=volume_link)
    project = tables.Column('project_name', verbose_name=_('Project'))
    host = tables.Column('host', verbose_name=_('Host'), empty_value='-')
    volume_type = tables.Column('volume_type', verbose_name=_('Type'),
                                empty_value='-')
    status = tables.Column('status', verbose_name=_('Status'),
                           filters=(defaultfilters.title,))
    writers = tables.Column(writers_cell, verbose_name=_('Writer Policy'))
    readonly = tables.Column(readonly_cell, verbose_name=_('Read-only'))
    writer = tables.Column(writer_cell, verbose_name=_('Writer'))
    attachments = tables.Column(attachments_cell,
                                verbose_name=_('Attachments (mode)'))

    def get_object_display(self, volume):
        return volume.name or volume.id

    class Meta:
        name = 'shared_volumes'
        verbose_name = _('Shared Volumes')
        table_actions = (SharedVolumesFilter, CreateShareableType)


class FencedAttachmentsTable(tables.DataTable):
    volume = tables.Column('volume_label', verbose_name=_('Volume'))
    instance = tables.Column(att_tables.instance_label,
                             verbose_name=_('Instance'))
    host = tables.Column('host', verbose_name=_('Host'), empty_value='-')
    attach_mode = tables.Column('attach_mode', verbose_name=_('Mode'))
    generation = tables.Column('generation', verbose_name=_('Generation'))
    status = tables.Column('status', verbose_name=_('Status'))
    id = tables.Column('id', verbose_name=_('Attachment ID'))

    class Meta:
        name = 'fenced_attachments'
        verbose_name = _('Fenced Attachments')


class FencingEventsTable(tables.DataTable):
    created_at = tables.Column('created_at', verbose_name=_('Time (UTC)'))
    project = tables.Column(event_project_cell, verbose_name=_('Project'))
    volume = tables.Column(event_volume_cell, verbose_name=_('Volume'))
    level = tables.Column('message_level', verbose_name=_('Level'))
    message = tables.Column('user_message', verbose_name=_('Message'))
    request_id = tables.Column('request_id', verbose_name=_('Request ID'),
                               empty_value='-')

    def get_object_id(self, event):
        return event.id

    class Meta:
        name = 'fencing_events'
        verbose_name = _('Recent Fencing Events')
