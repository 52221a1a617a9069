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

"""The route table: every URL the API serves, in one place.

Why a table and not pecan's object dispatch (``RestController`` trees):
with object dispatch the URL space is spread over nested controller
classes and their ``_lookup``/``_custom_actions``, so nobody sees the API
at once and adding a route means finding the right class. Here, as in
Placement's ``handler.py``, the whole API is the dict below: a path
template with its handler per method. Pecan still runs the app (request
and response objects, the WSGI plumbing); its root controller's ``_route``
hands every request to :func:`cinder_ma.api.app.dispatch`, which matches
it here.

Matching: templates are tried in order; ``{name}`` matches one path
segment and is passed to the handler as a keyword argument. As in
Cinder, a trailing slash is ignored only after a version root (``/v3/``):
elsewhere it leaves an empty last segment, which names nothing (a 404:
``GET /volumes/`` is not the list, ``DELETE /volumes/`` no volume). The
first template that matches the path and has a
handler for the method wins, so ``/volumes/detail`` precedes
``/volumes/{volume_id}`` (and ``PUT /volumes/detail`` reaches the update
of a volume named "detail": a 404, as in Cinder). A path that matches
only with other methods is a 405 with ``Allow``; no match is a 404.

Every ``/v3/{project_id}/...`` route is also served without the project
(``/v3/volumes``...), as Cinder serves both since microversion 3.67 (at
every version: the project is the caller's). The short forms are tried
after all the long ones, and their handlers get ``project_id=None``.

``HEAD`` is served wherever ``GET`` is, by the GET handler: the response
has GET's status and headers, and webob leaves out the body (RFC 9110).
"""

import re

import webob.exc

from cinder_ma.api.v3 import attachments
from cinder_ma.api.v3 import audits
from cinder_ma.api.v3 import availability_zones
from cinder_ma.api.v3 import capabilities
from cinder_ma.api.v3 import extensions
from cinder_ma.api.v3 import hosts
from cinder_ma.api.v3 import limits
from cinder_ma.api.v3 import messages
from cinder_ma.api.v3 import qos_specs
from cinder_ma.api.v3 import quota_class_sets
from cinder_ma.api.v3 import quota_sets
from cinder_ma.api.v3 import scheduler_stats
from cinder_ma.api.v3 import services
from cinder_ma.api.v3 import snapshot_actions
from cinder_ma.api.v3 import snapshot_metadata
from cinder_ma.api.v3 import snapshots
from cinder_ma.api.v3 import transfers
from cinder_ma.api.v3 import types
from cinder_ma.api.v3 import unsupported
from cinder_ma.api.v3 import versions
from cinder_ma.api.v3 import volume_actions
from cinder_ma.api.v3 import volume_encryption_metadata
from cinder_ma.api.v3 import volume_metadata
from cinder_ma.api.v3 import volume_summary
from cinder_ma.api.v3 import volume_type_access
from cinder_ma.api.v3 import volume_type_encryption
from cinder_ma.api.v3 import volumes

_P = '/v3/{project_id}'

_BACKUPS = unsupported.BACKUPS
_GROUP_TYPES = unsupported.GROUP_TYPES
_GROUPS = unsupported.GROUPS
_GROUP_SNAPSHOTS = unsupported.GROUP_SNAPSHOTS


def _member(resource, *methods):
    """The handlers of a path naming one of the resource's ids: its
    not-found answer for each method."""
    return dict.fromkeys(methods, resource.missing)


