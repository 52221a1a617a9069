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

"""Policy rules of absolute limits (``GET /limits``)."""

from oslo_policy import policy

from cinder_ma.policies import base

USED_LIMITS = 'limits_extension:used_limits'

rules = [
    policy.DocumentedRuleDefault(
        name=USED_LIMITS, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show the absolute limits of a project with what it '
                    'uses of them (admins: of any project, with '
                    '?project_id= from microversion 3.39).',
        operations=[{'method': 'GET', 'path': '/v3/{project_id}/limits'}],
        scope_types=['project']),
]


def list_rules():
    return rules
