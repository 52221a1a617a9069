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


"""The confirmations of the read-only flag, fencing and promotion: each
a form of hidden fields whose page states what the action does; cinder_ma
decides (a refusal is shown with its reason)."""

from django.urls import reverse
from django.utils import http
from django.utils.translation import gettext_lazy as _

from horizon import exceptions
from horizon import forms
from horizon import messages

from cinder_ma_dashboard.api import cinder_ma


def next_url(request):
    """Where an action returns: the page it was started from (its
    ``next`` parameter, on this site only), or Project > Volumes."""
    target = request.GET.get('next')
    if target and http.url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}):
        return target
    return reverse('horizon:project:volumes:index')


def _reason(exc):
    """The message of cinder_ma's fault (cinderclient's exception)."""
    return getattr(exc, 'message', None) or str(exc)


class ActionForm(forms.SelfHandlingForm):
    """A confirmation; ``failure``: the message when cinder_ma refuses
    (shown with its reason on the page the action started from)."""

    failure = None

    def _refused(self, request, exc):
        exceptions.handle(request, '%s %s' % (self.failure, _reason(exc)),
                          redirect=next_url(request))


class ReadonlyForm(ActionForm):
    volume_id = forms.CharField(widget=forms.HiddenInput())
    readonly = forms.BooleanField(widget=forms.HiddenInput(),
                                  required=False)

    failure = _('Unable to update the read-only flag:')

    def handle(self, request, data):
        try:
            cinder_ma.update_readonly_flag(request, data['volume_id'],
                                           data['readonly'])
        except Exception as exc:
            return self._refused(request, exc)
        if data['readonly']:
            messages.success(request, _('Volume %s is read-only.') %
                             data['volume_id'])
        else:
            messages.success(request, _('Volume %s is no longer '
                                        'read-only.') % data['volume_id'])
        return True


class FenceForm(ActionForm):
    attachment_id = forms.CharField(widget=forms.HiddenInput())

    failure = _('Unable to fence the attachment:')

    def handle(self, request, data):
        try:
            answer = cinder_ma.fence(request, data['attachment_id'])
        except Exception as exc:
            return self._refused(request, exc)
        messages.success(request, _(
            'Attachment %(id)s is fenced (generation %(generation)s).') % {
                'id': answer['id'],
                'generation': answer.get(cinder_ma.GENERATION)})
        return True


class PromoteForm(ActionForm):
    attachment_id = forms.CharField(widget=forms.HiddenInput())

    failure = _('Unable to promote the attachment:')

    def handle(self, request, data):
        try:
            answer = cinder_ma.promote(request, data['attachment_id'])
        except Exception as exc:
            return self._refused(request, exc)
        messages.success(request, _(
            'Attachment %(id)s is the writer (generation %(generation)s).')
            % {'id': answer['id'],
               'generation': answer.get(cinder_ma.GENERATION)})
        return True
