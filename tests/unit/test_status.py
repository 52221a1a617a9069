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

"""Table-driven tests of the one function deriving a volume's status."""

from cinder_ma import status
from tests import base

CASES = [
    # attachment statuses                        -> volume status
    ((), 'available'),
    (('detached',), 'available'),
    (('error_attaching',), 'available'),
    (('error_attaching', 'detached'), 'available'),
    (('reserved',), 'reserved'),
    (('reserved', 'reserved'), 'reserved'),
    (('reserved', 'detached'), 'reserved'),
    (('reserved', 'error_attaching'), 'reserved'),
    (('attaching',), 'attaching'),
    (('reserved', 'attaching'), 'attaching'),
    (('attached',), 'in-use'),
    (('attached', 'reserved'), 'in-use'),
    (('attached', 'attaching'), 'in-use'),
    (('attached', 'detaching'), 'in-use'),
    (('attached', 'error_attaching'), 'in-use'),
    (('attached', 'error_detaching'), 'in-use'),
    (('attached', 'detached'), 'in-use'),
    (('detaching',), 'detaching'),
    (('detaching', 'detached'), 'detaching'),
    (('detaching', 'reserved'), 'detaching'),
    (('detaching', 'attaching'), 'attaching'),
    (('error_detaching',), 'error_detaching'),
    (('error_detaching', 'detaching'), 'detaching'),
    (('error_detaching', 'error_attaching'), 'error_detaching'),
    (('error_detaching', 'reserved'), 'error_detaching'),
    (('error_detaching', 'attaching'), 'attaching'),
]


class DeriveTestCase(base.TestCase):

    def test_table(self):
        for attach_statuses, expected in CASES:
            self.assertEqual(expected, status.derive(attach_statuses),
                             attach_statuses)

    def test_order_does_not_matter(self):
        for attach_statuses, expected in CASES:
            self.assertEqual(expected,
                             status.derive(reversed(attach_statuses)))

    def test_derived_statuses_are_attachable(self):
        for _statuses, expected in CASES:
            self.assertIn(expected, status.ATTACHABLE_STATUSES)


class CountedStatusTestCase(base.TestCase):

    def test_an_attached_attachment_whose_detach_began_is_detaching(self):
        self.assertEqual('detaching',
                         status.counted_status('attached', 'a time'))
        self.assertEqual('attached', status.counted_status('attached', None))
        # Only attached ones: the mark means nothing on the others.
        for attach_status in ('reserved', 'attaching', 'detaching',
                              'error_detaching', 'error_attaching'):
            self.assertEqual(attach_status,
                             status.counted_status(attach_status, 'a time'))

    def test_derived(self):
        marked = status.counted_status('attached', 'a time')
        self.assertEqual('detaching', status.derive([marked]))
        self.assertEqual('in-use', status.derive([marked, 'attached']))
        self.assertEqual('detaching', status.derive([marked, 'reserved']))
