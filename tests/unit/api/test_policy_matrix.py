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

"""The policy matrix: who may call every route of the API.

For every route of :data:`cinder_ma.api.routes.ROUTES` (and every action
behind an ``/action`` route), :data:`MATRIX` says what each persona gets:

* ``admin``: the cloud administrator (role ``admin``);
* ``member`` and ``reader``: a member and a reader of the project that
  owns the resources;
* ``other``: a member of another project (its own project in the URL,
  the resources' ids in the path);
* ``service``: a service token (``X-Service-Roles: service``) with the
  user token of a member of the owning project, as Nova sends them;
* ``other_service``: the same service token with the user token of a
  member of another project: a service stays inside its user's project;
* ``service_role``: a *user* token whose only role is ``service``: an
  ordinary user, of no project role (only a service token makes a
  service);
* ``reader_service``: the service token with the user token of a reader
  of the owning project: a service token grants nothing, so it gets what
  the reader gets.

Each request is made on fresh resources, with a body that is valid, so
that the status says what the policy (and the project scoping) decided:
2xx allowed, 403 refused, 404 not visible. :func:`test_every_route_has_a_row`
fails when a route or an action has no row: a new route comes with its
row here.

A service is recognised by its service token only (``service_role`` is
a user token whose role is named ``service``: an ordinary user), and
stays inside its user token's project (``other_service``).
"""

import collections
import uuid

import fixtures
from oslo_serialization import jsonutils
from oslo_utils import timeutils

from cinder_ma.api import extensions
from cinder_ma.api import microversions as mv
from cinder_ma.api import routes
from cinder_ma.api.v3 import unsupported
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import messages as message_db
from cinder_ma.db import services as service_db
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import types as type_db
from cinder_ma.manager import rpcapi
from cinder_ma import message_field
from cinder_ma.volume import qos_specs
from cinder_ma.volume import transfers
from cinder_ma.volume import unsupported as unsupported_service
from tests.unit.api import base

P = '/v3/{project_id}'
PERSONAS = ('admin', 'member', 'reader', 'other', 'service',
            'other_service', 'service_role', 'reader_service')

CONNECTOR = {'host': 'compute1', 'initiator': 'iqn.test'}

Row = collections.namedtuple('Row', PERSONAS)


def row(admin, member, reader, other, service, other_service=None,
        service_role=None, reader_service=None):
    """A row; by default another project's service is refused as another
    project's member is, a user with the role ``service`` alone as a
    user of no role (a reader's refusal for writes and reads alike), and
    a reader through a service gets what the reader gets."""
    if other_service is None:
        other_service = other
    if service_role is None:
        service_role = 403
    if reader_service is None:
        reader_service = reader
    return Row(admin, member, reader, other, service, other_service,
               service_role, reader_service)


# Public version documents.
PUBLIC = row(*([200] * 5), other_service=200, service_role=200)
PUBLIC_ROOT = row(*([300] * 5), other_service=300, service_role=300)

