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

"""Policy rules of availability zones (``os-availability-zone``)."""

from oslo_policy import policy

from cinder_ma.policies import base

GET_ALL = 'volume_extension:availability_zone_list'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL,
        check_str=base.PROJECT_READER_OR_ADMIN,
        description='List the availability zones of the storage '
                    'backends (any reader of their own project).',
        operations=[{'method': 'GET',
                     'path': '/v3/{project_id}/os-availability-zone'}],
        scope_types=['project']),
]


def list_rules():
    return rules
