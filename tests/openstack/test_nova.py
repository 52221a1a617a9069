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


"""The Nova scenarios of the multi-attach specs, through Nova's own API.

Each scenario is driven as a user drives it, through Nova 34's compute
API at microversion 2.60 (the first with multi-attach) with a member's
token, and checked on both sides: Nova's view (servers, their volume
attachments, instance actions) and cinder_ma's (the volume's status and
attachments). Nova's compute service runs the fake virt driver
(``fake.FakeDriverWithoutFakeNodes``, which supports multi-attach), so
no disk is really attached; every call between Nova and cinder_ma is
real. Servers boot from volumes with ``"networks": "none"``: Glance and
Neutron cannot run here (the Neutron stub answers Nova's list calls).
"""

import uuid

import testtools

from tests import fixtures as cm_fixtures
from tests.functional import fixtures as f_fixtures
from tests.openstack import cloud as gate_cloud

TIMEOUT = 120
VOLUME = '3.60'


class NovaTestCase(testtools.TestCase):
    """A project with a member, two servers booted once for the class, a
    shareable and a plain volume type."""

    servers = None

    def setUp(self):
        super().setUp()
        self.cloud = gate_cloud.get(self)
        if self.cloud.nova is None:
            cm_fixtures.skip_or_fail(
                self, 'Nova is not installed (CINDER_MA_NOVA_VENV; '
                      'tox -e openstack makes it)')
        self.nova = self.cloud.nova
        self.keystone = self.cloud.keystone
        cls = type(self)
        if cls.servers is None:
            cls._set_up_class(self)
        self.user, self.admin = cls.user, cls.admin_session

    @classmethod
    def _set_up_class(cls, test):
        keystone = test.keystone
        cls.project = keystone.create_project()
        name, password, _, project = keystone.create_user(cls.project)
        cls.user = keystone.session(name, password, project_id=project)
        cls.admin_session = keystone.admin_session()
        # Every scenario makes its volumes: room for them all.
        test.cinder('PUT', '/os-quota-sets/%s' % cls.project, {
            'quota_set': {'volumes': 200, 'gigabytes': 2000}},
            session=cls.admin_session)
        cls.shareable_type = test.create_type(
            'shareable-%s' % uuid.uuid4().hex[:8],
            {'multiattach': '<is> True'})
        cls.servers = [test.boot('server-a'), test.boot('server-b')]

    # cinder_ma

    def cinder(self, method, path, body=None, session=None, ok=True,
               version=VOLUME, project=None):
        session = session or self.user
        project = project or session.get_project_id()
        response = session.request(
            '%s/%s%s' % (self.cloud.cinder_endpoint, project, path),
            method, json=body, raise_exc=False, timeout=30,
            headers={'OpenStack-API-Version': 'volume %s' % version})
        if ok and response.status_code >= 400:
            raise AssertionError('cinder_ma %s %s: %s %s' % (
                method, path, response.status_code, response.text))
        return response

    def create_type(self, name, extra_specs):
        vtype = self.cinder('POST', '/types', {'volume_type': {
            'name': name, 'extra_specs': extra_specs}},
            session=self.keystone.admin_session()).json()['volume_type']
        return vtype['id']

    def volume(self, volume_id, session=None):
        return self.cinder('GET', '/volumes/%s' % volume_id,
                           session=session).json()['volume']

    def wait_volume(self, volume_id, status, attachments=None):
        def reached():
            volume = self.volume(volume_id)
            if volume['status'] == 'error':
                raise AssertionError('volume %s went error' % volume_id)
            if volume['status'] != status:
                return None
            if (attachments is not None and
                    sorted(a['server_id'] for a in volume['attachments'])
                    != sorted(attachments)):
                return None
            return volume
        return self.wait(reached, 'volume %s %s (servers %s)' % (
            volume_id, status, attachments))

    def create_volume(self, volume_type=None, bootable=False, size=1):
        body = {'volume': {'size': size,
                           'name': 'gate-%s' % uuid.uuid4().hex[:8]}}
        if volume_type:
            body['volume']['volume_type'] = volume_type
        volume_id = self.cinder('POST', '/volumes', body).json()['volume'][
            'id']
        self.wait_volume(volume_id, 'available')
        if bootable:
            self.cinder('POST', '/volumes/%s/action' % volume_id,
                        {'os-set_bootable': {'bootable': True}})
        return volume_id

    # Nova

    def wait(self, predicate, what, timeout=TIMEOUT):
        return f_fixtures.wait_for(predicate, what, timeout=timeout,
                                   interval=0.5)

    def server(self, server_id, ok=True):
        response = self.nova.api('GET', '/servers/%s' % server_id,
                                 session=self.user, ok=ok)
        return response.json()['server'] if response.status_code == 200 \
            else None

    def wait_server(self, server_id, status):
        def reached():
            server = self.server(server_id)
            if server['status'] == 'ERROR':
                raise AssertionError('server %s went ERROR: %s' % (
                    server_id, server.get('fault')))
            return server if server['status'] == status else None
        return self.wait(reached, 'server %s %s' % (server_id, status))

    def boot(self, name, volume_id=None, delete_on_termination=False,
             wait=True):
        """A server booted from ``volume_id`` (a new bootable plain
        volume by default)."""
        volume_id = volume_id or self.create_volume(bootable=True)
        server = self.nova.api('POST', '/servers', session=self.user, body={
            'server': {
                'name': name, 'flavorRef': self.nova.flavors[
                    self.nova.FLAVOR],
                'networks': 'none',
                'block_device_mapping_v2': [{
                    'uuid': volume_id, 'source_type': 'volume',
                    'destination_type': 'volume', 'boot_index': 0,
                    'delete_on_termination': delete_on_termination}]}}
        ).json()['server']
        if wait:
            self.wait_server(server['id'], 'ACTIVE')
        return server['id']

    def delete_server(self, server_id):
        self.nova.api('DELETE', '/servers/%s' % server_id,
                      session=self.user)
        self.wait(lambda: self.server(server_id, ok=False) is None,
                  'server %s deleted' % server_id)

    def nova_volumes(self, server_id):
        """The ids of the volumes Nova lists for the server."""
        return sorted(a['volumeId'] for a in self.nova.api(
            'GET', '/servers/%s/os-volume_attachments' % server_id,
            session=self.user).json()['volumeAttachments'])

    def attach(self, server_id, volume_id, ok=True):
        return self.nova.api(
            'POST', '/servers/%s/os-volume_attachments' % server_id,
            session=self.user, ok=ok, body={'volumeAttachment': {
                'volumeId': volume_id}})

    def detach(self, server_id, volume_id):
        self.nova.api('DELETE', '/servers/%s/os-volume_attachments/%s' % (
            server_id, volume_id), session=self.user)


