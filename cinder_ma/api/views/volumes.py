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


def _attachments(req, volume, is_admin):
    """Cinder's entries, attached attachments only; from 3.55 (ours)
    with ``attach_mode``."""
    with_mode = req.api_version.matches(mv.ATTACH_THROUGH_MANAGER)
    attachments = []
    for attachment in volume.volume_attachment:
        if attachment.attach_status != ATTACHED:
            continue
        entry = {
            'id': volume.id,
            'attachment_id': attachment.id,
            'volume_id': volume.id,
            'server_id': attachment.instance_uuid,
            'host_name': attachment.attached_host if is_admin else None,
            'device': attachment.mountpoint,
            'attached_at': views.isotime(attachment.attach_time),
        }
        if with_mode:
            entry['attach_mode'] = attachment.attach_mode
        attachments.append(entry)
    return attachments


def summary(req, volume):
    return {'id': volume.id,
            'name': volume.name,
            'links': links.resource_links(req, COLLECTION, volume.id)}


def detail(req, volume):
    is_admin = views.is_admin(req)
    version = req.api_version
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
        'links': links.resource_links(req, COLLECTION, volume.id),
        'user_id': volume.user_id,
        'bootable': str(bool(volume.bootable)).lower(),
        'encrypted': bool(volume.encrypted),
        'replication_status': 'disabled',
        'consistencygroup_id': None,
        'multiattach': bool(volume.multiattach),
        'attachments': _attachments(req, volume, is_admin),
        'os-vol-tenant-attr:tenant_id': volume.project_id,
    }
    if is_admin:
        view['migration_status'] = None
        view['os-vol-host-attr:host'] = volume.host
        view['os-vol-mig-status-attr:migstat'] = None
        view['os-vol-mig-status-attr:name_id'] = None
    if version.matches(mv.GROUP_VOLUME):
        view['group_id'] = None
    if is_admin and version.matches(mv.VOLUME_DETAIL_PROVIDER_ID):
        view['provider_id'] = None
    if version.matches(mv.VOLUME_SHARED_TARGETS_AND_SERVICE_FIELDS):
        view['shared_targets'] = bool(volume.shared_targets)
        view['service_uuid'] = volume.service_uuid
    return view


def show(req, volume):
    return {'volume': detail(req, volume)}


def _list(req, func, volumes, limit, collection, count):
    body = {'volumes': [func(req, volume) for volume in volumes]}
    next_links = links.next_links(req, volumes, limit, collection)
    if next_links:
        body['volumes_links'] = next_links
    if count is not None:
        body['count'] = count
    return body


def summary_list(req, volumes, limit, count=None):
    """``GET /volumes``; ``count`` when the request asked for it."""
    return _list(req, summary, volumes, limit, COLLECTION, count)


def detail_list(req, volumes, limit, count=None):
    """``GET /volumes/detail``."""
    return _list(req, detail, volumes, limit, COLLECTION + '/detail',
                 count)
