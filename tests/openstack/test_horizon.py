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

"""Horizon 27 manages cinder_ma, driven in headless chromium.

Horizon (:mod:`tests.openstack.horizon`) runs as a deployer configures
it, against the cloud of :mod:`tests.openstack.cloud`, and talks to
cinder_ma directly (no shim). A member of a project logs in, lists
Project > Volumes (and its Snapshots, Groups and Group Snapshots
panels), creates a volume of a shareable type through the Create Volume
form and opens its detail page and tabs; attaches a shareable volume to
a server with Manage Attachments (Horizon asks Nova, Nova asks
cinder_ma), sees it shared with a second server (attached through Nova's
API: Horizon offers its attach form for available volumes only) and
detaches it from the first. The admin lists Admin > Volumes, Volume Types
(with the shareable type's extra specs), Snapshots, Group Types and Group
Snapshots.

Each page is checked twice: the page shows no error message (Horizon
turns a failed call into an ``alert-danger`` message such as "Unable to
retrieve volume list."), and Horizon's log shows no call to cinder_ma
answered with a 4xx or 5xx status. Every call Horizon made to cinder_ma
for a page is written to ``horizon/calls.txt`` in the log directory,
beside the screenshots (``horizon/*.png``).

What this cloud does not have is not faked: Glance cannot run here and
is not in the catalog, so Horizon's Create Volume form says "Invalid
service catalog: image" (it lists images as volume sources), which
these tests let pass; without Nova (``cloud.nova`` None) the pages that
ask Nova say the same of ``compute`` and the attach test skips.
"""

import os
import re
import urllib.parse

import fixtures
from testtools import content

from tests import base
from tests import fixtures as cm_fixtures
from tests.functional import fixtures as fx
from tests.openstack import cloud as gate_cloud
from tests.openstack import horizon

#: Seconds a volume or a server may take to reach a status.
TIMEOUT = 120
#: Milliseconds a page, a click or a form may take in the browser: a
#: Horizon page asks several services, on two busy cores.
PAGE_TIMEOUT = 120000
#: The Block Storage API version of the tests' own calls.
VOLUME_VERSION = '3.60'
#: The compute API version of the tests' own calls (multi-attach).
COMPUTE_VERSION = '2.60'

#: Horizon's message for a service missing from the catalog.
MISSING_SERVICE = re.compile(r'Invalid service catalog: ([\w-]+)')


class LoggedIn(fixtures.Fixture):
    """A browser context logged in to Horizon as one user, and its page.
    """

    def __init__(self, browser, url, username, password):
        super().__init__()
        self.browser = browser
        self.url = url
        self.username = username
        self.password = password

    def _setUp(self):
        self.context = self.browser.new_context(
            viewport={'width': 1400, 'height': 1000})
        self.addCleanup(self.context.close)
        self.context.set_default_timeout(PAGE_TIMEOUT)
        self.page = self.context.new_page()
        # Straight to Project > Volumes: the default landing page, the
        # project overview, asks Neutron.
        self.page.goto(self.url + 'auth/login/?next=/project/volumes/')
        self.page.fill('#id_username', self.username)
        self.page.fill('#id_password', self.password)
        with self.page.expect_navigation():
            self.page.click('#loginBtn')
        if '/auth/login' in self.page.url:
            raise AssertionError('Horizon refused the login of %s: %s' % (
                self.username, self.page.inner_text('body')[:500]))