class SharedVolumeTest(NovaTestCase):

    def test_attach_to_two_servers_then_detach_one_by_one(self):
        a, b = self.servers
        volume_id = self.create_volume(self.shareable_type)
        self.attach(a, volume_id)
        self.wait_volume(volume_id, 'in-use', [a])
        self.attach(b, volume_id)
        volume = self.wait_volume(volume_id, 'in-use', [a, b])
        self.assertTrue(volume['multiattach'])
        self.assertIn(volume_id, self.nova_volumes(a))
        self.assertIn(volume_id, self.nova_volumes(b))
        # cinder_ma's side: one attachment per server, each attached with
        # Nova's connector (its compute host), read-write.
        admin_view = self.volume(volume_id, session=self.admin)
        self.assertEqual({self.nova.host},
                         {a['host_name'] for a in admin_view['attachments']})
        listed = self.cinder('GET', '/attachments/detail?volume_id=%s' %
                             volume_id).json()['attachments']
        self.assertEqual(sorted([a, b]), sorted(x['instance']
                                                for x in listed))
        self.assertEqual({'attached'}, {x['status'] for x in listed})
        self.assertEqual({'rw'}, {x['attach_mode'] for x in listed})

        # Nova's detach: os-begin_detaching with the volume id only, then
        # the attachment's delete; the other server keeps the volume.
        self.detach(a, volume_id)
        self.wait_volume(volume_id, 'in-use', [b])
        self.assertNotIn(volume_id, self.nova_volumes(a))
        self.assertIn(volume_id, self.nova_volumes(b))
        self.detach(b, volume_id)
        self.wait_volume(volume_id, 'available', [])
        self.assertNotIn(volume_id, self.nova_volumes(b))

    def test_second_server_refused_on_a_plain_volume(self):
        a, b = self.servers
        volume_id = self.create_volume()
        self.attach(a, volume_id)
        self.wait_volume(volume_id, 'in-use', [a])
        response = self.attach(b, volume_id, ok=False)
        self.assertEqual(400, response.status_code, response.text)
        # Nova's own error, and cinder_ma kept its one attachment.
        self.assertIn('badRequest', response.json())
        volume = self.volume(volume_id)
        self.assertEqual([a], [x['server_id'] for x in volume['attachments']])
        self.assertNotIn(volume_id, self.nova_volumes(b))
        self.detach(a, volume_id)
        self.wait_volume(volume_id, 'available', [])

    def test_legacy_detaching_actions_act_on_the_volume(self):
        a, b = self.servers
        volume_id = self.create_volume(self.shareable_type)
        for server in (a, b):
            self.attach(server, volume_id)
        self.wait_volume(volume_id, 'in-use', [a, b])
        # As Nova calls them: the volume id only, several attachments.
        action = '/volumes/%s/action' % volume_id
        self.assertEqual(202, self.cinder(
            'POST', action, {'os-begin_detaching': {}}).status_code)
        self.assertEqual(202, self.cinder(
            'POST', action, {'os-roll_detaching': {}}).status_code)
        self.wait_volume(volume_id, 'in-use', [a, b])
        for server in (a, b):
            self.detach(server, volume_id)
        self.wait_volume(volume_id, 'available', [])

    def test_delete_server_holding_a_shared_volume(self):
        a = self.servers[0]
        doomed = self.boot('server-doomed')
        volume_id = self.create_volume(self.shareable_type)
        self.attach(a, volume_id)
        self.attach(doomed, volume_id)
        self.wait_volume(volume_id, 'in-use', [a, doomed])
        # Nova deletes its attachment with its service token.
        self.delete_server(doomed)
        self.wait_volume(volume_id, 'in-use', [a])
        self.detach(a, volume_id)
        self.wait_volume(volume_id, 'available', [])

    def test_delete_on_termination_of_a_boot_volume_attached_elsewhere(self):
        a = self.servers[0]
        boot_volume = self.create_volume(self.shareable_type, bootable=True)
        server = self.boot('server-dot', boot_volume,
                           delete_on_termination=True)
        self.attach(a, boot_volume)
        self.wait_volume(boot_volume, 'in-use', [server, a])
        # The server goes; cinder_ma refuses to delete a volume still
        # attached to another server, Nova logs that and carries on.
        self.delete_server(server)
        volume = self.wait_volume(boot_volume, 'in-use', [a])
        self.assertEqual(boot_volume, volume['id'])
        self.assertIn('Failed to delete volume: %s' % boot_volume,
                      self.nova.log('nova-compute'))
        self.detach(a, boot_volume)
        self.wait_volume(boot_volume, 'available', [])

    def test_boot_two_servers_from_one_shareable_volume(self):
        boot_volume = self.create_volume(self.shareable_type, bootable=True)
        first = self.boot('server-bfv-1', boot_volume)
        second = self.boot('server-bfv-2', boot_volume)
        self.wait_volume(boot_volume, 'in-use', [first, second])
        for server in (first, second):
            self.assertEqual([boot_volume], self.nova_volumes(server))
        self.delete_server(first)
        self.wait_volume(boot_volume, 'in-use', [second])
        self.delete_server(second)
        self.wait_volume(boot_volume, 'available', [])

    def test_resize_moves_the_shared_attachment(self):
        a = self.servers[0]
        server = self.boot('server-resize')
        volume_id = self.create_volume(self.shareable_type)
        self.attach(a, volume_id)
        self.attach(server, volume_id)
        self.wait_volume(volume_id, 'in-use', [a, server])
        before = {x['server_id']: x['attachment_id']
                  for x in self.volume(volume_id)['attachments']}
        self.nova.api('POST', '/servers/%s/action' % server,
                      session=self.user, body={'resize': {
                          'flavorRef': self.nova.flavors[
                              self.nova.RESIZE_FLAVOR]}})
        self.wait_server(server, 'VERIFY_RESIZE')
        self.nova.api('POST', '/servers/%s/action' % server,
                      session=self.user, body={'confirmResize': None})
        self.wait_server(server, 'ACTIVE')
        volume = self.wait_volume(volume_id, 'in-use', [a, server])
        after = {x['server_id']: x['attachment_id']
                 for x in volume['attachments']}
        # Nova's attachment_create/update/delete sequence: the server's
        # attachment is a new one, the other server's untouched.
        self.assertEqual(before[a], after[a])
        self.assertNotEqual(before[server], after[server])
        self.assertIn(volume_id, self.nova_volumes(server))
        self.detach(server, volume_id)
        self.detach(a, volume_id)
        self.wait_volume(volume_id, 'available', [])
        self.delete_server(server)

    def test_extend_an_attached_volume_tells_nova(self):
        a, b = self.servers
        volume_id = self.create_volume(self.shareable_type)
        self.attach(a, volume_id)
        self.attach(b, volume_id)
        self.wait_volume(volume_id, 'in-use', [a, b])
        # 3.42: extend in-use. cinder_ma extends, then its manager sends
        # Nova the volume-extended event for both servers (as Cinder's
        # does: Nova 34 reads the new size then; it never calls 3.71's
        # os-extend_volume_completion, which stays a 400 as in Cinder).
        self.cinder('POST', '/volumes/%s/action' % volume_id,
                    {'os-extend': {'new_size': 2}}, version='3.71')
        self.wait(lambda: self.volume(volume_id)['size'] == 2 and
                  self.volume(volume_id)['status'] == 'in-use',
                  'volume %s in-use at 2 GiB' % volume_id)

        def told(server):
            actions = self.nova.api(
                'GET', '/servers/%s/os-instance-actions' % server,
                session=self.user).json()['instanceActions']
            return 'extend_volume' in [x['action'] for x in actions]

        for server in (a, b):
            # Nova records the event as an instance action.
            self.wait(lambda: told(server),
                      'extend_volume action of server %s' % server)
        for server in (a, b):
            # And its compute handles it (after the API recorded it).
            line = '[instance: %s] Cinder extended volume %s' % (
                server, volume_id)
            self.wait(lambda: line in self.nova.log('nova-compute'),
                      'nova-compute handling the extend of %s' % server)
        for server in (a, b):
            self.detach(server, volume_id)
        self.wait_volume(volume_id, 'available', [])

    def test_encrypted_shareable_volume_refused(self):
        admin = self.keystone.admin_session()
        type_id = self.create_type('encrypted-%s' % uuid.uuid4().hex[:8],
                                   {})
        self.cinder('POST', '/types/%s/encryption' % type_id, {
            'encryption': {'provider': 'luks', 'control_location':
                           'front-end', 'cipher': 'aes-xts-plain64',
                           'key_size': 256}}, session=admin)
        response = self.cinder(
            'POST', '/types/%s/extra_specs' % type_id,
            {'extra_specs': {'multiattach': '<is> True'}}, session=admin,
            ok=False)
        self.assertEqual(400, response.status_code, response.text)
        self.assertIn('encrypted', response.json()['badRequest']['message'])
