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

"""The default rules of volume types (cinder_ma.policies.types): readers
read, as Cinder's defaults; a token of no reader role reads nothing."""

from cinder_ma import context
from cinder_ma import exception
from cinder_ma.policies import types as type_policies
from cinder_ma import policy
from tests import base

READS = (type_policies.GET, type_policies.GET_ALL,
         type_policies.EXTRA_SPECS_READ)


def _context(roles, service_roles=None, project='p'):
    return context.RequestContext(user_id='u', project_id=project,
                                  roles=list(roles),
                                  service_roles=service_roles)


class TestTypeReadRules(base.TestCase):

    def allowed(self, ctx, rule):
        return bool(policy.authorize(ctx, rule, do_raise=False))

    def test_readers_members_and_admins_read(self):
        for roles in (['reader'], ['member', 'reader'], ['member'],
                      ['admin']):
            ctx = _context(roles)
            for rule in READS:
                self.assertTrue(self.allowed(ctx, rule), (roles, rule))

    def test_no_reader_role_reads_nothing(self):
        for ctx in (_context([]), _context(['service']),
                    _context(['service'], service_roles=['service'])):
            for rule in READS:
                self.assertFalse(self.allowed(ctx, rule),
                                 (ctx.roles, rule))
                self.assertRaises(exception.PolicyNotAuthorized,
                                  policy.authorize, ctx, rule)

    def test_sensitive_specs_and_writes_stay_admins(self):
        reader = _context(['member', 'reader'])
        for rule in (type_policies.EXTRA_SPECS_READ_SENSITIVE,
                     type_policies.MANAGE, type_policies.EXTRA_SPECS_MANAGE):
            self.assertFalse(self.allowed(reader, rule), rule)
            self.assertTrue(self.allowed(_context(['admin']), rule), rule)