class HorizonTestBase(base.BaseTestCase):
    """One Horizon, one browser and a project with a member for the
    class; a shareable volume type made by the admin. The helpers of the
    tests of Horizon (here and tests.openstack.test_dashboard)."""

    def setUp(self):
        super().setUp()
        self.cloud = gate_cloud.get(self)
        venv = gate_cloud.venv('horizon')
        if venv is None:
            cm_fixtures.skip_or_fail(
                self, 'Horizon is not installed (CINDER_MA_HORIZON_VENV; '
                      'tox -e openstack makes it)')
        if not os.access(horizon.CHROMIUM, os.X_OK):
            cm_fixtures.skip_or_fail(
                self, '%s is not installed (bindep.txt)' % horizon.CHROMIUM)
        self.keystone = self.cloud.keystone
        self.nova = self.cloud.nova
        self.log_dir = os.path.join(gate_cloud.log_dir(), 'horizon')
        os.makedirs(self.log_dir, exist_ok=True)
        self.horizon = fx.class_fixture(self, lambda: horizon.Horizon(
            self.keystone.auth_url, venv, region=self.keystone.REGION,
            log_dir=self.log_dir), key='horizon')
        self.browser = fx.class_fixture(self, horizon.Browser,
                                        key='browser').browser
        cls = type(self)
        if 'member' not in cls.__dict__:
            cls._set_up_class(self)
        self._pages = {}
        self.addOnException(self._attach_horizon_details)

    @classmethod
    def _set_up_class(cls, test):
        keystone = test.keystone
        project = keystone.create_project(fx.unique('horizon'))
        name, password, _, project = keystone.create_user(project)
        cls.project = project
        cls.member = (name, password)
        cls.member_session = keystone.session(name, password,
                                              project_id=project)
        cls.shareable_type = fx.unique('shareable')
        cls.shareable_type_id = test.cinder('POST', '/types', {
            'volume_type': {
                'name': cls.shareable_type,
                'description': 'Volumes that attach to several servers',
                'extra_specs': {'multiattach': '<is> True'}}},
            session=keystone.admin_session())['volume_type']['id']

    # Helpers: cinder_ma and Nova, through their APIs

    def cinder(self, method, path, body=None, session=None):
        session = session or self.member_session
        response = session.request(
            '%s/%s%s' % (self.cloud.cinder_endpoint,
                         session.get_project_id(), path),
            method, json=body, raise_exc=False, timeout=fx.HTTP_TIMEOUT,
            headers={'OpenStack-API-Version': 'volume %s' %
                     VOLUME_VERSION})
        if response.status_code >= 400:
            raise AssertionError('cinder_ma %s %s: %s %s' % (
                method, path, response.status_code, response.text))
        return response.json() if response.content else None

    def compute(self, method, path, body=None):
        response = self.nova.api(method, path, session=self.member_session,
                                 body=body, version=COMPUTE_VERSION)
        return response.json() if response.content else None

    def wait(self, predicate, what, timeout=TIMEOUT):
        return fx.wait_for(predicate, what, timeout=timeout,
                           interval=1)

    def volume(self, volume_id):
        return self.cinder('GET', '/volumes/%s' % volume_id)['volume']

    def volume_named(self, name):
        volumes = self.cinder('GET', '/volumes/detail?name=%s' %
                              urllib.parse.quote(name))['volumes']
        return volumes[0] if volumes else None

    def wait_volume(self, volume_id, status, servers=None):
        def reached():
            volume = self.volume(volume_id)
            if volume['status'] in ('error', 'error_deleting'):
                raise AssertionError('volume %s: %s' % (volume_id,
                                                        volume['status']))
            if volume['status'] != status:
                return None
            if servers is not None and sorted(
                    a['server_id'] for a in volume['attachments']) != sorted(
                    servers):
                return None
            return volume
        return self.wait(reached, 'volume %s %s (servers %s)' % (
            volume_id, status, servers))

    def create_volume(self, volume_type=None, bootable=False):
        body = {'volume': {'size': 1, 'name': fx.unique('volume')}}
        if volume_type:
            body['volume']['volume_type'] = volume_type
        volume = self.cinder('POST', '/volumes', body)['volume']
        self.wait_volume(volume['id'], 'available')
        if bootable:
            self.cinder('POST', '/volumes/%s/action' % volume['id'],
                        {'os-set_bootable': {'bootable': True}})
        return volume

    def boot(self, name):
        """A server booted from a new bootable volume, ACTIVE."""
        volume = self.create_volume(bootable=True)
        server = self.compute('POST', '/servers', {'server': {
            'name': name,
            'flavorRef': self.nova.flavors[self.nova.FLAVOR],
            'networks': 'none',
            'block_device_mapping_v2': [{
                'uuid': volume['id'], 'source_type': 'volume',
                'destination_type': 'volume', 'boot_index': 0}]}})['server']

        def active():
            found = self.compute('GET', '/servers/%s' % server['id'])[
                'server']
            if found['status'] == 'ERROR':
                raise AssertionError('server %s went ERROR: %s' % (
                    name, found.get('fault')))
            return found['status'] == 'ACTIVE'
        self.wait(active, 'server %s ACTIVE' % name)
        return server['id']

    # Helpers: Horizon in the browser

    def as_member(self):
        self._pages['member'] = fx.class_fixture(self, lambda: LoggedIn(
            self.browser, self.horizon.url, *self.member),
            key=('login', 'member')).page
        return self._pages['member']

    def as_admin(self):
        self._pages['admin'] = fx.class_fixture(self, lambda: LoggedIn(
            self.browser, self.horizon.url, self.keystone.ADMIN_USER,
            self.keystone.admin_password), key=('login', 'admin')).page
        return self._pages['admin']

    def open(self, page, path):
        """Open a page of Horizon; return the calls count before."""
        mark = len(self.horizon.calls())
        page.goto(self.horizon.url + path)
        page.wait_for_load_state('load')
        return mark

    def missing_services(self):
        """The service types Horizon may find missing from the catalog
        here."""
        missing = {'image'}
        if self.nova is None:
            missing.add('compute')
        return missing

    def errors(self, page):
        """The error messages the page shows, but those of a service this
        cloud does not have."""
        errors = []
        for alert in page.locator('.alert-danger, .alert-error').all():
            text = ' '.join(alert.inner_text().split())
            missing = MISSING_SERVICE.search(text)
            if missing and missing.group(1) in self.missing_services():
                continue
            errors.append(text)
        return errors

    def check_page(self, page, name, mark):
        """No error message on the page, no failed call to cinder_ma in
        Horizon's log since ``mark``; a screenshot; the calls to
        cinder_ma written to calls.txt."""
        page.screenshot(path=os.path.join(self.log_dir, name + '.png'),
                        full_page=True)
        calls = [call for call in self.horizon.calls()[mark:]
                 if call.url.startswith(self.cloud.cinder_endpoint)]
        with open(os.path.join(self.log_dir, 'calls.txt'), 'a') as f:
            f.write('%s (%s)\n' % (name, page.url))
            for call in calls:
                f.write('  %s %s -> %s\n' % (
                    call.method,
                    call.url[len(self.cloud.cinder_endpoint):],
                    call.status))
        failed = [str(call) for call in calls if call.status >= 400]
        errors = self.errors(page)
        self.assertEqual(([], []), (errors, failed),
                         '%s: error messages on the page, calls to '
                         'cinder_ma that failed' % name)
        return calls

    def _attach_horizon_details(self, exc_info):
        """On failure: the failed calls of Horizon's log, the state of its
        process, and a screenshot of each logged-in page."""
        self.addDetail('horizon failed calls', content.text_content(
            '\n'.join(str(c) for c in self.horizon.failed_calls())))
        self.addDetail('horizon', content.text_content(
            self.horizon.process.describe()))
        for user, page in self._pages.items():
            path = os.path.join(self.log_dir, '%s-%s-failed.png' % (
                self.id().rsplit('.', 1)[-1], user))
            try:
                page.screenshot(path=path, full_page=True)
            except Exception as exc:  # noqa: S110 - a detail only
                path = 'no screenshot: %s' % exc
            self.addDetail('%s page' % user, content.text_content(
                '%s\n%s' % (page.url, path)))

    def row(self, page, object_id):
        """The row of a Horizon table showing ``object_id``."""
        return page.locator('tr[data-object-id="%s"]' % object_id)

    def row_action(self, page, row, action):
        """Click a row's action: its button, or the entry of its menu
        (Horizon shows the first allowed action as the button)."""
        link = row.locator('[id$="__action_%s"]' % action)
        if not link.is_visible():
            row.locator('.dropdown-toggle').click()
        link.click()

    def choose(self, page, select_id, value):
        """Pick ``value`` in one of Horizon's themable selects (a
        dropdown over a hidden <select>), as a user clicks it."""
        widget = page.locator('.modal .themable-select:has(#%s)' %
                              select_id)
        widget.locator('.dropdown-toggle').click()
        widget.locator('a[data-select-value="%s"]' % value).click()

    def open_attachments(self, page, volume_id, name, attach_form=True):
        """Project > Volumes, then the volume's Manage Attachments."""
        mark = self.open(page, 'project/volumes/')
        self.check_page(page, name + '-list', mark)
        mark = len(self.horizon.calls())
        self.row_action(page, self.row(page, volume_id), 'attachments')
        page.locator('.modal #attachments').wait_for()
        self.check_page(page, name + '-form', mark)
        self.assertEqual(1 if attach_form else 0,
                         page.locator('.modal #id_instance').count())

    def nova_volumes(self, server_id):
        """The ids of the volumes Nova lists for the server."""
        return [a['volumeId'] for a in self.compute(
            'GET', '/servers/%s/os-volume_attachments' % server_id)[
                'volumeAttachments']]

    def submit_modal(self, page):
        page.locator('.modal .modal-footer [type=submit]').click()
        page.locator('.modal').first.wait_for(state='detached')
        page.wait_for_load_state('load')