ROUTES = {
    '/': {'GET': versions.list_versions},
    '/v3': {'GET': versions.show_v3},

    _P + '/volumes': {'GET': volumes.index, 'POST': volumes.create},
    _P + '/volumes/detail': {'GET': volumes.detail},
    _P + '/volumes/summary': {'GET': volume_summary.summary},
    _P + '/volumes/{volume_id}': {'GET': volumes.show,
                                  'PUT': volumes.update,
                                  'DELETE': volumes.delete},
    _P + '/volumes/{volume_id}/action': {'POST': volume_actions.action},
    _P + '/volumes/{volume_id}/metadata': {
        'GET': volume_metadata.index,
        'POST': volume_metadata.create,
        'PUT': volume_metadata.update_all},
    _P + '/volumes/{volume_id}/encryption': {
        'GET': volume_encryption_metadata.index},
    _P + '/volumes/{volume_id}/encryption/{key}': {
        'GET': volume_encryption_metadata.show},
    _P + '/volumes/{volume_id}/metadata/{key}': {
        'GET': volume_metadata.show,
        'PUT': volume_metadata.update,
        'DELETE': volume_metadata.delete},

    # From 3.27 (NEW_ATTACH); below, 404.
    _P + '/attachments': {'GET': attachments.index,
                          'POST': attachments.create},
    _P + '/attachments/detail': {'GET': attachments.detail},
    _P + '/attachments/{attachment_id}': {'GET': attachments.show,
                                          'PUT': attachments.update,
                                          'DELETE': attachments.delete},
    _P + '/attachments/{attachment_id}/action': {
        'POST': attachments.action},

    _P + '/types': {'GET': types.index, 'POST': types.create},
    _P + '/types/{type_id}': {'GET': types.show,
                              'PUT': types.update,
                              'DELETE': types.delete},
    _P + '/types/{type_id}/extra_specs': {
        'GET': types.extra_specs_index,
        'POST': types.extra_specs_create},
    _P + '/types/{type_id}/extra_specs/{key}': {
        'GET': types.extra_spec_show,
        'PUT': types.extra_spec_update,
        'DELETE': types.extra_spec_delete},
    _P + '/types/{type_id}/action': {'POST': volume_type_access.action},
    _P + '/types/{type_id}/os-volume-type-access': {
        'GET': volume_type_access.index},
    _P + '/types/{type_id}/encryption': {
        'GET': volume_type_encryption.index,
        'POST': volume_type_encryption.create},
    # GET names a field of the encryption; PUT and DELETE an encryption
    # id, which is not looked at (see volume_type_encryption).
    _P + '/types/{type_id}/encryption/{encryption_id}': {
        'GET': volume_type_encryption.show,
        'PUT': volume_type_encryption.update,
        'DELETE': volume_type_encryption.delete},

    _P + '/os-services': {'GET': services.index},
    _P + '/os-services/{action}': {'PUT': services.update},
    _P + '/os-hosts': {'GET': hosts.index},
    _P + '/os-hosts/{host_name}': {'GET': hosts.show},

    _P + '/qos-specs': {'GET': qos_specs.index, 'POST': qos_specs.create},
    _P + '/qos-specs/{qos_id}': {'GET': qos_specs.show,
                                 'PUT': qos_specs.update,
                                 'DELETE': qos_specs.delete},
    _P + '/qos-specs/{qos_id}/delete_keys': {'PUT': qos_specs.delete_keys},
    _P + '/qos-specs/{qos_id}/associations': {
        'GET': qos_specs.associations},
    _P + '/qos-specs/{qos_id}/associate': {'GET': qos_specs.associate},
    _P + '/qos-specs/{qos_id}/disassociate': {
        'GET': qos_specs.disassociate},
    _P + '/qos-specs/{qos_id}/disassociate_all': {
        'GET': qos_specs.disassociate_all},

    _P + '/snapshots': {'GET': snapshots.index, 'POST': snapshots.create},
    _P + '/snapshots/detail': {'GET': snapshots.detail},
    _P + '/snapshots/{snapshot_id}': {'GET': snapshots.show,
                                      'PUT': snapshots.update,
                                      'DELETE': snapshots.delete},
    _P + '/snapshots/{snapshot_id}/action': {
        'POST': snapshot_actions.action},
    _P + '/snapshots/{snapshot_id}/metadata': {
        'GET': snapshot_metadata.index,
        'POST': snapshot_metadata.create,
        'PUT': snapshot_metadata.update_all},
    _P + '/snapshots/{snapshot_id}/metadata/{key}': {
        'GET': snapshot_metadata.show,
        'PUT': snapshot_metadata.update,
        'DELETE': snapshot_metadata.delete},

    _P + '/extensions': {'GET': extensions.index},
    _P + '/extensions/{alias}': {'GET': extensions.show},
    # cinder_ma's extensions' own resources.
    _P + '/cinder-ma-audits': {'GET': audits.index},

    # The calls clients make at start: limits, quotas, zones, pools.
    _P + '/limits': {'GET': limits.index},
    _P + '/os-quota-sets/{target_project_id}': {
        'GET': quota_sets.show,
        'PUT': quota_sets.update,
        'DELETE': quota_sets.delete},
    _P + '/os-quota-sets/{target_project_id}/defaults': {
        'GET': quota_sets.defaults},
    _P + '/os-quota-class-sets/{class_name}': {
        'GET': quota_class_sets.show,
        'PUT': quota_class_sets.update},
    _P + '/os-availability-zone': {'GET': availability_zones.index},
    _P + '/scheduler-stats/get_pools': {'GET': scheduler_stats.get_pools},
    _P + '/capabilities/{hostname}': {'GET': capabilities.show},

    # Volume transfers: Cinder's extension, and from 3.55 its v3 paths.
    _P + '/os-volume-transfer': {'GET': transfers.index,
                                 'POST': transfers.create},
    _P + '/os-volume-transfer/detail': {'GET': transfers.detail},
    _P + '/os-volume-transfer/{transfer_id}': {'GET': transfers.show,
                                               'DELETE': transfers.delete},
    _P + '/os-volume-transfer/{transfer_id}/accept': {
        'POST': transfers.accept},
    _P + '/volume-transfers': {'GET': transfers.v3_index,
                               'POST': transfers.v3_create},
    _P + '/volume-transfers/detail': {'GET': transfers.v3_detail},
    _P + '/volume-transfers/{transfer_id}': {'GET': transfers.v3_show,
                                             'DELETE': transfers.v3_delete},
    _P + '/volume-transfers/{transfer_id}/accept': {
        'POST': transfers.v3_accept},

    # From 3.3 (MESSAGES).
    _P + '/messages': {'GET': messages.index},
    _P + '/messages/{message_id}': {'GET': messages.show,
                                    'DELETE': messages.delete},

    # Resources cinder_ma does not have (yet), answered as a Cinder
    # deployment without them: empty lists, ids not found, creations a
    # 400 naming the feature (see unsupported; groups from 3.13, group
    # types 3.11, group snapshots 3.14, as in Cinder).
    _P + '/backups': _BACKUPS.collection,
    _P + '/backups/detail': _BACKUPS.listing,
    _P + '/backups/import_record': {'POST': _BACKUPS.create},
    _P + '/backups/{resource_id}': _member(_BACKUPS, 'GET', 'PUT',
                                           'DELETE'),
    _P + '/backups/{resource_id}/action': _member(_BACKUPS, 'POST'),
    _P + '/backups/{resource_id}/restore': _member(_BACKUPS, 'POST'),
    _P + '/backups/{resource_id}/export_record': _member(_BACKUPS, 'GET'),
    _P + '/group_types': _GROUP_TYPES.collection,
    _P + '/group_types/{resource_id}': _member(_GROUP_TYPES, 'GET', 'PUT',
                                               'DELETE'),
    _P + '/group_types/{resource_id}/group_specs': _member(
        _GROUP_TYPES, 'GET', 'POST'),
    _P + '/groups': _GROUPS.collection,
    _P + '/groups/detail': _GROUPS.listing,
    _P + '/groups/action': {'POST': _GROUPS.create},
    _P + '/groups/{resource_id}': _member(_GROUPS, 'GET', 'PUT'),
    _P + '/groups/{resource_id}/action': _member(_GROUPS, 'POST'),
    _P + '/group_snapshots': _GROUP_SNAPSHOTS.collection,
    _P + '/group_snapshots/detail': _GROUP_SNAPSHOTS.listing,
    _P + '/group_snapshots/{resource_id}': _member(_GROUP_SNAPSHOTS, 'GET',
                                                   'DELETE'),
    _P + '/group_snapshots/{resource_id}/action': _member(_GROUP_SNAPSHOTS,
                                                          'POST'),
}

