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

"""cinder_ma/__init__.py filters eventlet's deprecation warning (that no
command prints it is checked in a fresh interpreter by
tests/functional/test_init.py)."""

import warnings

import cinder_ma  # noqa: F401  (the package installs the filter)
from tests import base


class TestEventletWarningFilter(base.BaseTestCase):

    def test_filter_is_installed(self):
        ignored = [message for action, message, _cat, _mod, _line
                   in warnings.filters
                   if action == 'ignore' and message is not None]
        self.assertTrue(
            any(m.match('Eventlet is deprecated') for m in ignored),
            ignored)
        self.assertFalse(
            any(m.match('Something else is deprecated') for m in ignored
                if m.pattern == r'\s*Eventlet is deprecated'))
