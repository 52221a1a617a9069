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

"""Quota sets: ``/v3/{project_id}/os-quota-sets/{target_project_id}``.

Show (``?usage=true`` for limit, in_use and reserved of each resource),
the defaults a project gets (``.../defaults``), update (admins) and
delete (admins: the project's own limits are forgotten, its class's
apply). Keys and values are Cinder's (see :mod:`cinder_ma.volume.quotas`).
"""

from cinder_ma.api import expose
from cinder_ma.api import params
from cinder_ma.api.schemas import quotas as schemas
from cinder_ma.api import validation
from cinder_ma.api.views import quotas as views
from cinder_ma.volume import quotas


@expose.expose()
def show(req, project_id, target_project_id):
    usage = params.boolean(req.GET, 'usage')
    return views.quota_set(target_project_id, quotas.show(
        req.context, target_project_id, usage=usage))


@expose.expose()
def defaults(req, project_id, target_project_id):
    return views.quota_set(target_project_id, quotas.defaults(
        req.context, target_project_id))


@expose.expose()
@validation.schema(schemas.update_quota_set)
def update(req, project_id, target_project_id, body):
    return views.updated_quota_set(quotas.update(
        req.context, target_project_id, body['quota_set']))


@expose.expose()
def delete(req, project_id, target_project_id):
    quotas.delete(req.context, target_project_id)
