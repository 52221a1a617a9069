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

"""Base classes of cinder_ma's tests."""

import importlib.util
import logging
import os

import fixtures
from oslo_utils import timeutils
import testtools

from cinder_ma import context
from cinder_ma.db import services as service_db
from cinder_ma.db import types as type_db
from cinder_ma.db import volumes as volume_db
from tests import fixtures as cm_fixtures

#: Seconds one test may run before it fails, unless OS_TEST_TIMEOUT
#: (tox.ini sets it per environment) says otherwise; 0 turns it off.
DEFAULT_TEST_TIMEOUT = 300


def load_file(name, path):
    """The module of the Python file at ``path`` (a tool of tools/ or a
    docs extension: not in a package), loaded afresh under ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BaseTestCase(testtools.TestCase):
    """Every test of cinder_ma: a hung test fails after OS_TEST_TIMEOUT
    seconds (with its traceback) instead of holding up the run."""

    def setUp(self):
        super().setUp()
        try:
            timeout = int(os.environ.get('OS_TEST_TIMEOUT',
                                         DEFAULT_TEST_TIMEOUT))
        except ValueError:
            timeout = DEFAULT_TEST_TIMEOUT
        if timeout > 0:
            self.useFixture(fixtures.Timeout(timeout, gentle=True))

    def expect_logged_errors(self):
        """For a test that provokes failures on purpose: the log lines (and
        tracebacks) that operators would see are captured, for the test to
        check, instead of being printed by a passing run; a failing test
        shows them in its details ("pythonlogging").

        :returns: the FakeLogger; its ``output`` is the captured text.
        """
        return self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))


class TestCase(BaseTestCase):
    """Configuration in a temporary state directory; no database."""

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.NestedTempfile())
        self.conf_fixture = self.useFixture(cm_fixtures.ConfFixture())
        self.conf = self.conf_fixture.conf
        self.state_path = self.conf_fixture.state_path

    def set_policy_rules(self, rules):
        """Override policy rules (as a deployer's policy file would)."""
        from oslo_policy import policy as oslo_policy

        from cinder_ma import policy

        enforcer = policy.get_enforcer()
        enforcer.load_rules()
        enforcer.set_rules(oslo_policy.Rules.from_dict(rules),
                           overwrite=False, use_conf=False)

    def flags(self, group=None, **kw):
        for key, value in kw.items():
            self.conf.set_override(key, value, group=group)


class DBTestCase(TestCase):
    """With a migrated SQLite file database (threads can share it).

    Set ``DATABASE`` to 'postgresql' or 'mysql' in a subclass to run on a
    real server instead; the test skips (or fails in CI) when it is down.
    """

    DATABASE = 'sqlite'

    def setUp(self):
        super().setUp()
        url = cm_fixtures.server_url_or_skip(self, self.DATABASE)
        self.db = self.useFixture(cm_fixtures.Database(
            url, state_path=self.state_path))
        self.context = context.RequestContext(
            user_id='fake-user', project_id='fake-project',
            roles=['member', 'reader'])
        self.admin_context = context.RequestContext(
            user_id='admin-user', project_id='admin-project',
            roles=['admin', 'member', 'reader'], is_admin=True)

    def make_shared_volume(self, type_name='shared'):
        """An available shareable volume of project 'fake-project', of a
        new volume type named ``type_name``."""
        vtype = type_db.volume_type_create(self.context, {'name': type_name})
        return volume_db.volume_create(self.context, {
            'project_id': 'fake-project', 'size': 1, 'status': 'available',
            'volume_type_id': vtype.id, 'multiattach': True})

    def make_backend(self, host='testhost@file', multiattach=True,
                     shared_targets=False, free=100.0, total=100.0,
                     heartbeat=True, zone='nova', **caps):
        """A backend service row as a manager would report it."""
        backend = host.split('@', 1)[-1]
        capabilities = {
            'volume_backend_name': backend, 'driver': 'file',
            'storage_protocol': 'file', 'multiattach': multiattach,
            'shared_targets': shared_targets, 'online_extend': False,
            'pools': [{'pool_name': backend, 'total_capacity_gb': total,
                       'free_capacity_gb': free,
                       'reserved_percentage': 0}]}
        capabilities.update(caps)
        service = service_db.service_create(self.admin_context, {
            'host': host, 'binary': 'cinder-ma-volume',
            'topic': 'cinder-ma-manager', 'availability_zone': zone})
        service_db.service_update(self.admin_context, service.id, {
            'capabilities': capabilities,
            'heartbeat_at': timeutils.utcnow() if heartbeat else None})
        return service
