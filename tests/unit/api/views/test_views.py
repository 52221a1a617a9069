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

"""Tests of the helpers shared by the views."""

import datetime

from cinder_ma.api import views
from tests import base


class TestIsotime(base.TestCase):

    def test_same_as_isoformat_with_microseconds(self):
        utc = datetime.UTC
        plus_two = datetime.timezone(datetime.timedelta(hours=2))
        for value in (
                datetime.datetime(2026, 11, 21, 20, 0, 0),
                datetime.datetime(2026, 11, 21, 20, 0, 0, 1),
                datetime.datetime(2026, 11, 21, 20, 0, 0, 120000),
                datetime.datetime(2026, 11, 21, 20, 0, 0, 999999),
                datetime.datetime(1, 1, 1),
                datetime.datetime(9999, 12, 31, 23, 59, 59, 999999),
                datetime.datetime(2026, 11, 21, 20, 0, 0, tzinfo=utc),
                datetime.datetime(2026, 11, 21, 20, 0, 0, 5, tzinfo=utc),
                datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=plus_two)):
            self.assertEqual(value.isoformat(timespec='microseconds'),
                             views.isotime(value), repr(value))

    def test_cinder_format(self):
        self.assertEqual('2026-11-21T20:00:00.000000', views.isotime(
            datetime.datetime(2026, 11, 21, 20, 0, 0)))
        self.assertEqual('2026-11-21T20:00:00.000042', views.isotime(
            datetime.datetime(2026, 11, 21, 20, 0, 0, 42)))

    def test_none(self):
        self.assertIsNone(views.isotime(None))
