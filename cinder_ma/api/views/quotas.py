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

"""Quota views: Cinder's ``os-quota-sets`` and ``os-quota-class-sets``.

Show and defaults carry the ``id`` (the project, or the class name);
update does not, as in Cinder (and Tempest's schemas).
"""


def quota_set(project_id, limits):
    view = dict(limits)
    view['id'] = project_id
    return {'quota_set': view}


def updated_quota_set(limits):
    return {'quota_set': dict(limits)}


def quota_class_set(class_name, limits):
    view = dict(limits)
    view['id'] = class_name
    return {'quota_class_set': view}


def updated_quota_class_set(limits):
    return {'quota_class_set': dict(limits)}