class HorizonTest(HorizonTestBase):
    """Horizon's own panels on cinder_ma."""

    def test_project_volumes_lists_types(self):
        plain = self.create_volume()
        shared = self.create_volume(self.shareable_type)
        page = self.as_member()
        mark = self.open(page, 'project/volumes/')
        self.check_page(page, 'project-volumes', mark)
        for volume, type_name in ((plain, '__DEFAULT__'),
                                  (shared, self.shareable_type)):
            row = self.row(page, volume['id'])
            self.assertEqual(1, row.count(), volume)
            text = row.inner_text()
            self.assertIn(volume['name'], text)
            self.assertIn(type_name, text)
            self.assertIn('Available', text)

    def test_create_shareable_volume_and_detail(self):
        page = self.as_member()
        name = fx.unique('horizon-shared')
        mark = self.open(page, 'project/volumes/')
        self.check_page(page, 'create-volume-0-list', mark)
        mark = len(self.horizon.calls())
        page.click('#volumes__action_create')
        page.locator('.modal #id_name').wait_for()
        self.check_page(page, 'create-volume-1-form', mark)
        # The zones cinder_ma has are offered (Horizon lists them when the
        # extensions list names Cinder's "AvailabilityZones").
        zones = [zone['zoneName'] for zone in self.cinder(
            'GET', '/os-availability-zone')['availabilityZoneInfo']]
        offered = page.locator(
            '.modal #id_availability_zone option').all_inner_texts()
        self.assertTrue(zones)
        self.assertEqual(set(zones), set(offered) & set(zones), offered)
        page.fill('.modal #id_name', name)
        page.fill('.modal #id_description', 'made in Horizon')
        self.choose(page, 'id_type', self.shareable_type)
        page.fill('.modal #id_size', '1')
        mark = len(self.horizon.calls())
        self.submit_modal(page)
        self.check_page(page, 'create-volume-2-created', mark)

        volume = self.wait(lambda: self.volume_named(name),
                           'volume %s' % name)
        volume = self.wait_volume(volume['id'], 'available')
        self.assertEqual(self.shareable_type, volume['volume_type'])
        self.assertTrue(volume['multiattach'])
        self.assertEqual('made in Horizon', volume['description'])

        mark = self.open(page, 'project/volumes/')
        self.check_page(page, 'create-volume-3-list', mark)
        row = self.row(page, volume['id'])
        self.assertIn(self.shareable_type, row.inner_text())
        self.assertIn('Available', row.inner_text())

        # Its detail page, from its link in the list.
        mark = len(self.horizon.calls())
        with page.expect_navigation():
            row.locator('a', has_text=name).first.click()
        page.wait_for_load_state('load')
        self.check_page(page, 'create-volume-4-detail', mark)
        self.assertIn('/project/volumes/%s/' % volume['id'], page.url)
        detail = page.locator('.detail').inner_text()
        self.assertIn(volume['id'], detail)
        self.assertIn(self.shareable_type, detail)
        self.assertIn('Attached To', detail)
        self.assertIn('Not attached', detail)
        # Its Snapshots and Messages tabs, loaded when clicked.
        for tab in ('snapshots_tab', 'messages_tab'):
            mark = len(self.horizon.calls())
            page.click('a[data-target="#volume_details__%s"]' % tab)
            page.locator('#volume_details__%s table' % tab).wait_for()
            self.check_page(page, 'create-volume-5-%s' % tab, mark)

    def test_attach_through_horizon_and_share(self):
        """Manage Attachments attaches the shareable volume to a server;
        a second server attaches it through Nova's API (Horizon 27 offers
        the attach form for ``available`` volumes only, with Cinder too);
        Horizon lists both attachments, and detaches one while the other
        server keeps the volume."""
        if self.nova is None:
            cm_fixtures.skip_or_fail(
                self, 'the cloud has no Nova (tests/openstack/cloud.py '
                      'starts it when CINDER_MA_NOVA_VENV is set)')
        names = [fx.unique('horizon-a'), fx.unique('horizon-b')]
        servers = {name: self.boot(name) for name in names}
        first, second = (servers[name] for name in names)
        volume = self.create_volume(self.shareable_type)
        page = self.as_member()

        # Attach to the first server through Horizon (Horizon asks Nova,
        # Nova asks cinder_ma).
        self.open_attachments(page, volume['id'], 'attach-1')
        self.choose(page, 'id_instance', first)
        mark = len(self.horizon.calls())
        self.submit_modal(page)
        self.check_page(page, 'attach-2-submitted', mark)
        self.wait_volume(volume['id'], 'in-use', [first])

        # In use: Horizon lists the attachment and offers no attach form.
        self.open_attachments(page, volume['id'], 'attach-3-in-use',
                              attach_form=False)
        self.assertIn(names[0], page.locator(
            '.modal #attachments').inner_text())
        page.locator('.modal .cancel').click()

        # The second server attaches it through Nova's API.
        self.compute('POST', '/servers/%s/os-volume_attachments' % second,
                     {'volumeAttachment': {'volumeId': volume['id']}})
        self.wait_volume(volume['id'], 'in-use', [first, second])
        mark = self.open(page, 'project/volumes/')
        self.check_page(page, 'attach-4-list', mark)
        row_text = self.row(page, volume['id']).inner_text()
        for name in names:
            self.assertIn(name, row_text)
        self.assertIn('In-use', row_text)
        mark = self.open(page, 'project/volumes/%s/' % volume['id'])
        self.check_page(page, 'attach-5-detail', mark)
        detail = page.locator('.detail').inner_text()
        for name in names:
            self.assertIn(name, detail)
        # Nova's side and cinder_ma's: one attachment per server.
        for server_id in servers.values():
            self.assertIn(volume['id'], self.nova_volumes(server_id))
        attachments = self.cinder(
            'GET', '/attachments/detail?volume_id=%s' % volume['id'])[
                'attachments']
        self.assertEqual(sorted(servers.values()),
                         sorted(a['instance'] for a in attachments))
        self.assertEqual({'attached'}, {a['status'] for a in attachments})

        # Detach it from the first server through Horizon; the second
        # keeps it.
        self.open_attachments(page, volume['id'], 'attach-6-two',
                              attach_form=False)
        attachment = page.locator('.modal #attachments tbody tr',
                                  has_text=names[0])
        attachment.locator('button', has_text='Detach Volume').click()
        mark = len(self.horizon.calls())
        with page.expect_navigation():
            page.locator('.modal-footer .btn-danger, '
                         '.modal-footer .btn-primary').last.click()
        page.wait_for_load_state('load')
        self.check_page(page, 'attach-7-detached', mark)
        self.wait_volume(volume['id'], 'in-use', [second])
        self.assertNotIn(volume['id'], self.nova_volumes(first))
        self.assertIn(volume['id'], self.nova_volumes(second))

    def test_project_volume_panels(self):
        """The other panels of Project > Volumes render: cinder_ma has no
        snapshots or groups, and answers their lists as a Cinder without
        any does."""
        page = self.as_member()
        for path in ('project/snapshots/', 'project/volume_groups/',
                     'project/vg_snapshots/'):
            mark = self.open(page, path)
            self.check_page(page, path.strip('/').replace('/', '-'), mark)
            self.assertIn('No items to display', page.locator(
                '#main_content table').first.inner_text())

    def test_admin_volumes_and_volume_types(self):
        volume = self.create_volume(self.shareable_type)
        page = self.as_admin()
        mark = self.open(page, 'admin/volumes/')
        self.check_page(page, 'admin-volumes', mark)
        row = self.row(page, volume['id'])
        self.assertEqual(1, row.count())
        self.assertIn(self.shareable_type, row.inner_text())

        mark = self.open(page, 'admin/volume_types/')
        self.check_page(page, 'admin-volume-types', mark)
        types = page.locator('#volume_types').inner_text()
        self.assertIn(self.shareable_type, types)
        self.assertIn('__DEFAULT__', types)
        # The QoS specs table renders too.
        self.assertEqual(1, page.locator('#qos_specs').count())
        # cinder_ma serves volume type encryption (its extensions list
        # names Cinder's "VolumeTypeEncryption"): Horizon offers it.
        self.assertEqual(1, page.locator(
            '#volume_types__row_%s__action_create_encryption' %
            self.shareable_type_id).count())
        # The shareable type's extra specs (a modal), from its row.
        mark = len(self.horizon.calls())
        self.row_action(page, self.row(page, self.shareable_type_id),
                        'extras')
        specs = page.locator('.modal #extras')
        specs.wait_for()
        self.check_page(page, 'admin-volume-type-extra-specs', mark)
        self.assertIn('multiattach', specs.inner_text())
        self.assertIn('<is> True', specs.inner_text())
        page.locator('.modal .cancel, .modal .close').first.click()
        for path in ('admin/snapshots/', 'admin/group_types/',
                     'admin/vg_snapshots/'):
            mark = self.open(page, path)
            self.check_page(page, path.strip('/').replace('/', '-'), mark)
