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

"""Volume views: Cinder's ``cinder/api/v2/views/volumes.py`` and
``cinder/api/v3/views/volumes.py`` with the extension attributes Cinder
adds to them (``os-vol-tenant-attr``, ``os-vol-host-attr``,
``os-vol-mig-status-attr``).

``snapshot_id`` and ``source_volid`` name what a volume was made from.
Fields of features cinder_ma does not have are there with Cinder's empty
value (``consistencygroup_id``,
``group_id``: null; ``replication_status``: "disabled"), so that clients
parsing Cinder's shape work unchanged. ``bootable`` is the string "true"
or "false", as in Cinder. The volume's ``error_reason`` (why its last
operation failed) is shown to administrators who ask for the extension
``cinder-ma-recovery``, as ``cinder-ma-recovery:failure_reason`` (see
docs/admin/operations.rst).

``metadata`` is the volume's metadata with, as in Cinder, the read-only
flag (``os-update_readonly_flag``) merged in as ``readonly: "True"``
while it is set (Cinder's visible administration metadata; it shows no
key for a volume that is not read-only).

``attachments`` lists the attached attachments as Cinder does
(``host_name`` to admins and services only); with the extension
``cinder-ma-multiattach`` asked for in the request
(:mod:`cinder_ma.api.extensions`), each also shows
``cinder-ma-multiattach:attach_mode``.

Which call answers what, as in Cinder (and as Tempest checks, extra keys
forbidden): show and the detail list carry the attributes of Cinder's
extensions (``os-vol-tenant-attr:tenant_id``, and for admins
``os-vol-host-attr:host`` and ``os-vol-mig-status-attr:*``); create and
update answer the volume without them (:func:`plain`).

By microversion: 3.13 ``group_id``; 3.21 ``provider_id`` (admins); 3.48
``shared_targets`` and ``service_uuid``; 3.61 ``cluster_name`` (admins,
null); 3.63 ``volume_type_id`` (and ``volume_type`` is the name or null);
3.64 ``encryption_key_id`` (only for a volume with a key: never here);
3.65 ``consumes_quota``; 3.69 ``shared_targets`` may be null (a null
shows as true below).

With the extension ``cinder-ma-writers`` asked for in the request, a
shareable volume shows ``cinder-ma-writers:writers``, its writer policy
(``one`` or ``many``, from its type's ``multiattach:writers``); volumes
that are not shareable do not show it.
"""

from cinder_ma.api import extensions
from cinder_ma.api import microversions as mv
from cinder_ma.api import views
from cinder_ma.api.views import links
from cinder_ma.volume import attachments as volume_attachments

COLLECTION = 'volumes'
#: The admin-only field of the reason the last operation failed.
FAILURE_REASON = extensions.field(extensions.RECOVERY, 'failure_reason')
#: The writer policy extension's field.
#: The key of the read-only flag in ``metadata`` (Cinder's name).
READONLY_KEY = 'readonly'
WRITERS_FIELD = extensions.field(extensions.WRITERS, 'writers')
ATTACHED = 'attached'
ATTACH_MODE = extensions.field(extensions.MULTIATTACH, 'attach_mode')


def _writers(volume):
    vtype = volume.volume_type if volume.volume_type_id else None
    return volume_attachments.writers_of(
        volume.multiattach, None if vtype is None else vtype.writers_spec)


def _volume_type(opts, volume):
    if volume.volume_type_id and volume.volume_type is not None:
        return volume.volume_type.name
    if opts.type_id:
        # From 3.63 the name or nothing (the id has its own field).
        return None
    return volume.volume_type_id


class _Options:
    """What a volume view depends on in the request, read once per request
    (a list renders many volumes; the request proxy is slow to read)."""

    def __init__(self, req, is_admin):
        version = req.api_version
        self.is_admin = is_admin
        self.sees_hosts = self.is_admin or views.is_service(req)
        self.with_mode = extensions.asked(req, extensions.MULTIATTACH)
        self.with_writers = extensions.asked(req, extensions.WRITERS)
        self.failure_reason = self.is_admin and extensions.asked(
            req, extensions.RECOVERY)
        self.group = version.matches(mv.GROUP_VOLUME)
        self.provider_id = self.is_admin and version.matches(
            mv.VOLUME_DETAIL_PROVIDER_ID)
        self.shared_targets = version.matches(
            mv.VOLUME_SHARED_TARGETS_AND_SERVICE_FIELDS)
        self.tristate = version.matches(mv.SHARED_TARGETS_TRISTATE)
        self.cluster_name = self.is_admin and version.matches(
            mv.VOLUME_CLUSTER_NAME)
        self.type_id = version.matches(mv.VOLUME_TYPE_ID_IN_VOLUME_DETAIL)
        self.consumes_quota = version.matches(mv.USE_QUOTA)
        root = links.root_url(req)
        project_id = req.context.project_id
        self.self_prefix = '%s/v3/%s/%s/' % (root, project_id, COLLECTION)
        self.bookmark_prefix = '%s/%s/%s/' % (root, project_id, COLLECTION)

    def links(self, identifier):
        return [{'rel': 'self', 'href': self.self_prefix + identifier},
                {'rel': 'bookmark', 'href': self.bookmark_prefix +
                 identifier}]


