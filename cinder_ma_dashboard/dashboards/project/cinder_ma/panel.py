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


"""A panel of Project > Volumes without an entry in the navigation: it
holds the forms of the actions of the volume detail's Attachments tab
(the tab itself is in Horizon's volume detail pages)."""

from django.utils.translation import gettext_lazy as _

import horizon

#: The catalog types Horizon finds the Block Storage API under.
VOLUME_SERVICES = (('openstack.services.block-storage',
                    'openstack.services.block-store',
                    'openstack.services.volume',
                    'openstack.services.volumev3'),)


class CinderMA(horizon.Panel):
    name = _('Shared Volume Actions')
    slug = 'cinder_ma'
    permissions = VOLUME_SERVICES
    nav = False
