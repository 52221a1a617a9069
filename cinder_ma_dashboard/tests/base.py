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


"""What the plugin's tests share: cinder_ma's answers, as its API gives
them (with the extension fields the dashboard asks for)."""

from openstack_dashboard.test import helpers

from cinder_ma_dashboard.api import cinder_ma

VOLUME = 'a1b2c3d4-0000-4000-8000-000000000001'
WRITER = 'a1b2c3d4-0000-4000-8000-0000000000a1'
STANDBY = 'a1b2c3d4-0000-4000-8000-0000000000a2'
SERVER_A = 'a1b2c3d4-0000-4000-8000-0000000000b1'
SERVER_B = 'a1b2c3d4-0000-4000-8000-0000000000b2'


def volume_info(volume_id=VOLUME, writers='one', readonly=False,
                status='in-use', project='p1', hosts=True,
                name='cluster-disk'):
    info = {
        'id': volume_id, 'name': name, 'status': status, 'size': 1,
        'volume_type': 'one-writer', 'multiattach': True,
        'metadata': {'readonly': 'True'} if readonly else {},
        'os-vol-tenant-attr:tenant_id': project,
        'os-vol-host-attr:host': 'storage1@nbd#nbd',
        'attachments': [
            {'attachment_id': WRITER, 'server_id': SERVER_A,
             'host_name': 'compute-a' if hosts else None},
            {'attachment_id': STANDBY, 'server_id': SERVER_B,
             'host_name': 'compute-b' if hosts else None}],
    }
    if writers:
        info[cinder_ma.WRITERS_FIELD] = writers
    return info


def attachment_info(attachment_id, instance, mode, fenced=False,
                    generation=1, volume_id=VOLUME, status='attached',
                    attached_at='2026-11-27T10:00:00.000000'):
    return {'id': attachment_id, 'volume_id': volume_id,
            'instance': instance, 'status': status, 'attach_mode': mode,
            'attached_at': attached_at, 'detached_at': '',
            'connection_info': None,
            cinder_ma.FENCED: fenced, cinder_ma.GENERATION: generation}


def message_info(message_id, volume_id=VOLUME,
                 created_at='2026-11-27T10:10:00.000000'):
    """The user message of an attachment of ``volume_id`` fenced, as
    ``GET /messages`` shows it to an administrator."""
    return {'id': message_id, 'event_id': cinder_ma.FENCING_EVENT,
            'user_message': "fence attachment:The attachment's access to "
                            "the volume was revoked (fenced); it must be "
                            "reconnected before it is used again.",
            'message_level': 'WARNING', 'created_at': created_at,
            'guaranteed_until': '2026-12-27T10:10:00.000000',
            'request_id': 'req-%s' % message_id,
            'resource_type': 'VOLUME', 'resource_uuid': volume_id,
            'links': []}


def pair(writer_fenced=False):
    """A writer (rw) and a standby (ro)."""
    return [attachment_info(WRITER, SERVER_A, 'rw', fenced=writer_fenced),
            attachment_info(STANDBY, SERVER_B, 'ro',
                            attached_at='2026-11-27T10:05:00.000000')]


def loaded_volume(**kwargs):
    """A :class:`cinder_ma.Volume` with its two attachments."""
    fenced = kwargs.pop('writer_fenced', False)
    return cinder_ma.attachments_of(
        cinder_ma.Volume(volume_info(**kwargs)), pair(fenced),
        {SERVER_A: 'node-a', SERVER_B: 'node-b'})


class TestCase(helpers.TestCase):
    """A project member's request."""


class AdminTestCase(helpers.BaseAdminViewTests):
    """An administrator's request."""
