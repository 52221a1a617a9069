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

"""Quota classes: ``/v3/{project_id}/os-quota-class-sets/{class_name}``
(admins).

The ``default`` class holds every project's default limits (over the
options); other classes can be set and shown, as in Cinder, but projects
use only ``default``.
"""

from cinder_ma.api import expose
from cinder_ma.api.schemas import quotas as schemas
from cinder_ma.api import validation
from cinder_ma.api.views import quotas as views
from cinder_ma.volume import quotas


@expose.expose()
def show(req, project_id, class_name):
    return views.quota_class_set(class_name, quotas.class_show(
        req.context, class_name))


@expose.expose()
@validation.schema(schemas.update_quota_class_set)
def update(req, project_id, class_name, body):
    return views.updated_quota_class_set(quotas.class_update(
        req.context, class_name, body['quota_class_set']))
