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

"""Tests of the personas (cinder_ma.policies.base) through the API: who
"the service" is, and that it stays in its user token's project."""

import uuid

from cinder_ma.api import microversions as mv
from tests.unit.api import base

CONNECTOR = {'host': 'compute1', 'initiator': 'iqn.2026-11.test:compute1'}


def caller(project=base.PROJECT, user='fake-user', roles=('member',
           'reader'), service_roles=None):
    return base.headers(project=project, user=user, roles=list(roles),
                        service_roles=service_roles, version=mv.MAX_VERSION)


#: A member of the volume's project, through a service (service token).
SERVICE = caller(user='nova-user', service_roles=['service'])
#: The same service, with the user token of another project's member.
OTHER_SERVICE = caller(project=base.OTHER_PROJECT, user='other-user',
                       service_roles=['service'])
#: glance's own token: a user token with a role named "service".
SERVICE_ROLE_USER = caller(user='glance', roles=('service', 'member',
                                                 'reader'))
#: A reader of the volume's project, through a service.
READER_SERVICE = caller(user='reader-user', roles=('reader',),
                        service_roles=['service'])
#: A user whose only role in the project is "service", sending its own
#: token as the service token too.
ECHOED_SERVICE = caller(user='nova', roles=('service',),
                        service_roles=['service'])


class PersonaTestCase(base.APITestCase):

    def setUp(self):
        super().setUp()
        self.volume = self.create_volume()

    def attach(self, headers=SERVICE):
        """An attachment connected to an instance (attached)."""
        attachment = self.app.post_json(
            self.url('attachments'), {'attachment': {
                'volume_uuid': self.volume.id,
                'instance_uuid': str(uuid.uuid4()),
                'connector': CONNECTOR}}, headers=headers).json['attachment']
        self.app.post_json(
            self.url('attachments/%s/action' % attachment['id']),
            {'os-complete': {}}, headers=headers, status=204)
        return attachment['id']

    def attachment_url(self, attachment_id, project=base.PROJECT):
        return self.url('attachments/%s' % attachment_id, project=project)


class TestServiceIsAServiceToken(PersonaTestCase):

    def test_user_role_named_service_is_an_ordinary_user(self):
        attachment_id = self.attach()
        response = self.app.delete(self.attachment_url(attachment_id),
                                   headers=SERVICE_ROLE_USER, status=409)
        self.assertFault(response, 409, 'conflictingRequest',
                         'only the service that attached it')

    def test_service_token_may_delete_a_connected_attachment(self):
        attachment_id = self.attach()
        self.app.delete(self.attachment_url(attachment_id),
                        headers=SERVICE)
        self.app.get(self.attachment_url(attachment_id), headers=SERVICE,
                     status=404)

    def test_service_role_alone_grants_nothing(self):
        # A user token whose only role is "service": no member rights.
        attachment_id = self.attach()
        only_service = caller(user='glance', roles=('service',))
        response = self.app.get(self.attachment_url(attachment_id),
                                headers=only_service, status=403)
        self.assertFault(response, 403, 'forbidden')


class TestServiceTokenGrantsNothing(PersonaTestCase):
    """The user token must pass the policies on its own; the service token
    only marks the call as a service's."""

    def assert_refused(self, response):
        self.assertFault(response, 403, 'forbidden')

    def test_reader_through_a_service_cannot_write(self):
        response = self.app.post_json(self.url('attachments'), {
            'attachment': {'volume_uuid': self.volume.id,
                           'instance_uuid': str(uuid.uuid4())}},
            headers=READER_SERVICE, status=403)
        self.assert_refused(response)
        attachment_id = self.attach()
        url = self.attachment_url(attachment_id)
        self.assert_refused(self.app.put_json(url, {'attachment': {
            'connector': dict(CONNECTOR, host='elsewhere')}},
            headers=READER_SERVICE, status=403))
        self.assert_refused(self.app.post_json(
            url + '/action', {'os-complete': {}}, headers=READER_SERVICE,
            status=403))
        self.assert_refused(self.app.delete(url, headers=READER_SERVICE,
                                            status=403))
        # It reads what a reader reads, and the attachment is untouched.
        shown = self.app.get(url, headers=READER_SERVICE).json['attachment']
        self.assertEqual('attached', shown['status'])

    def test_service_only_user_echoing_its_token_gets_nothing(self):
        attachment_id = self.attach()
        url = self.attachment_url(attachment_id)
        self.assert_refused(self.app.get(url, headers=ECHOED_SERVICE,
                                         status=403))
        self.assert_refused(self.app.delete(url, headers=ECHOED_SERVICE,
                                            status=403))
        self.assert_refused(self.app.post_json(self.url('attachments'), {
            'attachment': {'volume_uuid': self.volume.id,
                           'instance_uuid': str(uuid.uuid4())}},
            headers=ECHOED_SERVICE, status=403))
        self.app.get(url, headers=SERVICE)

    def test_fencing_needs_a_member_through_a_service(self):
        attachment_id = self.attach()
        url = self.attachment_url(attachment_id) + '/action'
        for headers in (READER_SERVICE, ECHOED_SERVICE, base.MEMBER):
            self.assert_refused(self.app.post_json(
                url, {'cinder-ma-fencing:fence': {}},
                headers=dict(headers, **{
                    'OpenStack-API-Version': 'volume %s' % mv.MAX_VERSION}),
                status=403))


class TestServiceStaysInItsProject(PersonaTestCase):
    """A service token with another project's user token gets what that
    user would get: 404 for every attachment and volume of the project."""

    def setUp(self):
        super().setUp()
        self.attachment_id = self.attach()

    def other_url(self, path):
        return self.url(path, project=base.OTHER_PROJECT)

    def test_attachments_of_other_projects_are_not_found(self):
        url = self.other_url('attachments/%s' % self.attachment_id)
        calls = (
            self.app.get(url, headers=OTHER_SERVICE, status=404),
            self.app.put_json(url, {'attachment': {'connector': dict(
                CONNECTOR, host='evil')}}, headers=OTHER_SERVICE,
                status=404),
            self.app.post_json(url + '/action', {'os-complete': {}},
                               headers=OTHER_SERVICE, status=404),
            self.app.delete(url, headers=OTHER_SERVICE, status=404),
        )
        for response in calls:
            self.assertFault(response, 404, 'itemNotFound')
            self.assertNotIn('connection_info', response.text)
        # Nothing happened to it.
        shown = self.app.get(self.attachment_url(self.attachment_id),
                             headers=SERVICE).json['attachment']
        self.assertEqual('attached', shown['status'])

    def test_lists_show_only_its_project(self):
        for path in ('attachments', 'attachments/detail'):
            listed = self.app.get(self.other_url(path),
                                  headers=OTHER_SERVICE).json['attachments']
            self.assertEqual([], listed)
        listed = self.app.get(self.other_url('attachments?all_tenants=1'),
                              headers=OTHER_SERVICE).json['attachments']
        self.assertEqual([], listed)

    def test_volumes_of_other_projects_are_not_found(self):
        url = self.other_url('volumes/%s' % self.volume.id)
        self.assertFault(self.app.get(url, headers=OTHER_SERVICE,
                                      status=404), 404, 'itemNotFound')
        response = self.app.post_json(self.other_url('attachments'), {
            'attachment': {'volume_uuid': self.volume.id,
                           'instance_uuid': str(uuid.uuid4())}},
            headers=OTHER_SERVICE, status=404)
        self.assertFault(response, 404, 'itemNotFound')
        self.assertEqual([], self.app.get(
            self.other_url('volumes'),
            headers=OTHER_SERVICE).json['volumes'])