MATRIX = {
    ('GET', '/'): PUBLIC_ROOT,
    ('GET', '/v3'): PUBLIC,

    # Volumes: readers read, members write, other projects see nothing.
    ('GET', P + '/volumes'): row(200, 200, 200, 200, 200, 200, 403),
    ('POST', P + '/volumes'): row(202, 202, 403, 202, 202, 202, 403),
    ('GET', P + '/volumes/detail'): row(200, 200, 200, 200, 200, 200, 403),
    ('GET', P + '/volumes/{volume_id}'): row(200, 200, 200, 404, 200),
    ('PUT', P + '/volumes/{volume_id}'): row(200, 200, 403, 404, 200),
    ('DELETE', P + '/volumes/{volume_id}'): row(202, 202, 403, 404, 202),
    ('GET', P + '/volumes/{volume_id}/metadata'): row(200, 200, 200, 404,
                                                      200),
    ('POST', P + '/volumes/{volume_id}/metadata'): row(200, 200, 403, 404,
                                                       200),
    ('PUT', P + '/volumes/{volume_id}/metadata'): row(200, 200, 403, 404,
                                                      200),
    ('GET', P + '/volumes/{volume_id}/metadata/{key}'): row(200, 200, 200,
                                                            404, 200),
    ('PUT', P + '/volumes/{volume_id}/metadata/{key}'): row(200, 200, 403,
                                                            404, 200),
    ('DELETE', P + '/volumes/{volume_id}/metadata/{key}'): row(200, 200,
                                                               403, 404,
                                                               200),

    # Volume actions.
    ('POST', P + '/volumes/{volume_id}/action', 'os-reserve'):
        row(202, 202, 403, 404, 202),
    ('POST', P + '/volumes/{volume_id}/action', 'os-unreserve'):
        row(202, 202, 403, 404, 202),
    ('POST', P + '/volumes/{volume_id}/action', 'os-attach'):
        row(202, 202, 403, 404, 202),
    ('POST', P + '/volumes/{volume_id}/action', 'os-begin_detaching'):
        row(202, 202, 403, 404, 202),
    ('POST', P + '/volumes/{volume_id}/action', 'os-roll_detaching'):
        row(202, 202, 403, 404, 202),
    ('POST', P + '/volumes/{volume_id}/action', 'os-detach'):
        row(202, 202, 403, 404, 202),
    ('POST', P + '/volumes/{volume_id}/action', 'os-force_detach'):
        row(202, 403, 403, 404, 403),
    ('POST', P + '/volumes/{volume_id}/action', 'os-extend'):
        row(202, 202, 403, 404, 202),
    ('POST', P + '/volumes/{volume_id}/action', 'os-set_bootable'):
        row(200, 200, 403, 404, 200),
    ('POST', P + '/volumes/{volume_id}/action', 'os-retype'):
        row(202, 202, 403, 404, 202),
    ('POST', P + '/volumes/{volume_id}/action', 'os-force_delete'):
        row(202, 403, 403, 404, 403),
    # The legacy connection actions, as the attachments' policies
    # (update for initialize, delete for terminate).
    ('POST', P + '/volumes/{volume_id}/action', 'os-initialize_connection'):
        row(200, 200, 403, 404, 200),
    ('POST', P + '/volumes/{volume_id}/action', 'os-terminate_connection'):
        row(202, 202, 403, 404, 202),
    ('POST', P + '/volumes/{volume_id}/action', 'os-update_readonly_flag'):
        row(202, 202, 403, 404, 202),
    ('POST', P + '/volumes/{volume_id}/action', 'os-reset_status'):
        row(202, 403, 403, 404, 403),
    # Admins and members through a service pass the policy (a reader
    # through a service does not); no volume ever waits for its
    # completion here, so the allowed answer is a 400 (not extending).
    ('POST', P + '/volumes/{volume_id}/action',
     'os-extend_volume_completion'):
        row(400, 403, 403, 404, 400),
    ('GET', P + '/volumes/summary'): row(200, 200, 200, 200, 200, 200, 403),
    ('GET', P + '/volumes/{volume_id}/encryption'): row(200, 200, 200, 404,
                                                        200),
    ('GET', P + '/volumes/{volume_id}/encryption/{key}'): row(200, 200, 200,
                                                              404, 200),

    # Attachments (3.27 on).
    ('GET', P + '/attachments'): row(200, 200, 200, 200, 200, 200, 403),
    ('POST', P + '/attachments'): row(200, 200, 403, 404, 200),
    ('GET', P + '/attachments/detail'): row(200, 200, 200, 200, 200, 200,
                                            403),
    ('GET', P + '/attachments/{attachment_id}'): row(200, 200, 200, 404,
                                                     200),
    ('PUT', P + '/attachments/{attachment_id}'): row(200, 200, 403, 404,
                                                     200),
    ('DELETE', P + '/attachments/{attachment_id}'): row(200, 200, 403, 404,
                                                        200),
    ('POST', P + '/attachments/{attachment_id}/action', 'os-complete'):
        row(204, 204, 403, 404, 204),
    # Fencing and promotion: administrators, and members through a
    # service only.
    ('POST', P + '/attachments/{attachment_id}/action',
     'cinder-ma-fencing:fence'): row(200, 403, 403, 404, 200),
    ('POST', P + '/attachments/{attachment_id}/action',
     'cinder-ma-fencing:promote'): row(200, 403, 403, 404, 200),

    # Volume types: readers (of their own project) read the public ones,
    # a user of no reader role nothing; only admins write.
    ('GET', P + '/types'): row(200, 200, 200, 200, 200, 200, 403),
    ('POST', P + '/types'): row(200, 403, 403, 403, 403),
    ('GET', P + '/types/{type_id}'): row(200, 200, 200, 200, 200, 200, 403),
    ('PUT', P + '/types/{type_id}'): row(200, 403, 403, 403, 403),
    ('DELETE', P + '/types/{type_id}'): row(202, 403, 403, 403, 403),
    ('GET', P + '/types/{type_id}/extra_specs'): row(200, 200, 200, 200,
                                                     200, 200, 403),
    ('POST', P + '/types/{type_id}/extra_specs'): row(200, 403, 403, 403,
                                                      403),
    # The key of the matrix's type ('k') is not user-visible: only
    # admins see it (volume_extension:types_extra_specs:read_sensitive);
    # to other readers it does not exist; a user of no reader role may
    # not read extra specs at all.
    ('GET', P + '/types/{type_id}/extra_specs/{key}'): row(200, 404, 404,
                                                           404, 404, 404,
                                                           403),
    ('PUT', P + '/types/{type_id}/extra_specs/{key}'): row(200, 403, 403,
                                                           403, 403),
    ('DELETE', P + '/types/{type_id}/extra_specs/{key}'): row(202, 403, 403,
                                                              403, 403),
    ('POST', P + '/types/{type_id}/action', 'addProjectAccess'):
        row(202, 403, 403, 403, 403),
    ('POST', P + '/types/{type_id}/action', 'removeProjectAccess'):
        row(202, 403, 403, 403, 403),
    ('GET', P + '/types/{type_id}/os-volume-type-access'):
        row(200, 403, 403, 403, 403),
    ('GET', P + '/types/{type_id}/encryption'): row(200, 403, 403, 403,
                                                    403),
    ('POST', P + '/types/{type_id}/encryption'): row(200, 403, 403, 403,
                                                     403),
    ('GET', P + '/types/{type_id}/encryption/{encryption_id}'):
        row(200, 403, 403, 403, 403),
    ('PUT', P + '/types/{type_id}/encryption/{encryption_id}'):
        row(200, 403, 403, 403, 403),
    ('DELETE', P + '/types/{type_id}/encryption/{encryption_id}'):
        row(202, 403, 403, 403, 403),

    # Administration: admins only.
    ('GET', P + '/os-services'): row(200, 403, 403, 403, 403),
    ('PUT', P + '/os-services/{action}'): row(200, 403, 403, 403, 403),
    ('GET', P + '/os-hosts'): row(200, 403, 403, 403, 403),
    ('GET', P + '/os-hosts/{host_name}'): row(200, 403, 403, 403, 403),
    ('GET', P + '/scheduler-stats/get_pools'): row(200, 403, 403, 403,
                                                   403),
    ('GET', P + '/qos-specs'): row(200, 403, 403, 403, 403),
    ('POST', P + '/qos-specs'): row(200, 403, 403, 403, 403),
    ('GET', P + '/qos-specs/{qos_id}'): row(200, 403, 403, 403, 403),
    ('PUT', P + '/qos-specs/{qos_id}'): row(200, 403, 403, 403, 403),
    ('DELETE', P + '/qos-specs/{qos_id}'): row(202, 403, 403, 403, 403),
    ('PUT', P + '/qos-specs/{qos_id}/delete_keys'): row(202, 403, 403, 403,
                                                        403),
    ('GET', P + '/qos-specs/{qos_id}/associations'): row(200, 403, 403,
                                                         403, 403),
    ('GET', P + '/qos-specs/{qos_id}/associate'): row(202, 403, 403, 403,
                                                      403),
    ('GET', P + '/qos-specs/{qos_id}/disassociate'): row(202, 403, 403,
                                                         403, 403),
    ('GET', P + '/qos-specs/{qos_id}/disassociate_all'): row(202, 403, 403,
                                                             403, 403),

    # Extensions: anyone of a project.
    ('GET', P + '/extensions'): row(200, 200, 200, 200, 200, 200, 200),
    ('GET', P + '/extensions/{alias}'): row(200, 200, 200, 200, 200, 200,
                                            200),

    # Limits and zones: any user of a role in the URL's project.
    ('GET', P + '/limits'): row(200, 200, 200, 200, 200, 200, 403),
    ('GET', P + '/os-availability-zone'): row(200, 200, 200, 200, 200, 200,
                                              403),
    # Quotas: a project's readers read its quota set (the other project
    # asks for this one's: refused); admins write; the classes are
    # admins'.
    ('GET', P + '/os-quota-sets/{target_project_id}'): row(200, 200, 200,
                                                           403, 200),
    ('PUT', P + '/os-quota-sets/{target_project_id}'): row(200, 403, 403,
                                                           403, 403),
    ('DELETE', P + '/os-quota-sets/{target_project_id}'): row(200, 403,
                                                              403, 403,
                                                              403),
    ('GET', P + '/os-quota-sets/{target_project_id}/defaults'):
        row(200, 200, 200, 403, 200),
    ('GET', P + '/os-quota-class-sets/{class_name}'): row(200, 403, 403,
                                                          403, 403),
    ('PUT', P + '/os-quota-class-sets/{class_name}'): row(200, 403, 403,
                                                          403, 403),
    ('GET', P + '/capabilities/{hostname}'): row(200, 403, 403, 403, 403),
    ('GET', P + '/cinder-ma-audits'): row(200, 403, 403, 403, 403),

    # User messages (3.3 on): readers read, members delete, other
    # projects see nothing.
    ('GET', P + '/messages'): row(200, 200, 200, 200, 200, 200, 403),
    ('GET', P + '/messages/{message_id}'): row(200, 200, 200, 404, 200),
    ('DELETE', P + '/messages/{message_id}'): row(204, 204, 403, 404, 204),
    # Snapshots: as volumes; their admin actions admins', the status a
    # compute service reports a service's (or an admin's).
    ('GET', P + '/snapshots'): row(200, 200, 200, 200, 200, 200, 403),
    ('POST', P + '/snapshots'): row(202, 202, 403, 404, 202),
    ('GET', P + '/snapshots/detail'): row(200, 200, 200, 200, 200, 200,
                                          403),
    ('GET', P + '/snapshots/{snapshot_id}'): row(200, 200, 200, 404, 200),
    ('PUT', P + '/snapshots/{snapshot_id}'): row(200, 200, 403, 404, 200),
    ('DELETE', P + '/snapshots/{snapshot_id}'): row(202, 202, 403, 404,
                                                    202),
    ('GET', P + '/snapshots/{snapshot_id}/metadata'): row(200, 200, 200,
                                                          404, 200),
    ('POST', P + '/snapshots/{snapshot_id}/metadata'): row(200, 200, 403,
                                                           404, 200),
    ('PUT', P + '/snapshots/{snapshot_id}/metadata'): row(200, 200, 403,
                                                          404, 200),
    ('GET', P + '/snapshots/{snapshot_id}/metadata/{key}'): row(
        200, 200, 200, 404, 200),
    ('PUT', P + '/snapshots/{snapshot_id}/metadata/{key}'): row(
        200, 200, 403, 404, 200),
    ('DELETE', P + '/snapshots/{snapshot_id}/metadata/{key}'): row(
        200, 200, 403, 404, 200),
    ('POST', P + '/snapshots/{snapshot_id}/action', 'os-reset_status'):
        row(202, 403, 403, 404, 403),
    ('POST', P + '/snapshots/{snapshot_id}/action', 'os-force_delete'):
        row(202, 403, 403, 404, 403),
    ('POST', P + '/snapshots/{snapshot_id}/action',
     'os-update_snapshot_status'): row(202, 403, 403, 404, 202),
    ('POST', P + '/volumes/{volume_id}/action', 'revert'):
        row(202, 202, 403, 404, 202),
}

