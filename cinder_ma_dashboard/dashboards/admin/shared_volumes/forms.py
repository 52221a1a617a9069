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

from horizon import exceptions
from horizon import forms
from horizon import messages

from cinder_ma_dashboard.api import cinder_ma

WRITER_CHOICES = (
    (cinder_ma.ONE_WRITER, _('One writer, read-only standbys (one)')),
    ('many', _('Many writers (many)')),
)


class CreateShareableType(forms.SelfHandlingForm):
    name = forms.CharField(max_length=255, label=_('Name'))
    description = forms.CharField(max_length=255, required=False,
                                  label=_('Description'),
                                  widget=forms.Textarea(attrs={'rows': 3}))
    writers = forms.ThemableChoiceField(choices=WRITER_CHOICES,
                                        label=_('Writer Policy'),
                                        initial=cinder_ma.ONE_WRITER)
    max_attachments = forms.IntegerField(
        min_value=1, required=False, label=_('Attachment Cap'),
        help_text=_('The most attachments a volume of this type may have '
                    '(empty: no cap).'))
    is_public = forms.BooleanField(label=_('Public'), initial=True,
                                   required=False)

    def clean_name(self):
        name = self.cleaned_data['name'].strip()
        if not name:
            raise forms.ValidationError(_('The name may not be blank.'))
        return name

    def handle(self, request, data):
        try:
            volume_type = cinder_ma.shareable_type_create(
                request, data['name'], description=data['description'],
                writers=data['writers'],
                max_attachments=data['max_attachments'],
                is_public=data['is_public'])
        except Exception as exc:
            exceptions.handle(request, _(
                'Unable to create volume type %(name)s: %(reason)s') % {
                    'name': data['name'],
                    'reason': getattr(exc, 'message', None) or exc})
            return False
        messages.success(request, _('Created shareable volume type %s.') %
                         data['name'])
        return volume_type
