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

"""Tests of cinder_ma.volume.extra_specs_ops: Cinder's operators and
scopes."""

from cinder_ma.volume import extra_specs_ops as ops
from tests import base


class MatchTestCase(base.BaseTestCase):

    def _check(self, cases):
        for value, requirement, expected in cases:
            self.assertIs(expected, ops.match(value, requirement),
                          (value, requirement))

    def test_plain_equality(self):
        self._check([('iSCSI', 'iSCSI', True), ('iSCSI', 'FC', False),
                     (None, 'x', False), (None, None, True),
                     ('x', None, False),
                     # A reported boolean or number reads as its text.
                     (True, 'True', True), (10, '10', True)])

    def test_is(self):
        self._check([(True, '<is> True', True), ('true', '<is> True', True),
                     (False, '<is> True', False), (False, '<is> False', True),
                     (True, '<is>', False), (None, '<is> False', False)])

    def test_in_and_all_in(self):
        self._check([('iSCSI,FC', '<in> FC', True),
                     ('iSCSI', '<in> NVMe', False),
                     (['thin', 'thick'], '<in> thin', True),
                     (['thin', 'thick'], '<in> th', False),
                     ('aes vmx sse', '<all-in> aes vmx', True),
                     (['aes', 'vmx'], '<all-in> aes sse', False),
                     ('x', '<in>', False)])

    def test_or(self):
        self._check([('b', '<or> a <or> b <or> c', True),
                     ('d', '<or> a <or> b <or> c', False),
                     ('a', '<or> a', True), (True, '<or> True', True)])

    def test_numbers(self):
        self._check([(10, '== 10', True), ('10.0', '== 10', True),
                     (10, '!= 10', False), (11, '>= 10', True),
                     (9, '>= 10', False), (9, '<= 10', True),
                     # '=' is "at least", as in Cinder.
                     (11, '= 10', True), (9, '= 10', False),
                     ('many', '>= 1', False), (5, '>= lots', False)])

    def test_text(self):
        self._check([('abc', 's== abc', True), ('abc', 's!= abc', False),
                     ('abc', 's< abd', True), ('abc', 's<= abc', True),
                     ('b', 's> a', True), ('a', 's>= b', False),
                     # Text, not numbers: '10' sorts before '9'.
                     (10, 's< 9', True)])


class ScopeTestCase(base.BaseTestCase):

    def test_capability_path(self):
        self.assertEqual(['vendor_name'], ops.capability_path('vendor_name'))
        self.assertEqual(['vendor_name'],
                         ops.capability_path('capabilities:vendor_name'))
        self.assertEqual(['a', 'b'], ops.capability_path('capabilities:a:b'))
        for key in ('multiattach:writers', 'qos:read_iops_sec',
                    'replication_type:x', 'capabilities', 'capabilities:'):
            self.assertIsNone(ops.capability_path(key), key)

    def test_unmet(self):
        caps = {'vendor_name': 'Acme', 'nested': {'speed': 10},
                'online_extend': False}
        self.assertIsNone(ops.unmet(caps, {
            'vendor_name': 'Acme', 'capabilities:nested:speed': '>= 5',
            'multiattach:writers': 'one', 'online_extend': '<is> False'}))
        self.assertEqual(('nested', 'x', {'speed': 10}),
                         ops.unmet(caps, {'nested': 'x'}))
        self.assertEqual(('capabilities:nested:depth', '>= 1', None),
                         ops.unmet(caps, {'capabilities:nested:depth':
                                          '>= 1'}))
        self.assertEqual(('capabilities:vendor_name:x', 'y', None),
                         ops.unmet(caps, {'capabilities:vendor_name:x':
                                          'y'}))
