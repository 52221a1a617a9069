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


"""cinder_ma's dashboard (cinder_ma_dashboard) in Horizon 27, driven in
headless chromium against the gate's cloud.

A member sets and clears a volume's read-only flag from the volume's
Attachments tab and sees the volume's attachments there (mode, writer and
standby, fenced state, generation), and no fencing or promotion. The
administrator, from Admin > Volumes, fences the writer of a one-writer
volume of the gate's ``nbd`` backend (whose connections are each
attachment's own) and promotes its standby, as an active/passive
fail-over goes; and sees cinder_ma refuse a promotion on the ``file``
backend (whose connections are its hosts'), with its reason. On Admin >
Shared Volumes the administrator lists, filters and creates: the panel
shows the fencing event cinder_ma recorded when an attachment was fenced
through its API, and the last run of ``cinder-ma-manage attachment
audit``, run here. Every screen is compared with what cinder_ma's API
says (with the extensions' fields), and saved as a screenshot
(``horizon/dashboard-*.png`` in the log directory).
"""

import os
import re
import subprocess
import uuid

from cinder_ma import message_field
from tests import fixtures as cm_fixtures
from tests.functional import fixtures as fx
from tests.openstack import test_horizon

EXTENSIONS = {'Cinder-MA-Extensions':
              'cinder-ma-multiattach,cinder-ma-writers,cinder-ma-fencing'}
FENCED = 'cinder-ma-fencing:fenced'
GENERATION = 'cinder-ma-fencing:generation'
TAB = 'volume_details__cinder_ma_attachments'
FENCING_EVENT = message_field.event_id(
    message_field.Resource.VOLUME, message_field.Action.FENCE_ATTACHMENT.id,
    message_field.Detail.ATTACHMENT_FENCED.id)