# Volume transfers, under both paths: readers read, members create and
# delete; another project finds none, but a member of any project may
# accept one whose id and key it was given.
for _base in (P + '/os-volume-transfer', P + '/volume-transfers'):
    MATRIX.update({
        ('GET', _base): row(200, 200, 200, 200, 200, 200, 403),
        ('GET', _base + '/detail'): row(200, 200, 200, 200, 200, 200, 403),
        ('POST', _base): row(202, 202, 403, 404, 202),
        ('GET', _base + '/{transfer_id}'): row(200, 200, 200, 404, 200),
        ('DELETE', _base + '/{transfer_id}'): row(202, 202, 403, 404, 202),
        ('POST', _base + '/{transfer_id}/accept'): row(202, 202, 403, 202,
                                                      202, 202),
    })


# Resources cinder_ma does not have (cinder_ma/api/v3/unsupported.py):
# their lists under Cinder's list policies (readers of the project; none
# for group types), an id not found by anyone, a creation refused (400)
# to anyone.
_UNSUPPORTED_LIST = row(200, 200, 200, 200, 200, 200, 403)
_UNSUPPORTED_OPEN_LIST = row(200, 200, 200, 200, 200, 200, 200)
_UNSUPPORTED_NOT_FOUND = row(404, 404, 404, 404, 404, 404, 404)
_UNSUPPORTED_CREATE = row(400, 400, 400, 400, 400, 400, 400)
UNSUPPORTED_TEMPLATES = set()
for _resource in unsupported.RESOURCES:
    _kinds = {_resource.index: (_UNSUPPORTED_LIST if _resource.key in
                                unsupported_service.LIST_RULES
                                else _UNSUPPORTED_OPEN_LIST),
              _resource.missing: _UNSUPPORTED_NOT_FOUND,
              _resource.create: _UNSUPPORTED_CREATE}
    for _template, _methods in routes.ROUTES.items():
        for _method, _handler in _methods.items():
            if _handler in _kinds:
                MATRIX[(_method, _template)] = _kinds[_handler]
                UNSUPPORTED_TEMPLATES.add(_template)


