"""Attachment views: Cinder's ``cinder/api/v3/views/attachments.py``.

Summary: ``id``, ``status`` (the attach status), ``instance`` (the
instance uuid) and ``volume_id``. Detail adds ``attached_at`` and
``detached_at`` (an empty string when unset, as Cinder prints them),
``attach_mode`` and ``connection_info`` (the object the backend gave when
the attachment was connected, or null). Create, update and show answer
the detail of one attachment; delete answers the summaries of the
volume's other attachments.

From 3.55 (ours) a full page of a list carries ``attachments_links``
(Cinder's attachment lists have no links).
"""

from cinder_ma.api import microversions as mv
from cinder_ma.api import views
from cinder_ma.api.views import links
from cinder_ma.volume import attachments as volume_attachments

COLLECTION = 'attachments'


def _time(value):
    return views.isotime(value) if value is not None else ''


def summary(attachment):
    return {
        'id': attachment.id,
        'status': attachment.attach_status,
        'instance': attachment.instance_uuid,
        'volume_id': attachment.volume_id,
    }


def detail(attachment):
    view = summary(attachment)
    view.update({
        'attached_at': _time(attachment.attach_time),
        'detached_at': _time(attachment.detach_time),
        'attach_mode': attachment.attach_mode,
        'connection_info': volume_attachments.connection_info_of(
            attachment),
    })
    return view


def show(attachment):
    return {'attachment': detail(attachment)}


def _list(req, func, attachments, limit, collection):
    body = {'attachments': [func(a) for a in attachments]}
    if req.api_version.matches(mv.ATTACH_THROUGH_MANAGER):
        next_links = links.next_links(req, attachments, limit, collection)
        if next_links:
            body['attachments_links'] = next_links
    return body


def summary_list(req, attachments, limit):
    """``GET /attachments``."""
    return _list(req, summary, attachments, limit, COLLECTION)


def detail_list(req, attachments, limit):
    """``GET /attachments/detail``."""
    return _list(req, detail, attachments, limit, COLLECTION + '/detail')


def remaining(attachments):
    """``DELETE /attachments/{id}``: the volume's other attachments."""
    return {'attachments': [summary(a) for a in attachments]}