class DashboardTest(test_horizon.HorizonTestBase):

    def setUp(self):
        super().setUp()
        if not self.horizon.dashboard:
            cm_fixtures.skip_or_fail(
                self, 'cinder_ma_dashboard is not installed in Horizon\'s '
                      'virtualenv (tools/openstack/venvs.sh installs it)')
        cls = type(self)
        if 'one_writer_type' not in cls.__dict__:
            admin = self.keystone.admin_session()
            cls.one_writer_type = fx.unique('one-writer')
            self.cinder('POST', '/types', {'volume_type': {
                'name': cls.one_writer_type,
                'extra_specs': {'multiattach': '<is> True',
                                'multiattach:writers': 'one'}}},
                session=admin)
            cls.nbd_type = None
            if self.cloud.nbd is not None:
                # Shareable, one writer, on the backend whose connections
                # are each attachment's own.
                cls.nbd_type = fx.unique('one-writer-nbd')
                self.cinder('POST', '/types', {'volume_type': {
                    'name': cls.nbd_type,
                    'extra_specs': {
                        'multiattach': '<is> True',
                        'multiattach:writers': 'one',
                        'volume_backend_name': self.cloud.nbd.NAME}}},
                    session=admin)
            # Room for the volumes of every test of the class.
            self.cinder('PUT', '/os-quota-sets/%s' % self.project,
                        {'quota_set': {'volumes': 50, 'gigabytes': 100}},
                        session=admin)
            cls.servers = None

    # Helpers

    def ma(self, method, path, body=None, session=None):
        """cinder_ma's API with the extensions' fields."""
        session = session or self.member_session
        response = session.request(
            '%s/%s%s' % (self.cloud.cinder_endpoint,
                         session.get_project_id(), path),
            method, json=body, raise_exc=False, timeout=fx.HTTP_TIMEOUT,
            headers=dict(EXTENSIONS, **{
                'OpenStack-API-Version': 'volume %s' %
                test_horizon.VOLUME_VERSION}))
        if response.status_code >= 400:
            raise AssertionError('cinder_ma %s %s: %s %s' % (
                method, path, response.status_code, response.text))
        return response.json() if response.content else None

    def attachments(self, volume_id):
        return {a['id']: a for a in self.ma(
            'GET', '/attachments/detail?volume_id=%s' % volume_id)[
                'attachments']}

    def attach(self, volume_id, instance, host, mode):
        """An attachment an external consumer makes and completes."""
        attachment = self.ma('POST', '/attachments', {'attachment': {
            'volume_uuid': volume_id, 'instance_uuid': instance,
            'connector': {'host': host, 'initiator':
                          'iqn.2026-11.org.example:%s' % host},
            'mode': mode}})['attachment']
        self.ma('POST', '/attachments/%s/action' % attachment['id'],
                {'os-complete': None})
        return attachment['id']

    def require_nbd(self):
        """The one-writer type of the ``nbd`` backend (skip without it)."""
        if self.nbd_type is None:
            cm_fixtures.skip_or_fail(
                self, 'the cloud has no nbd backend (nbdkit and nbdinfo, '
                      'bindep.txt)')
        return self.nbd_type

    def cluster(self, volume_type=None, nova=True):
        """A one-writer volume (of ``volume_type``, else the ``file``
        backend's one-writer type) with a writer (rw) and a standby (ro),
        of two Nova servers, attached as a cluster manager attaches them:
        through cinder_ma's attachments API, not Nova's (Nova's API has no
        attach mode). Horizon's volume detail page asks Nova for the
        server of each attachment and fails without it (``nova``: skip
        without Nova; else the instances are made-up uuids when Nova does
        not run)."""
        if nova and self.nova is None:
            cm_fixtures.skip_or_fail(
                self, 'the cloud has no Nova (tests/openstack/cloud.py '
                      'starts it when CINDER_MA_NOVA_VENV is set)')
        volume = self.create_volume(volume_type or self.one_writer_type)
        cls = type(self)
        if self.nova is None:
            names = [fx.unique('node-a'), fx.unique('node-b')]
            instances = [str(uuid.uuid4()) for _name in names]
        else:
            # Two servers for the class: each boots from a volume.
            if cls.servers is None:
                names = [fx.unique('node-a'), fx.unique('node-b')]
                cls.servers = (names, [self.boot(name) for name in names])
            names, instances = cls.servers
        writer = self.attach(volume['id'], instances[0], 'compute-a', 'rw')
        standby = self.attach(volume['id'], instances[1], 'compute-b', 'ro')
        self.wait_volume(volume['id'], 'in-use')
        return volume, names, instances, writer, standby

    def run_audit(self):
        """``cinder-ma-manage attachment audit`` on the cloud's cinder_ma,
        as an operator runs it (exit 0: nothing found, 3: findings); the
        run it recorded, as ``GET /cinder-ma-audits`` shows it."""
        result = subprocess.run(
            fx.command('cinder-ma-manage') + [
                '--config-file', self.cloud.cinder.config_file,
                'attachment', 'audit'],
            cwd=self.cloud.cinder.directory, env=fx.environ(),
            stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=fx.HTTP_TIMEOUT * 4, check=False)
        self.assertIn(result.returncode, (0, 3), result.stdout +
                      result.stderr)
        [audit] = self.ma('GET', '/cinder-ma-audits?limit=1',
                          session=self.keystone.admin_session())['audits']
        return audit, result.stdout

    def open_tab(self, page, path, name):
        mark = self.open(page, path)
        page.click('a[data-target="#%s"]' % TAB)
        page.locator('#%s table' % TAB).wait_for()
        self.check_page(page, name, mark)
        return page.locator('#%s' % TAB)

    def shot(self, page, name):
        page.screenshot(path=os.path.join(self.log_dir, name + '.png'),
                        full_page=True)

    def submit(self, page, name):
        mark = len(self.horizon.calls())
        self.submit_modal(page)
        self.shot(page, name)
        return mark

    def assert_rows(self, tab, volume_id, names, instances):
        """The tab's rows say what the API says of each attachment."""
        attachments = self.attachments(volume_id)
        self.assertEqual(len(attachments), tab.locator(
            'tbody tr[data-object-id]').count())
        for attachment_id, attachment in attachments.items():
            text = self.row(tab, attachment_id).inner_text()
            cells = text.split('\t')
            self.assertIn(attachment['attach_mode'], cells, text)
            self.assertIn('Yes' if attachment[FENCED] else 'No', cells,
                          text)
            self.assertIn(str(attachment[GENERATION]), cells, text)
            instance = attachment['instance']
            self.assertIn(instance, text)
            if self.nova is not None:
                self.assertIn(names[instances.index(instance)], text)
        return attachments

    # The tests

    def test_member_readonly_flag_and_attachments(self):
        volume = self.create_volume(self.one_writer_type)
        page = self.as_member()
        path = 'project/volumes/%s/' % volume['id']
        for step, (action, flag) in enumerate((('set_readonly', 'True'),
                                               ('clear_readonly', None))):
            tab = self.open_tab(page, path, 'dashboard-readonly-%d' % step)
            tab.locator('#cinder_ma_attachments__action_%s' % action).click()
            modal = page.locator('.modal .cinder-ma-confirmation')
            modal.wait_for()
            self.assertIn('available', modal.inner_text())
            self.shot(page, 'dashboard-readonly-%d-confirm' % step)
            mark = self.submit(page, 'dashboard-readonly-%d-done' % step)
            self.check_page(page, 'dashboard-readonly-%d-done' % step, mark)
            self.assertEqual(flag, self.volume(volume['id'])[
                'metadata'].get('readonly'))
            tab = self.open_tab(page, path,
                                'dashboard-readonly-%d-tab' % step)
            self.assertEqual('Yes' if flag else 'No', tab.locator(
                '#cinder_ma_readonly').inner_text().strip())

        volume, names, instances, writer, standby = self.cluster()
        tab = self.open_tab(page, 'project/volumes/%s/' % volume['id'],
                            'dashboard-member-attachments')
        attachments = self.assert_rows(tab, volume['id'], names, instances)
        self.assertEqual('rw', attachments[writer]['attach_mode'])
        self.assertIn('Writer', self.row(tab, writer).inner_text())
        self.assertIn('Standby', self.row(tab, standby).inner_text())
        self.assertIn(writer, tab.locator('#cinder_ma_writer').inner_text())
        self.assertIn('one', tab.locator('#cinder_ma_writers').inner_text())
        # cinder_ma's policy: fencing and promotion are an
        # administrator's (or a service's); no read-only flag in use.
        for action in ('promote', 'fence', 'set_readonly'):
            self.assertEqual(0, tab.locator(
                '[id$="__action_%s"]' % action).count(), action)

    def test_admin_fences_and_promotes(self):
        """An active/passive fail-over from the dashboard, on the nbd
        backend: fence the writer, promote the standby."""
        volume, names, instances, writer, standby = self.cluster(
            self.require_nbd())
        before = self.attachments(volume['id'])
        # At the storage target: an export of each attachment's own.
        self.assertEqual({writer: 'rw', standby: 'ro'},
                         self.cloud.nbd.exports(volume['id']))
        page = self.as_admin()
        path = 'admin/volumes/%s/' % volume['id']
        tab = self.open_tab(page, path, 'dashboard-admin-attachments')
        self.assert_rows(tab, volume['id'], names, instances)
        # Hosts show to administrators.
        self.assertIn('compute-a', self.row(tab, writer).inner_text())
        self.assertEqual(0, self.row(tab, writer).locator(
            '[id$="__action_promote"]').count())

        # The active node fails: fence the writer. The confirmation says
        # that it keeps the writer slot.
        self.row_action(page, self.row(tab, writer), 'fence')
        confirmation = page.locator('.modal .cinder-ma-confirmation')
        confirmation.wait_for()
        text = ' '.join(confirmation.inner_text().split())
        self.assertIn('cut off at the storage target', text)
        self.assertIn('It is the writer of this one-writer volume', text)
        self.shot(page, 'dashboard-fence-confirm')
        mark = self.submit(page, 'dashboard-fence-done')
        self.check_page(page, 'dashboard-fence-done', mark)
        fenced = self.attachments(volume['id'])
        self.assertEqual(('rw', True, before[writer][GENERATION]),
                         (fenced[writer]['attach_mode'],
                          fenced[writer][FENCED],
                          fenced[writer][GENERATION]))
        self.assertEqual(before[standby], fenced[standby])
        # The writer's export is gone at once; the standby's serves.
        self.assertEqual({standby: 'ro'},
                         self.cloud.nbd.exports(volume['id']))
        tab = self.open_tab(page, path, 'dashboard-admin-after-fence')
        self.assert_rows(tab, volume['id'], names, instances)
        self.assertIn('Writer (fenced)', self.row(tab, writer).inner_text())
        self.assertEqual(0, self.row(tab, writer).locator(
            '[id$="__action_fence"]').count())

        # Promote the standby: the confirmation says what happens to the
        # fenced writer.
        self.row_action(page, self.row(tab, standby), 'promote')
        confirmation = page.locator('.modal .cinder-ma-confirmation')
        confirmation.wait_for()
        text = ' '.join(confirmation.inner_text().split())
        self.assertIn('%s (instance %s on host compute-a), is fenced '
                      'already' % (writer, names[0]), text)
        self.assertIn('at generation %d' % (
            fenced[standby][GENERATION] + 1), text)
        self.shot(page, 'dashboard-promote-confirm')
        mark = self.submit(page, 'dashboard-promote-done')
        self.check_page(page, 'dashboard-promote-done', mark)
        after = self.attachments(volume['id'])
        self.assertEqual(('rw', False, before[standby][GENERATION] + 1),
                         (after[standby]['attach_mode'],
                          after[standby][FENCED],
                          after[standby][GENERATION]))
        self.assertEqual(('ro', True), (after[writer]['attach_mode'],
                                        after[writer][FENCED]))
        self.assertEqual({standby: 'rw'},
                         self.cloud.nbd.exports(volume['id']))
        # One fence, one fencing event: the promotion demoted a writer
        # fenced already.
        self.assertEqual(1, len([
            m for m in self.ma(
                'GET', '/messages?event_id=%s' % FENCING_EVENT,
                session=self.keystone.admin_session())['messages']
            if m['resource_uuid'] == volume['id']]))
        tab = self.open_tab(page, path, 'dashboard-admin-after-promote')
        self.assert_rows(tab, volume['id'], names, instances)
        self.assertIn(standby, tab.locator('#cinder_ma_writer').inner_text())
        self.assertIn('Writer', self.row(tab, standby).inner_text())
        self.assertNotIn('Writer', self.row(tab, writer).inner_text())

    def test_admin_refused_on_shared_connections(self):
        """The ``file`` backend's connections are its hosts': cinder_ma
        refuses to promote one attachment, and the dashboard shows why."""
        volume, names, instances, writer, standby = self.cluster()
        before = self.attachments(volume['id'])
        page = self.as_admin()
        path = 'admin/volumes/%s/' % volume['id']
        tab = self.open_tab(page, path, 'dashboard-admin-file-attachments')
        self.row_action(page, self.row(tab, standby), 'promote')
        page.locator('.modal .cinder-ma-confirmation').wait_for()
        self.submit(page, 'dashboard-refused')
        errors = self.errors(page)
        self.assertEqual(1, len(errors), errors)
        self.assertIn('Unable to promote the attachment', errors[0])
        self.assertRegex(errors[0], re.compile('not its own',
                                               re.IGNORECASE))
        self.assertEqual(before, self.attachments(volume['id']))
        self.assertTrue(self.horizon.failed_calls(
            '/attachments/%s/action' % standby))

    def test_admin_shared_volumes_panel(self):
        volume, names, instances, writer, standby = self.cluster(
            self.require_nbd(), nova=False)
        plain = self.create_volume()
        admin = self.keystone.admin_session()
        # Fenced through cinder_ma's API: the fencing event is the user
        # message cinder_ma records for it.
        self.ma('POST', '/attachments/%s/action' % writer,
                {'cinder-ma-fencing:fence': {}}, session=admin)
        [event] = [m for m in self.ma(
            'GET', '/messages?event_id=%s' % FENCING_EVENT,
            session=admin)['messages'] if m['resource_uuid'] == volume['id']]
        event_id = event['id']
        volume = self.ma('GET', '/volumes/%s' % volume['id'],
                         session=admin)['volume']
        audit, printed = self.run_audit()
        page = self.as_admin()
        mark = self.open(page, 'admin/shared_volumes/')
        self.check_page(page, 'dashboard-shared-volumes', mark)
        row = self.row(page, volume['id'])
        self.assertEqual(1, row.count())
        text = row.inner_text()
        self.assertIn('one', text)
        for attachment in self.attachments(volume['id']).values():
            # "name (instance): mode, role [host]"
            self.assertIn('%s): %s' % (attachment['instance'],
                                       attachment['attach_mode']), text)
        self.assertEqual(0, self.row(page, plain['id']).count())
        self.assertIn('cinder-ma-manage attachment audit',
                      page.locator('#cinder_ma_audit').inner_text())
        # The last audit, as the API gives it and the command printed it.
        summary = page.locator('#cinder_ma_audit_summary').inner_text()
        for shown in (audit['created_at'], audit['host'],
                      str(audit['hosts_audited']),
                      str(audit['findings_count'])):
            self.assertIn(shown, summary)
        audit_text = page.locator('#cinder_ma_audit').inner_text()
        for finding in audit['findings']:
            self.assertIn(finding['problem'], audit_text)
            self.assertIn(finding['problem'], printed)
        if not audit['findings']:
            self.assertIn('Every attachment checked out.', audit_text)
            self.assertIn('checked out', printed)
        # The fencing event, as the messages API gives it.
        text = ' '.join(self.row(page, event_id).inner_text().split())
        for shown in (event['created_at'], volume['name'],
                      event['message_level'], event['request_id'],
                      ' '.join(event['user_message'].split())):
            self.assertIn(shown, text)

        # The fenced writer, with its generation.
        fenced = self.attachments(volume['id'])[writer]
        self.assertTrue(fenced[FENCED])
        self.assertIn(str(fenced[GENERATION]), self.row(
            page, writer).inner_text().split('\t'))

        # Filtered by project: the member's project has the volume;
        # another host has none of it.
        for field, value, count in (('project', self.project, 1),
                                    ('host', 'compute-a', 1),
                                    ('host', 'no-such-host', 0)):
            mark = len(self.horizon.calls())
            page.locator('select[name="shared_volumes__filter__q_field"]'
                         ).select_option(field, force=True)
            search = page.locator('input[name="shared_volumes__filter__q"]')
            search.fill(value)
            with page.expect_navigation():
                search.press('Enter')
            page.wait_for_load_state('load')
            self.check_page(page, 'dashboard-shared-volumes-%s-%s' % (
                field, count), mark)
            self.assertEqual(count, self.row(page, volume['id']).count(),
                             (field, value))
            self.assertEqual(count, self.row(page, event_id).count(),
                             (field, value))

        # A shareable volume type with its writer policy and cap.
        name = fx.unique('cluster-type')
        mark = len(self.horizon.calls())
        page.click('#shared_volumes__action_create_type')
        page.locator('.modal #id_name').wait_for()
        self.check_page(page, 'dashboard-create-type-form', mark)
        page.fill('.modal #id_name', name)
        page.fill('.modal #id_max_attachments', '3')
        mark = self.submit(page, 'dashboard-create-type-done')
        self.check_page(page, 'dashboard-create-type-done', mark)
        types = self.cinder('GET', '/types', session=admin)['volume_types']
        created = next(t for t in types if t['name'] == name)
        specs = self.cinder('GET', '/types/%s/extra_specs' % created['id'],
                            session=admin)['extra_specs']
        self.assertEqual({'multiattach': '<is> True',
                          'multiattach:writers': 'one',
                          'multiattach:max_attachments': '3'}, specs)