def _headers(persona, version):
    project, user, roles, service_roles = {
        'admin': (base.PROJECT, 'admin-user', None, None),
        'member': (base.PROJECT, 'member-user', ['member', 'reader'], None),
        'reader': (base.PROJECT, 'reader-user', ['reader'], None),
        'other': (base.OTHER_PROJECT, 'other-user', ['member', 'reader'],
                  None),
        'service': (base.PROJECT, 'nova', ['member', 'reader'],
                    ['service']),
        'other_service': (base.OTHER_PROJECT, 'nova',
                          ['member', 'reader'], ['service']),
        'service_role': (base.PROJECT, 'glance', ['service'], None),
        'reader_service': (base.PROJECT, 'nova', ['reader'], ['service']),
    }[persona]
    return project, base.headers(project=project, user=user, roles=roles,
                                 version=version,
                                 service_roles=service_roles)


class TestPolicyMatrix(base.APITestCase):

    def test_every_route_has_a_row(self):
        expected = set()
        for template, methods in routes.ROUTES.items():
            for method, handler in methods.items():
                names = list(getattr(handler, 'actions', {}))
                if not names:
                    # The exposed wrapper of a dispatcher.
                    names = list(getattr(getattr(
                        handler, '__wrapped__', None), 'actions', {}))
                if names:
                    expected.update((method, template, name)
                                    for name in names)
                else:
                    expected.add((method, template))
        self.assertEqual(set(), expected - set(MATRIX),
                         'routes without a row in the policy matrix')
        self.assertEqual(set(), set(MATRIX) - expected,
                         'rows of routes that do not exist')

    # The environment of a request: fresh resources of the project.

    def setUp(self):
        super().setUp()
        # extend casts to the backend's manager, out of scope here as the
        # other casts (see tests.unit.api.base).
        self.useFixture(fixtures.MockPatch(
            'cinder_ma.manager.rpcapi.ManagerAPI.extend_volume'))
        # The matrix makes many volumes: the quotas must not decide.
        self.flags(quota_volumes=-1, quota_gigabytes=-1, quota_snapshots=-1)

    def _environment(self, key):
        """Fresh resources for a request of ``key``: a volume (and an
        attachment of another volume, a type with an extra spec and an
        encryption, where the route needs them)."""
        # The backend stays up however long the matrix takes.
        service_db.service_update(self.admin_context, self.service.id,
                                  {'heartbeat_at': timeutils.utcnow()})
        env = {'volume': self.create_volume(metadata={'k': 'v'}),
               'attachment': None, 'type': self.default_type,
               'qos': None, 'message': None, 'transfer': None,
               'snapshot': None}
        template = key[1]
        if '{transfer_id}' in template:
            env['transfer'] = transfers.create_transfer(
                self.admin_context, env['volume'].id)
        if '/messages/' in template:
            env['message'] = message_db.record(
                self.admin_context, base.PROJECT,
                message_field.Action.SCHEDULE_ALLOCATE_VOLUME,
                resource_uuid=env['volume'].id)
        if '{snapshot_id}' in template or key[-1] == 'revert':
            env['snapshot'] = snapshot_db.snapshot_create(
                self.admin_context, {
                    'project_id': base.PROJECT, 'user_id': 'fake-user',
                    'volume_id': env['volume'].id,
                    'volume_type_id': env['volume'].volume_type_id,
                    'volume_size': env['volume'].size,
                    'status': 'available', 'metadata': {'k': 'v'}},
                ('available',))
        if '/qos-specs/' in template:
            # A type of its own, to (dis)associate.
            env['type'] = type_db.volume_type_create(
                self.admin_context,
                {'name': 'type-%s' % uuid.uuid4().hex[:8]})
            env['qos'] = qos_specs.create(
                self.admin_context, 'qos-%s' % uuid.uuid4().hex[:8],
                {'k': 'v'})
            if template.endswith(('/disassociate', '/disassociate_all')):
                qos_specs.associate(self.admin_context, env['qos'].id,
                                    env['type'].id)
        if key[-1] in ('cinder-ma-fencing:fence',
                       'cinder-ma-fencing:promote'):
            env['attachment'] = self._standby()
        elif '/attachments' in template:
            attached = self.create_volume()
            env['attachment'] = attachment_db.attachment_reserve(
                self.admin_context, attached.id, str(uuid.uuid4()))
        if '/types/' in template or key[-1] == 'os-retype':
            # A private type for its access list (which the other
            # project is on, to be removed from).
            private = (template.endswith('/os-volume-type-access') or
                       key[-1] in ('addProjectAccess',
                                   'removeProjectAccess'))
            env['type'] = type_db.volume_type_create(
                self.admin_context,
                {'name': 'type-%s' % uuid.uuid4().hex[:8],
                 'is_public': not private},
                # A retype's new type asks for nothing the backend lacks
                # (an unscoped key names a capability).
                extra_specs={'k': 'v'} if '/types/' in template else {})
            if key[-1] == 'removeProjectAccess':
                type_db.volume_type_access_add(
                    self.admin_context, env['type'].id, base.OTHER_PROJECT)
            if template.endswith('/encryption/{encryption_id}') or (
                    key[0] != 'POST' and template.endswith('/encryption')):
                type_db.volume_type_encryption_create(
                    self.admin_context, env['type'].id, {
                        'provider': 'luks',
                        'control_location': 'front-end'})
        return env

    def _standby(self):
        """A connected read-only attachment (its connection its own) of
        a one-writer volume, whose writer is connected too."""
        vtype = type_db.volume_type_create(
            self.admin_context, {'name': 'one-%s' % uuid.uuid4().hex[:8]},
            extra_specs={'multiattach': '<is> True',
                         'multiattach:writers': 'one'})
        volume = self.create_volume(volume_type_id=vtype.id,
                                    multiattach=True)
        made = []
        for mode in ('rw', 'ro'):
            attachment = attachment_db.attachment_reserve(
                self.admin_context, volume.id, str(uuid.uuid4()),
                attach_mode=mode)
            attachment_db.attachment_update(
                self.admin_context, attachment.id,
                {'attach_status': 'attached', 'connector': CONNECTOR,
                 'connection_info': {
                     'driver_volume_type': 'nbd',
                     'data': {'access_mode': mode},
                     rpcapi.SCOPE_KEY: rpcapi.ATTACHMENT_SCOPE}})
            made.append(attachment)
        return made[-1]

    def _request(self, key, env):
        """(path params, body, version) of a valid request of ``key``."""
        method, template = key[:2]
        volume = env['volume']
        params = {'volume_id': volume.id,
                  'attachment_id': getattr(env['attachment'], 'id', None),
                  'type_id': env['type'].id, 'key': 'k',
                  'encryption_id': 'provider', 'action': 'enable',
                  'hostname': base.BACKEND_HOST,
                  'host_name': base.BACKEND_HOST,
                  'qos_id': getattr(env['qos'], 'id', None),
                  'target_project_id': base.PROJECT,
                  'class_name': 'default',
                  'alias': extensions.EXTENSIONS[0].alias,
                  'message_id': getattr(env['message'], 'id', None),
                  'transfer_id': (env['transfer'][0].id
                                  if env['transfer'] else None),
                  'resource_id': str(uuid.uuid4()),
                  'snapshot_id': getattr(env['snapshot'], 'id', None)}
        if template.endswith('/volumes/{volume_id}/encryption/{key}'):
            params['key'] = 'encryption_key_id'
        version = mv.MAX_VERSION
        body = None
        instance = str(uuid.uuid4())
        if len(key) == 3:
            body = {
                'os-reserve': {'os-reserve': None},
                'os-unreserve': {'os-unreserve': None},
                'os-attach': {'os-attach': {'instance_uuid': instance,
                                            'mountpoint': '/dev/vdb'}},
                'os-begin_detaching': {'os-begin_detaching': None},
                'os-roll_detaching': {'os-roll_detaching': None},
                'os-detach': {'os-detach': None},
                'os-force_detach': {'os-force_detach': {}},
                'os-extend': {'os-extend': {'new_size': 2}},
                'os-set_bootable': {'os-set_bootable': {'bootable': True}},
                'os-retype': {'os-retype': {'new_type': env['type'].id}},
                'os-force_delete': {'os-force_delete': None},
                'os-initialize_connection': {'os-initialize_connection': {
                    'connector': CONNECTOR}},
                'os-terminate_connection': {'os-terminate_connection': {
                    'connector': CONNECTOR}},
                'os-update_readonly_flag': {'os-update_readonly_flag': {
                    'readonly': True}},
                'os-reset_status': {'os-reset_status': {
                    'status': 'available'}},
                'os-update_snapshot_status': {'os-update_snapshot_status': {
                    'status': 'available', 'progress': '100%'}},
                'revert': {'revert': {'snapshot_id': getattr(
                    env['snapshot'], 'id', None)}},
                'os-extend_volume_completion': {
                    'os-extend_volume_completion': {'error': False}},
                'os-complete': {'os-complete': None},
                'cinder-ma-fencing:fence': {'cinder-ma-fencing:fence': {}},
                'cinder-ma-fencing:promote': {
                    'cinder-ma-fencing:promote': {}},
                'addProjectAccess': {'addProjectAccess': {
                    'project': base.OTHER_PROJECT}},
                'removeProjectAccess': {'removeProjectAccess': {
                    'project': base.OTHER_PROJECT}},
            }[key[2]]
        elif template in UNSUPPORTED_TEMPLATES:
            if method in ('POST', 'PUT'):
                body = {'snapshot': {'volume_id': volume.id}}
        elif method in ('POST', 'PUT'):
            body = {
                P + '/volumes': {'volume': {'size': 1}},
                P + '/volumes/{volume_id}': {'volume': {'name': 'n'}},
                P + '/volumes/{volume_id}/metadata': {
                    'metadata': {'k': 'v'}},
                P + '/volumes/{volume_id}/metadata/{key}': {
                    'meta': {'k': 'v2'}},
                P + '/snapshots': {'snapshot': {'volume_id': volume.id}},
                P + '/snapshots/{snapshot_id}': {'snapshot': {'name': 'n'}},
                P + '/snapshots/{snapshot_id}/metadata': {
                    'metadata': {'k': 'v'}},
                P + '/snapshots/{snapshot_id}/metadata/{key}': {
                    'meta': {'k': 'v2'}},
                P + '/attachments': {'attachment': {
                    'volume_uuid': volume.id, 'instance_uuid': instance}},
                P + '/attachments/{attachment_id}': {'attachment': {
                    'connector': {'host': 'compute1',
                                  'initiator': 'iqn.test'}}},
                P + '/types': {'volume_type': {
                    'name': 'new-%s' % uuid.uuid4().hex[:8]}},
                P + '/types/{type_id}': {'volume_type': {
                    'description': 'd'}},
                P + '/types/{type_id}/extra_specs': {
                    'extra_specs': {'k2': 'v'}},
                P + '/types/{type_id}/extra_specs/{key}': {'k': 'v2'},
                P + '/types/{type_id}/encryption': {'encryption': {
                    'provider': 'luks', 'control_location': 'back-end'}},
                P + '/types/{type_id}/encryption/{encryption_id}': {
                    'encryption': {'control_location': 'back-end'}},
                P + '/os-services/{action}': {
                    'host': base.BACKEND_HOST, 'binary': 'cinder-volume'},
                P + '/qos-specs': {'qos_specs': {
                    'name': 'qos-%s' % uuid.uuid4().hex[:8],
                    'read_iops_sec': '100'}},
                P + '/qos-specs/{qos_id}': {'qos_specs': {
                    'write_iops_sec': '200'}},
                P + '/qos-specs/{qos_id}/delete_keys': {'keys': ['k']},
                # Unlimited: a limit below the usage is a 400.
                P + '/os-quota-sets/{target_project_id}': {'quota_set': {
                    'volumes': -1}},
                P + '/os-quota-class-sets/{class_name}': {
                    'quota_class_set': {'volumes': 20}},
            }.get(template)
        if method == 'POST' and template.endswith(('/os-volume-transfer',
                                                   '/volume-transfers')):
            body = {'transfer': {'volume_id': volume.id}}
        elif method == 'POST' and template.endswith('/accept'):
            body = {'accept': {'auth_key': env['transfer'][1]}}
        if template.endswith(('/associate', '/disassociate')):
            params['?'] = 'vol_type_id=%s' % env['type'].id
        return params, body, version

    def _prepare(self, key, env):
        """State a volume action needs to succeed."""
        action = key[2] if len(key) == 3 else None
        volume = env['volume']
        if action in ('os-unreserve', 'os-begin_detaching',
                      'os-roll_detaching', 'os-detach',
                      'os-force_detach'):
            attachment = attachment_db.attachment_reserve(
                self.admin_context, volume.id, str(uuid.uuid4()))
            status = {'os-begin_detaching': 'attached',
                      'os-roll_detaching': 'detaching',
                      'os-detach': 'attached',
                      'os-force_detach': 'attached'}.get(action)
            if status:
                attachment_db.attachment_update(
                    self.admin_context, attachment.id,
                    {'attach_status': status})
        if action == 'os-update_snapshot_status':
            snapshot_db.snapshot_change(self.admin_context,
                                        env['snapshot'].id,
                                        {'status': 'creating'})
        if action == 'os-complete':
            attachment_db.attachment_update(
                self.admin_context, env['attachment'].id,
                {'attach_status': 'attaching'})

    def _call(self, key, persona, env):
        params, body, version = self._request(key, env)
        project, headers = _headers(persona, version)
        params['project_id'] = project
        query = params.pop('?', None)
        path = key[1].format(**params)
        if query:
            path += '?' + query
        kwargs = {}
        if body is not None:
            kwargs = {'body': jsonutils.dumps(body).encode(),
                      'content_type': 'application/json'}
        return self.app.request(path, method=key[0], headers=headers,
                                expect_errors=True, **kwargs)

    def _statuses(self, key, personas):
        """{persona: (status, body)} of a request of ``key`` by each of
        ``personas``; the resources are made anew after a request that
        changed them."""
        statuses = {}
        env = None
        for persona in personas:
            if env is None:
                env = self._environment(key)
                self._prepare(key, env)
            response = self._call(key, persona, env)
            statuses[persona] = (response.status_int, response.body[:200])
            if key[0] != 'GET' and response.status_int < 400:
                env = None
        return statuses

    def _mismatches(self, cells):
        """'persona route: wanted W, got G body' of every cell of
        ``cells`` ({key: [persona]}) whose status is not the matrix'."""
        found = []
        for key, personas in sorted(cells.items()):
            statuses = self._statuses(key, personas)
            for persona in personas:
                status, body = statuses[persona]
                want = getattr(MATRIX[key], persona)
                if status != want:
                    found.append('%s %s %s: wanted %s, got %s %s' % (
                        persona, ' '.join(key[:1] + key[2:]), key[1], want,
                        status, body))
        return found

    def test_matrix(self):
        cells = {key: list(PERSONAS) for key in MATRIX}
        self.assertEqual([], self._mismatches(cells))
