"""Volume views: Cinder's ``cinder/api/v2/views/volumes.py`` and
``cinder/api/v3/views/volumes.py`` with the extension attributes Cinder
adds to them (``os-vol-tenant-attr``, ``os-vol-host-attr``,
``os-vol-mig-status-attr``).

Fields of features cinder_ma does not have are there with Cinder's empty
value (``snapshot_id``, ``source_volid``, ``consistencygroup_id``,
``group_id``: null; ``replication_status``: "disabled"), so that clients
parsing Cinder's shape work unchanged. ``bootable`` is the string "true"
or "false", as in Cinder. The volume's ``error_reason`` is not shown: Cinder
has no such field and a field of our own would need a microversion of our
own. ``attachments`` lists the attached attachments as Cinder does
(``host_name`` to admins only); from 3.55 (ours) each also shows its
``attach_mode``.
"""

from cinder_ma.api import microversions as mv
from cinder_ma.api import views
from cinder_ma.api.views import links

COLLECTION = 'volumes'
ATTACHED = 'attached'


def _volume_type(volume):
    if volume.volume_type_id and volume.volume_type is not None:
        return volume.volume_type.name
    return volume.volume_type_id


class _Options:
    """What a volume view depends on in the request, read once per request
    (a list renders many volumes; the request proxy is slow to read)."""

    def __init__(self, req):
        version = req.api_version
        self.is_admin = views.is_admin(req)
        self.with_mode = version.matches(mv.ATTACH_THROUGH_MANAGER)
        self.group = version.matches(mv.GROUP_VOLUME)
        self.provider_id = self.is_admin and version.matches(
            mv.VOLUME_DETAIL_PROVIDER_ID)
        self.shared_targets = version.matches(
            mv.VOLUME_SHARED_TARGETS_AND_SERVICE_FIELDS)
        root = links.root_url(req)
        project_id = req.context.project_id
        self.self_prefix = '%s/v3/%s/%s/' % (root, project_id, COLLECTION)
        self.bookmark_prefix = '%s/%s/%s/' % (root, project_id, COLLECTION)

    def links(self, identifier):
        return [{'rel': 'self', 'href': self.self_prefix + identifier},
                {'rel': 'bookmark', 'href': self.bookmark_prefix +
                 identifier}]


def _attachments(opts, volume):
    """Cinder's entries, attached attachments only; from 3.55 (ours)
    with ``attach_mode``."""
    attachments = []
    volume_id = volume.id
    is_admin = opts.is_admin
    isotime = views.isotime
    for attachment in volume.volume_attachment:
        if attachment.attach_status != ATTACHED:
            continue
        entry = {
            'id': volume_id,
            'attachment_id': attachment.id,
            'volume_id': volume_id,
            'server_id': attachment.instance_uuid,
            'host_name': attachment.attached_host if is_admin else None,
            'device': attachment.mountpoint,
            'attached_at': isotime(attachment.attach_time),
        }
        if opts.with_mode:
            entry['attach_mode'] = attachment.attach_mode
        attachments.append(entry)
    return attachments


def _summary(opts, volume):
    return {'id': volume.id, 'name': volume.name,
            'links': opts.links(volume.id)}


def summary(req, volume):
    return _summary(_Options(req), volume)


def _detail(opts, volume):
    view = {
        'id': volume.id,
        'status': volume.status,
        'size': volume.size,
        'availability_zone': volume.availability_zone,
        'created_at': views.isotime(volume.created_at),
        'updated_at': views.isotime(volume.updated_at),
        'name': volume.name,
        'description': volume.description,
        'volume_type': _volume_type(volume),
        'snapshot_id': None,
        'source_volid': None,
        'metadata': {m.key: m.value for m in volume.volume_metadata},
        'links': opts.links(volume.id),
        'user_id': volume.user_id,
        'bootable': 'true' if volume.bootable else 'false',
        'encrypted': bool(volume.encrypted),
        'replication_status': 'disabled',
        'consistencygroup_id': None,
        'multiattach': bool(volume.multiattach),
        'attachments': _attachments(opts, volume),
        'os-vol-tenant-attr:tenant_id': volume.project_id,
    }
    if opts.is_admin:
        view['migration_status'] = None
        view['os-vol-host-attr:host'] = volume.host
        view['os-vol-mig-status-attr:migstat'] = None
        view['os-vol-mig-status-attr:name_id'] = None
    if opts.group:
        view['group_id'] = None
    if opts.provider_id:
        view['provider_id'] = None
    if opts.shared_targets:
        view['shared_targets'] = bool(volume.shared_targets)
        view['service_uuid'] = volume.service_uuid
    return view


def detail(req, volume):
    return _detail(_Options(req), volume)


def show(req, volume):
    return {'volume': detail(req, volume)}


def _list(req, func, volumes, limit, collection, count):
    opts = _Options(req)
    body = {'volumes': [func(opts, volume) for volume in volumes]}
    next_links = links.next_links(req, volumes, limit, collection)
    if next_links:
        body['volumes_links'] = next_links
    if count is not None:
        body['count'] = count
    return body


def summary_list(req, volumes, limit, count=None):
    """``GET /volumes``; ``count`` when the request asked for it."""
    return _list(req, _summary, volumes, limit, COLLECTION, count)


def detail_list(req, volumes, limit, count=None):
    """``GET /volumes/detail``."""
    return _list(req, _detail, volumes, limit, COLLECTION + '/detail',
                 count)
