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

"""Hosts: ``/v3/{project_id}/os-hosts`` (admins), Cinder's ``os-hosts``
list and show.

The list has a row per service (``?zone=`` filters); show gives the
volume usage of an enabled backend host (``node@backend``, or ``node``
for all its backends): the host's total and each of its projects'.
"""

from cinder_ma.api import expose
from cinder_ma.api.views import hosts as views
from cinder_ma.volume import services as volume_services


@expose.expose()
def index(req, project_id):
    return views.index(req, volume_services.list_hosts(
        req.context, zone=req.GET.get('zone') or None))


@expose.expose()
def show(req, project_id, host_name):
    total, projects = volume_services.host_usage(req.context, host_name)
    return views.show(req, host_name, total, projects)
