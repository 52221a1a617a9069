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

"""Tests of the lists of resources cinder_ma does not have
(cinder_ma/volume/unsupported.py)."""

from cinder_ma.api.v3 import unsupported as controllers
from cinder_ma import context
from cinder_ma import exception
from cinder_ma.volume import unsupported
from tests import base

class ListResourcesTestCase(base.TestCase):

    def _context(self, *roles):
        return context.RequestContext(user_id='u', project_id='p',
                                      roles=list(roles))

    def test_cinders_list_policies(self):
        self.assertEqual(
            {'backups': 'backup:get_all',
             'groups': 'group:get_all',
             'group_snapshots': 'group:get_all_group_snapshots'},
            unsupported.LIST_RULES)
        # Every kind the API serves has one, but group types (none in
        # Cinder either).
        self.assertEqual({'group_types'},
                         {resource.key for resource in controllers.RESOURCES}
                         - set(unsupported.LIST_RULES))

    def test_readers_get_none(self):
        reader = self._context('reader')
        for kind in list(unsupported.LIST_RULES) + ['group_types']:
            self.assertEqual([], unsupported.list_resources(reader, kind))

    def test_no_role_is_refused_but_for_group_types(self):
        nobody = self._context()
        for kind in unsupported.LIST_RULES:
            self.assertRaises(exception.PolicyNotAuthorized,
                              unsupported.list_resources, nobody, kind)
        self.assertEqual([], unsupported.list_resources(nobody,
                                                        'group_types'))
