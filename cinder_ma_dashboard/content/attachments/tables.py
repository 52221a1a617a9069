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


"""The attachments of a volume (its detail page's Attachments tab), with
the actions on them, each shown only when cinder_ma's policy would allow
it (and when the attachment is in a state the action takes)."""

import urllib.parse

from django.template import defaultfilters
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from horizon import tables
from horizon.utils import filters

from cinder_ma_dashboard import policy

#: The namespace of the views of the actions.
URLS = 'horizon:project:cinder_ma:'


def action_url(request, name, object_id):
    """The URL of an action's form, which returns to this page."""
    return '%s?%s' % (reverse(URLS + name, args=[object_id]),
                      urllib.parse.urlencode(
                          {'next': request.get_full_path()}))


def instance_label(attachment):
    if attachment.instance_name:
        return '%s (%s)' % (attachment.instance_name, attachment.instance)
    return attachment.instance or '-'


def role(attachment):
    """Writer or standby of a one-writer volume; a fenced standby (a
    writer demoted by a promotion) cannot be promoted and says so."""
    if attachment.is_writer:
        return _('Writer (fenced)') if attachment.fenced else _('Writer')
    if attachment.writers == 'one' and attachment.attach_mode == 'ro':
        return _('Standby (fenced)') if attachment.fenced else _('Standby')
    return '-'


def timestamp(value):
    """A time to the second, in the user's time zone."""
    return defaultfilters.date(value, 'Y-m-d H:i:s')


def fenced(attachment):
    return _('Yes') if attachment.fenced else _('No')


class ModalLink(tables.LinkAction):
    classes = ('ajax-modal',)

    def get_link_url(self, datum=None):
        return action_url(self.table.request, self.url_name, datum.id)


class FenceAttachment(ModalLink):
    name = 'fence'
    verbose_name = _('Fence Attachment')
    url_name = 'fence'
    classes = ('ajax-modal', 'btn-danger')
    icon = 'ban'
    policy_rules = policy.rules(policy.FENCE)

    def allowed(self, request, attachment=None):
        return (attachment is not None and not attachment.fenced and
                attachment.status == 'attached')


class PromoteAttachment(ModalLink):
    name = 'promote'
    verbose_name = _('Promote to Writer')
    url_name = 'promote'
    icon = 'level-up'
    policy_rules = policy.rules(policy.PROMOTE)

    def allowed(self, request, attachment=None):
        return attachment is not None and attachment.is_standby


class ReadonlyAction(tables.LinkAction):
    """Set or clear the volume's read-only flag (a table action: it acts
    on the volume of the table)."""
    classes = ('ajax-modal',)
    policy_rules = policy.rules(policy.UPDATE_READONLY)
    #: What the action sets the flag to.
    readonly = True

    def allowed(self, request, datum=None):
        volume = getattr(self.table, 'ma_volume', None)
        return (volume is not None and volume.status == 'available' and
                volume.readonly != self.readonly)

    def get_link_url(self, datum=None):
        return action_url(self.table.request,
                          'set_readonly' if self.readonly else
                          'clear_readonly', self.table.ma_volume.id)


class SetReadonly(ReadonlyAction):
    name = 'set_readonly'
    verbose_name = _('Set Read-only')
    icon = 'lock'


class ClearReadonly(ReadonlyAction):
    name = 'clear_readonly'
    verbose_name = _('Clear Read-only')
    icon = 'unlock'
    readonly = False


class AttachmentsTable(tables.DataTable):
    instance = tables.Column(instance_label, verbose_name=_('Instance'))
    host = tables.Column('host', verbose_name=_('Host'), empty_value='-')
    attach_mode = tables.Column('attach_mode', verbose_name=_('Mode'),
                                empty_value='-')
    role = tables.Column(role, verbose_name=_('Role'))
    status = tables.Column('status', verbose_name=_('Status'))
    fenced = tables.Column(fenced, verbose_name=_('Fenced'))
    generation = tables.Column('generation', verbose_name=_('Generation'),
                               empty_value='-')
    attached_at = tables.Column('attached_at', verbose_name=_('Attached At'),
                                filters=(filters.parse_isotime,
                                         timestamp),
                                empty_value='-')
    id = tables.Column('id', verbose_name=_('Attachment ID'))

    class Meta:
        name = 'cinder_ma_attachments'
        verbose_name = _('Attachments')
        table_actions = (SetReadonly, ClearReadonly)
        row_actions = (PromoteAttachment, FenceAttachment)
