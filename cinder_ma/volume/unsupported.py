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

"""The resources of Cinder's API that cinder_ma does not have (see
:mod:`cinder_ma.api.v3.unsupported`): who may list them (Cinder's list
policy of each, with the caller's project as the target), and their
lists, empty."""

from cinder_ma.policies import unsupported as policies
from cinder_ma import policy

#: Cinder's list policy of each kind, by the key of its lists; group
#: types have none, as in Cinder.
LIST_RULES = {
    'backups': policies.BACKUPS_GET_ALL,
    'groups': policies.GROUPS_GET_ALL,
    'group_snapshots': policies.GROUP_SNAPSHOTS_GET_ALL,
}


def list_resources(context, kind):
    """The caller's resources of a kind cinder_ma does not have: none.

    :param kind: the key of its lists in Cinder's bodies (``snapshots``).
    :raises PolicyNotAuthorized: Cinder's list policy of the kind refuses
        the caller.
    """
    rule = LIST_RULES.get(kind)
    if rule is not None:
        policy.authorize(context, rule)
    return []