def _attachments(opts, volume):
    """Cinder's entries, attached attachments only; with
    ``cinder-ma-multiattach:attach_mode`` when the request asks."""
    attachments = []
    volume_id = volume.id
    sees_hosts = opts.sees_hosts
    isotime = views.isotime
    for attachment in volume.volume_attachment:
        if attachment.attach_status != ATTACHED:
            continue
        entry = {
            'id': volume_id,
            'attachment_id': attachment.id,
            'volume_id': volume_id,
            'server_id': attachment.instance_uuid,
            'host_name': attachment.attached_host if sees_hosts else None,
            'device': attachment.mountpoint,
            'attached_at': isotime(attachment.attach_time),
        }
        if opts.with_mode:
            entry[ATTACH_MODE] = attachment.attach_mode
        attachments.append(entry)
    return attachments


def _metadata(volume):
    """The volume's metadata and, as Cinder merges its visible
    administration metadata in, its read-only flag while set."""
    metadata = dict(volume.volume_metadata)
    if volume.readonly:
        metadata[READONLY_KEY] = 'True'
    return metadata


def _summary(opts, volume):
    return {'id': volume.id, 'name': volume.name,
            'links': opts.links(volume.id)}


def summary(req, volume, is_admin=False):
    return _summary(_Options(req, is_admin), volume)


def _detail(opts, volume, extended=True):
    """The detail of a volume; ``extended``: with the attributes of
    Cinder's extensions (show and lists, not create and update)."""
    view = {
        'id': volume.id,
        'status': volume.status,
        'size': volume.size,
        'availability_zone': volume.availability_zone,
        'created_at': views.isotime(volume.created_at),
        'updated_at': views.isotime(volume.updated_at),
        'name': volume.name,
        'description': volume.description,
        'volume_type': _volume_type(opts, volume),
        'snapshot_id': volume.snapshot_id,
        'source_volid': volume.source_volid,
        'metadata': _metadata(volume),
        'links': opts.links(volume.id),
        'user_id': volume.user_id,
        'bootable': 'true' if volume.bootable else 'false',
        'encrypted': bool(volume.encrypted),
        'replication_status': 'disabled',
        'consistencygroup_id': None,
        'multiattach': bool(volume.multiattach),
        'attachments': _attachments(opts, volume),
    }
    if opts.with_writers and volume.multiattach:
        view[WRITERS_FIELD] = _writers(volume)
    if opts.is_admin:
        view['migration_status'] = None
    if extended:
        view['os-vol-tenant-attr:tenant_id'] = volume.project_id
        if opts.is_admin:
            view['os-vol-host-attr:host'] = volume.host
            view['os-vol-mig-status-attr:migstat'] = None
            view['os-vol-mig-status-attr:name_id'] = None
        if opts.failure_reason:
            view[FAILURE_REASON] = volume.error_reason
    if opts.group:
        view['group_id'] = None
    if opts.provider_id:
        view['provider_id'] = None
    if opts.shared_targets:
        shared = volume.shared_targets
        if shared is None and not opts.tristate:
            shared = True
        view['shared_targets'] = None if shared is None else bool(shared)
        view['service_uuid'] = volume.service_uuid
    if opts.cluster_name:
        view['cluster_name'] = None
    if opts.type_id:
        view['volume_type_id'] = volume.volume_type_id
    if opts.consumes_quota:
        view['consumes_quota'] = True
    return view


def detail(req, volume, is_admin):
    """``is_admin``: whether the caller is an administrator (as
    :func:`cinder_ma.volume.api.is_admin` answers)."""
    return _detail(_Options(req, is_admin), volume)


def show(req, volume, is_admin):
    """``GET /volumes/{id}``."""
    return {'volume': detail(req, volume, is_admin)}


def plain(req, volume, is_admin):
    """``POST /volumes`` and ``PUT /volumes/{id}``: the detail without
    the attributes of Cinder's extensions, as Cinder answers them."""
    return {'volume': _detail(_Options(req, is_admin), volume,
                              extended=False)}


def _list(req, func, volumes, limit, collection, count, is_admin):
    opts = _Options(req, is_admin)
    body = {'volumes': [func(opts, volume) for volume in volumes]}
    next_links = links.next_links(req, volumes, limit, collection)
    if next_links:
        body['volumes_links'] = next_links
    if count is not None:
        body['count'] = count
    return body


def summary_list(req, volumes, limit, count=None, is_admin=False):
    """``GET /volumes``; ``count`` when the request asked for it."""
    return _list(req, _summary, volumes, limit, COLLECTION, count,
                 is_admin)


def detail_list(req, volumes, limit, count=None, is_admin=False):
    """``GET /volumes/detail``."""
    return _list(req, _detail, volumes, limit, COLLECTION + '/detail',
                 count, is_admin)
