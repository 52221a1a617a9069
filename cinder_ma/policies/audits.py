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

"""Policy rule of the attachment audit's results (the ``cinder-ma-audit``
extension): administrators only, as the audit itself (it names every
project's attachments and every host)."""

from oslo_policy import policy

from cinder_ma.policies import base

PATH = '/v3/{project_id}/cinder-ma-audits'

GET_ALL = 'cinder_ma_extension:attachment_audit:get_all'

rules = [
    policy.DocumentedRuleDefault(
        name=GET_ALL, check_str=base.RULE_ADMIN_API,
        description='List the recorded results of cinder-ma-manage '
                    'attachment audit, newest first.',
        operations=[{'method': 'GET', 'path': PATH}],
        scope_types=['project']),
]


def list_rules():
    return rules
