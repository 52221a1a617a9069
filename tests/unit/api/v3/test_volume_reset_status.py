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

"""Tests of os-reset_status on volumes and (from 3.50, extension
cinder-ma-multiattach) attachments, within
the derived-status rule."""

import uuid

from cinder_ma.api import microversions as mv
from tests.unit.api import base
from tests.unit.api.v3 import test_volume_actions

ADMIN_350 = base.headers(roles=['admin', 'member', 'reader'],
                         version=mv.MULTIATTACH_VOLUMES)
ATTACHMENT_ID = 'cinder-ma-multiattach:attachment_id'


class TestResetStatus(test_volume_actions.VolumeActionsTestCase):

    def reset(self, params, headers=base.ADMIN, status=202, volume=None):
        return self.act({'os-reset_status': params}, volume,
                        headers=headers, status=status)

    def test_admin_only(self):
        response = self.reset({'status': 'error'}, headers=base.MEMBER,
                              status=403)
        self.assertFault(response, 403, 'forbidden', 'reset_status')

    def test_error_and_back_to_what_the_attachments_give(self):
        self.reset({'status': 'error'})
        self.assertEqual('error', self.view()['status'])
        self.reset({'status': 'available'})
        self.assertEqual('available', self.view()['status'])

    def test_available_refused_while_attached(self):
        self.os_attach()
        response = self.reset({'status': 'available'}, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'give in-use, and a volume\'s attachment status '
                         'is derived')
        self.assertEqual('in-use', self.view()['status'])
        # In-use it is.
        self.reset({'status': 'error'})
        self.reset({'status': 'in-use'})
        self.assertEqual('in-use', self.view()['status'])

    def test_detached_never_wipes_attachments(self):
        self.os_attach()
        response = self.reset({'attach_status': 'detached'}, status=400)
        self.assertFault(response, 400, 'badRequest',
                         'Detach each one through its host')
        self.assertEqual(1, len(self.attachments()))
        self.reset({'status': 'available', 'attach_status': 'detached'},
                   status=400)
        self.assertEqual('in-use', self.view()['status'])

    def test_attached_cannot_invent_an_attachment(self):
        response = self.reset({'attach_status': 'attached'}, status=400)
        self.assertFault(response, 400, 'badRequest', 'cannot be made')

    def test_migration_status(self):
        self.reset({'migration_status': 'none'})
        response = self.reset({'migration_status': 'migrating'}, status=400)
        self.assertFault(response, 400, 'badRequest', 'does not migrate')

    def test_validation(self):
        for params, message in (
                ({}, 'is not valid under any of the given schemas'),
                ({'status': 'bogus'}, 'status'),
                ({'attach_status': 'reserved'}, 'attach_status'),
                ({'status': 'error', ATTACHMENT_ID: str(uuid.uuid4())},
                 'was unexpected')):
            response = self.reset(params, status=400)
            self.assertFault(response, 400, 'badRequest', message)

    def test_attachment_from_350(self):
        self.os_attach()
        (attachment,) = self.attachments()
        self.reset({ATTACHMENT_ID: attachment['id'],
                    'attach_status': 'error_detaching'}, headers=ADMIN_350)
        self.assertEqual('error_detaching', self.attachments()[0]['status'])
        # The volume's status followed, in the same transaction.
        self.assertEqual('error_detaching', self.view()['status'])
        self.reset({ATTACHMENT_ID: attachment['id'],
                    'attach_status': 'attached'}, headers=ADMIN_350)
        self.assertEqual('in-use', self.view()['status'])

    def test_attachment_reset_drops_the_detach_mark(self):
        # An administrator's reset of a stuck detach (a consumer that
        # began detaching and never came back) gives the volume in-use.
        self.os_attach()
        (attachment,) = self.attachments()
        self.act({'os-begin_detaching': None})
        self.assertEqual('detaching', self.view()['status'])
        self.reset({ATTACHMENT_ID: attachment['id'],
                    'attach_status': 'attached'}, headers=ADMIN_350)
        self.assertEqual('in-use', self.view()['status'])
        # The volume's own reset to in-use is refused while its
        # attachments give detaching.
        self.act({'os-begin_detaching': None})
        response = self.reset({'status': 'in-use'}, status=400)
        self.assertFault(response, 400, 'badRequest', 'give detaching')

    def test_attachment_never_reset_to_detached(self):
        self.os_attach()
        (attachment,) = self.attachments()
        response = self.reset({ATTACHMENT_ID: attachment['id'],
                               'attach_status': 'detached'},
                              headers=ADMIN_350, status=400)
        self.assertFault(response, 400, 'badRequest', 'os-force_detach')
        self.assertEqual('attached', self.attachments()[0]['status'])

    def test_attachment_of_another_volume(self):
        other = self.create_volume()
        self.os_attach(other, str(uuid.uuid4()))
        (attachment,) = self.attachments(other)
        self.reset({ATTACHMENT_ID: attachment['id'],
                    'attach_status': 'error_detaching'},
                   headers=ADMIN_350, status=404)
        self.assertEqual('attached', self.attachments(other)[0]['status'])

    def test_attachment_and_status_together(self):
        self.os_attach()
        (attachment,) = self.attachments()
        response = self.reset({ATTACHMENT_ID: attachment['id'],
                               'attach_status': 'attached',
                               'status': 'in-use'}, headers=ADMIN_350,
                              status=400)
        self.assertFault(response, 400, 'badRequest', 'not both')
