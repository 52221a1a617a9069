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

"""Tests of the QoS specs rules and of what a volume's type's specs give
its connections and its driver (real SQLite database)."""

from cinder_ma.db import qos_specs as qos_db
from cinder_ma.db import types as type_db
from cinder_ma import exception
from cinder_ma.volume import qos_specs
from tests import base


class QoSSpecsTestCase(base.DBTestCase):

    def setUp(self):
        super().setUp()
        self.vtype = type_db.volume_type_create(self.admin_context,
                                                {'name': 'gold'})

    def _associated(self, consumer, **specs):
        qos = qos_specs.create(self.admin_context, 'q',
                               dict(specs, consumer=consumer))
        qos_specs.associate(self.admin_context, qos.id, self.vtype.id)
        return qos

    def _for(self, size):
        return qos_specs.for_volume(self.admin_context, self.vtype.id, size)

    def test_for_volume_by_consumer(self):
        self.assertEqual((None, None), self._for(1))
        qos = self._associated('front-end', total_iops_sec='10')
        self.assertEqual(({'total_iops_sec': '10'}, None),
                         self._for(1))
        qos_specs.update(self.admin_context, qos.id, {'consumer': 'back-end'})
        self.assertEqual((None, {'total_iops_sec': '10'}),
                         self._for(1))
        qos_specs.update(self.admin_context, qos.id, {'consumer': 'both'})
        both = {'total_iops_sec': '10'}
        self.assertEqual((both, both), self._for(1))

    def test_for_volume_of_an_unknown_type(self):
        self._associated('both', total_iops_sec='10')
        self.assertEqual((None, None), qos_specs.for_volume(
            self.admin_context, 'no-such-type', 1))

    def test_per_gb_keys(self):
        self._associated('front-end', read_iops_sec_per_gb='10',
                         read_iops_sec_per_gb_min='100',
                         write_iops_sec_per_gb='3',
                         total_iops_sec_per_gb='many')
        front, _back = self._for(50)
        # 10 x 50 = 500 over the minimum; 3 x 50; a bad number is dropped.
        self.assertEqual({'read_iops_sec': '500', 'write_iops_sec': '150'},
                         front)
        front, _back = self._for(5)
        self.assertEqual({'read_iops_sec': '100', 'write_iops_sec': '15'},
                         front)

    def test_bad_consumer(self):
        self.assertRaises(exception.InvalidQoSSpecs, qos_specs.create,
                          self.admin_context, 'q', {'consumer': 'middle'})
        self.assertEqual([], qos_db.qos_specs_get_all(self.admin_context))

    def test_delete_keys_is_all_or_nothing(self):
        qos = qos_specs.create(self.admin_context, 'q', {'a': '1', 'b': '2'})
        self.assertRaises(exception.QoSSpecsKeyNotFound,
                          qos_specs.delete_keys, self.admin_context, qos.id,
                          ['a', 'missing'])
        self.assertEqual({'a': '1', 'b': '2'},
                         qos_specs.get(self.admin_context, qos.id).specs)

    def test_policy(self):
        member = self.context
        self.assertRaises(exception.PolicyNotAuthorized,
                          qos_specs.list_specs, member)
        self.assertRaises(exception.PolicyNotAuthorized, qos_specs.create,
                          member, 'q', {})
