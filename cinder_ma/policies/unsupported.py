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

"""Policy rules of the lists of resources cinder_ma does not have
(backups, groups, group snapshots;
see :mod:`cinder_ma.api.v3.unsupported`): Cinder's names and defaults,
so that a policy file written for Cinder keeps its meaning. The lists are
always empty; shows answer 404 and creations 400 without a rule."""

from oslo_policy import policy

from cinder_ma.policies import base

BACKUPS_GET_ALL = 'backup:get_all'
GROUPS_GET_ALL = 'group:get_all'
GROUP_SNAPSHOTS_GET_ALL = 'group:get_all_group_snapshots'

_NONE_HERE = ' cinder_ma has none: the list is always empty.'


def _list_rule(name, what, paths):
    return policy.DocumentedRuleDefault(
        name=name, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List %s (any reader of their project).%s' % (
            what, _NONE_HERE),
        operations=[{'method': 'GET', 'path': '/v3/{project_id}' + path}
                    for path in paths],
        scope_types=['project'])


rules = [
    _list_rule(BACKUPS_GET_ALL, 'volume backups',
               ('/backups', '/backups/detail')),
    _list_rule(GROUPS_GET_ALL, 'generic volume groups',
               ('/groups', '/groups/detail')),
    _list_rule(GROUP_SNAPSHOTS_GET_ALL, 'group snapshots',
               ('/group_snapshots', '/group_snapshots/detail')),
]


def list_rules():
    return rules
