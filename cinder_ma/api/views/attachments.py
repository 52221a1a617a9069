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

"""Attachment views: Cinder's ``cinder/api/v3/views/attachments.py``.

Summary: ``id``, ``status`` (the attach status), ``instance`` (the
instance uuid) and ``volume_id``. Detail adds ``attached_at`` and
``detached_at`` (an empty string when unset, as Cinder prints them),
``attach_mode`` and ``connection_info`` (or null before the attachment is
connected). Create, update and show answer the detail of one attachment;
delete answers the summaries of the volume's other attachments. Lists
have no links (Cinder's have none either: clients page with ``marker``).

``connection_info`` is flat, as Cinder's volume manager stores it for
the attachments API (``attachment_update``): the keys of the backend's
``data`` at the top level beside ``driver_volume_type``, plus
``attachment_id``; so ``access_mode`` is a top-level key, which a compute
service reads as Nova does. cinder_ma keeps the backend's nested form
inside (the legacy ``os-initialize_connection`` answers that one); this
view flattens it. ``access_mode`` is always the attachment's mode: Cinder
says ``rw`` in the connection_info of an ``ro`` attachment of a volume
that is not read-only (a known Cinder bug, fixed here).

With the extension ``cinder-ma-recovery`` asked for in the request
(:mod:`cinder_ma.api.extensions`), administrators also see in the detail
why the attachment's last step failed,
``cinder-ma-recovery:failure_reason`` (null when it did not; see
docs/admin/operations.rst).

With the extension ``cinder-ma-fencing`` asked for, details show
``cinder-ma-fencing:fenced`` (whether the attachment's access is revoked)
and ``cinder-ma-fencing:generation`` (how many connections it was given);
the answers of that extension's actions always show them.
"""

from cinder_ma.api import extensions
from cinder_ma.api import views
from cinder_ma import connection_info

COLLECTION = 'attachments'
#: The admin-only field of the reason the last step failed (volumes show
#: theirs under the same name).
FAILURE_REASON = extensions.field(extensions.RECOVERY, 'failure_reason')
FENCED = extensions.field(extensions.FENCING, 'fenced')
GENERATION = extensions.field(extensions.FENCING, 'generation')


def _time(value):
    return views.isotime(value) if value is not None else ''


def flat_connection_info(attachment):
    """The attachment's connection_info in Cinder's flat shape, or None."""
    nested = attachment.connection_info
    if nested is None:
        return None
    flat = {key: value for key, value in nested.items()
            if key not in ('data', connection_info.SCOPE_KEY)}
    flat.update(nested.get('data') or {})
    if attachment.attach_mode:
        flat['access_mode'] = attachment.attach_mode
    flat['attachment_id'] = attachment.id
    return flat


def summary(attachment):
    return {
        'id': attachment.id,
        'status': attachment.attach_status,
        'instance': attachment.instance_uuid,
        'volume_id': attachment.volume_id,
    }


def with_failure_reason(req, is_admin):
    """Whether the details answered to ``req`` show the failure reason
    (``is_admin``: whether the caller is an administrator)."""
    return req is not None and is_admin and extensions.asked(
        req, extensions.RECOVERY)


def with_fencing(req):
    """Whether the details answered to ``req`` show the fencing fields."""
    return req is not None and extensions.asked(req, extensions.FENCING)


def detail(attachment, is_admin=False, fencing=False):
    view = summary(attachment)
    view.update({
        'attached_at': _time(attachment.attach_time),
        'detached_at': _time(attachment.detach_time),
        'attach_mode': attachment.attach_mode,
        'connection_info': flat_connection_info(attachment),
    })
    if is_admin:
        view[FAILURE_REASON] = attachment.error_reason
    if fencing:
        view[FENCED] = attachment.fenced_at is not None
        view[GENERATION] = attachment.generation
    return view


def show(attachment, req=None, fencing=None, is_admin=False):
    """One attachment's detail; ``fencing``: show the fencing fields
    (default: when the request asks for the extension)."""
    if fencing is None:
        fencing = with_fencing(req)
    return {'attachment': detail(attachment,
                                 is_admin=with_failure_reason(req, is_admin),
                                 fencing=fencing)}


def summary_list(req, attachments, limit, is_admin=False):
    """``GET /attachments``."""
    return {'attachments': [summary(a) for a in attachments]}


def detail_list(req, attachments, limit, is_admin=False):
    """``GET /attachments/detail``."""
    is_admin = with_failure_reason(req, is_admin)
    fencing = with_fencing(req)
    return {'attachments': [detail(a, is_admin, fencing)
                            for a in attachments]}


def remaining(attachments):
    """``DELETE /attachments/{id}``: the volume's other attachments."""
    return {'attachments': [summary(a) for a in attachments]}
