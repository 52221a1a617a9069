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


"""The confirmation pages of the Attachments tab's actions. Each states
what cinder_ma will do, from the volume's state as the API shows it now
(who writes, who is fenced), before the user confirms."""

from django.utils.translation import gettext_lazy as _

from horizon import exceptions
from horizon import forms

from cinder_ma_dashboard.api import cinder_ma
from cinder_ma_dashboard.content.attachments import tabs
from cinder_ma_dashboard.dashboards.project.cinder_ma \
    import forms as action_forms


def who(attachment):
    """'instance NAME (ID) on host HOST' of an attachment."""
    text = _('instance %s') % (attachment.instance_name or
                               attachment.instance or _('(none)'))
    if attachment.host:
        text = _('%(instance)s on host %(host)s') % {
            'instance': text, 'host': attachment.host}
    return text


class ActionView(forms.ModalFormView):
    template_name = 'cinder_ma_dashboard/form.html'
    ajax_template_name = 'cinder_ma_dashboard/_form.html'
    cancel_label = _('Cancel')

    def get_success_url(self):
        return action_forms.next_url(self.request)

    def get_cancel_url(self):
        return self.get_success_url()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context['submit_url'] = self.request.get_full_path()
        context['cancel_url'] = self.get_cancel_url()
        context['description'] = self.description()
        return context

    def description(self):
        """The paragraphs stating what the action does."""
        return []

    def load_volume(self, volume_id):
        try:
            return tabs.load_volume(self.request, volume_id)
        except Exception:
            exceptions.handle(self.request,
                              _('Unable to retrieve volume %s.') % volume_id,
                              redirect=self.get_success_url())


class ReadonlyView(ActionView):
    form_class = action_forms.ReadonlyForm
    modal_id = 'cinder_ma_readonly_modal'
    readonly = True

    @property
    def page_title(self):
        return (_('Set Read-only') if self.readonly else
                _('Clear Read-only'))

    @property
    def submit_label(self):
        return self.page_title

    def get_initial(self):
        return {'volume_id': self.kwargs['volume_id'],
                'readonly': self.readonly}

    def description(self):
        volume_id = self.kwargs['volume_id']
        if self.readonly:
            return [
                _('Volume %s becomes read-only: every attachment made '
                  'from now on is read-only (ro), whatever mode is asked, '
                  'and its connection too.') % volume_id,
                _('cinder_ma changes the flag only while the volume is '
                  'available (attached nowhere).')]
        return [
            _('Volume %s is no longer read-only: attachments made from '
              'now on get the mode they ask for (rw or ro); on a '
              'one-writer volume, one of them at most may write.') %
            volume_id,
            _('cinder_ma changes the flag only while the volume is '
              'available (attached nowhere).')]


class AttachmentView(ActionView):
    """A fence or promote confirmation: the attachment, its volume and
    the volume's other attachments."""

    def get_initial(self):
        return {'attachment_id': self.kwargs['attachment_id']}

    def get_objects(self):
        if not hasattr(self, '_objects'):
            attachment_id = self.kwargs['attachment_id']
            try:
                info = cinder_ma.attachment_get(self.request, attachment_id)
            except Exception:
                exceptions.handle(
                    self.request,
                    _('Unable to retrieve attachment %s.') % attachment_id,
                    redirect=self.get_success_url())
            volume = self.load_volume(info['volume_id'])
            attachment = next((a for a in volume.attachments
                               if a.id == attachment_id),
                              cinder_ma.Attachment(info,
                                                   writers=volume.writers))
            self._objects = (attachment, volume)
        return self._objects


class FenceView(AttachmentView):
    form_class = action_forms.FenceForm
    modal_id = 'cinder_ma_fence_modal'
    page_title = _('Fence Attachment')
    submit_label = _('Fence')

    def description(self):
        attachment, volume = self.get_objects()
        paragraphs = [
            _('Attachment %(id)s of volume %(volume)s (%(who)s, mode '
              '%(mode)s) is cut off at the storage target at once: its '
              'connection ends and its next read or write fails, even on '
              'a connection already open.') % {
                'id': attachment.id, 'volume': volume.name or volume.id,
                'who': who(attachment), 'mode': attachment.attach_mode},
            _('It stays fenced until its consumer connects it again with '
              'a new connector (new credentials, the next generation) or '
              'it is deleted.')]
        if attachment.is_writer:
            paragraphs.append(_(
                'It is the writer of this one-writer volume. Fenced, it '
                'keeps the writer slot: the volume has no working writer '
                'until a standby is promoted or this attachment is '
                'deleted.'))
        elif volume.writer is not None:
            paragraphs.append(_(
                'The writer, attachment %(id)s (%(who)s), is not '
                'affected.') % {'id': volume.writer.id,
                                'who': who(volume.writer)})
        return paragraphs


class PromoteView(AttachmentView):
    form_class = action_forms.PromoteForm
    modal_id = 'cinder_ma_promote_modal'
    page_title = _('Promote to Writer')
    submit_label = _('Promote')

    def description(self):
        attachment, volume = self.get_objects()
        paragraphs = [_(
            'Attachment %(id)s (%(who)s, read-only) becomes the writer of '
            'one-writer volume %(volume)s, at generation %(next)s.') % {
                'id': attachment.id, 'who': who(attachment),
                'volume': volume.name or volume.id,
                'next': (attachment.generation or 0) + 1}]
        writer = volume.writer
        if writer is not None and writer.fenced:
            paragraphs.append(_(
                'The current writer, attachment %(id)s (%(who)s), is '
                'fenced already: its access stays revoked, and it is made '
                'read-only, so that it gives up the writer slot.') % {
                    'id': writer.id, 'who': who(writer)})
        elif writer is not None:
            paragraphs.append(_(
                'The current writer, attachment %(id)s (%(who)s), is fenced '
                'and made read-only first: its access is revoked at the '
                'storage target before the new read-write connection '
                'exists, so there are never two writers, even if its node '
                'is still running.') % {'id': writer.id,
                                        'who': who(writer)})
        else:
            paragraphs.append(_('The volume has no writer now: no '
                                'attachment is fenced.'))
        paragraphs.append(_(
            'The standby gets new credentials: its consumer reconnects '
            'with them before its guest mounts the volume read-write (an '
            'attachment made through a cinder_ma manager is switched in '
            'place on its host).'))
        return paragraphs