# Served without authentication (version discovery).
PUBLIC_PATHS = frozenset(('/', '/v3'))

_VAR = re.compile(r'\{(\w+)\}')


def _compile(template):
    pattern = _VAR.sub(lambda m: '(?P<%s>[^/]+)' % m.group(1), template)
    return re.compile('^%s$' % pattern)


def _short(template):
    """The form of a project's route without the project (3.67)."""
    return '/v3' + template[len(_P):]


# (regex, handlers, extra path parameters)
_COMPILED = [(_compile(template), handlers, {})
             for template, handlers in ROUTES.items()]
_COMPILED += [(_compile(_short(template)), handlers, {'project_id': None})
              for template, handlers in ROUTES.items()
              if template.startswith(_P + '/')]


# Where a trailing slash is ignored: the version documents.
_ROOTS = frozenset(('/', '/v3'))


def normalize(path):
    """The path without its trailing slash ('/' stays '/')."""
    return path.rstrip('/') or '/'


def is_public(path):
    return normalize(path) in PUBLIC_PATHS


def is_versioned(path):
    """Whether the path is under /v3 (microversions apply)."""
    path = normalize(path)
    return path == '/v3' or path.startswith('/v3/')


def handlers():
    """Every handler of the table (for checks over all routes)."""
    for methods in ROUTES.values():
        yield from methods.values()


def _handler(methods, method):
    if method == 'HEAD' and 'HEAD' not in methods:
        method = 'GET'
    return methods.get(method)


def match(method, path):
    """The handler of a request and its path parameters.

    :raises webob.exc.HTTPNotFound: no route has this path.
    :raises webob.exc.HTTPMethodNotAllowed: routes have this path, none
        this method.
    """
    if path.endswith('/') and normalize(path) not in _ROOTS:
        raise webob.exc.HTTPNotFound(
            explanation='The resource could not be found.')
    path = normalize(path)
    allowed = set()
    for regex, methods, extra in _COMPILED:
        found = regex.match(path)
        if found is None:
            continue
        handler = _handler(methods, method)
        if handler is not None:
            return handler, dict(found.groupdict(), **extra)
        allowed.update(methods)
        if 'GET' in methods:
            allowed.add('HEAD')
    if allowed:
        raise webob.exc.HTTPMethodNotAllowed(
            explanation='The method %s is not allowed for this resource.'
                        % method,
            headers={'Allow': ', '.join(sorted(allowed))})
    raise webob.exc.HTTPNotFound(
        explanation='The resource could not be found.')
