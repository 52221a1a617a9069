"""Base classes of cinder_ma's tests."""

import fixtures
import testtools

from cinder_ma import context
from tests import fixtures as cm_fixtures


class TestCase(testtools.TestCase):
    """Configuration in a temporary state directory; no database."""

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.NestedTempfile())
        self.conf_fixture = self.useFixture(cm_fixtures.ConfFixture())
        self.conf = self.conf_fixture.conf
        self.state_path = self.conf_fixture.state_path

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
