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


"""cinder_ma's Block Storage API as the dashboard uses it.

Every call goes through Horizon's own ``cinderclient`` (its token, its
endpoint from the catalog, its request log) at microversion
:data:`VERSION`, with the header ``Cinder-MA-Extensions`` naming the
extensions whose fields the dashboard shows (cinder_ma shows them only to
clients that ask): ``cinder-ma-multiattach`` (the mode of a volume's
attachments), ``cinder-ma-writers`` (a shareable volume's writer policy)
and ``cinder-ma-fencing`` (an attachment's fenced state and generation;
the fence and promote actions); the ``cinder-ma-audit`` extension's
resource (the attachment audit's results), and Cinder's user messages
(the fencing events). Errors are cinderclient's exceptions,
which Horizon's ``exceptions.handle`` turns into messages.
"""

import urllib.parse

from openstack_dashboard.api import cinder

#: 3.44 for the fencing actions, 3.50 for the multi-attach details,
#: 3.54 for attachment modes; what Horizon 27 asks for its newest
#: features.
VERSION = '3.60'
MULTIATTACH = 'cinder-ma-multiattach'
WRITERS = 'cinder-ma-writers'
FENCING = 'cinder-ma-fencing'
HEADERS = {'Cinder-MA-Extensions': ','.join((MULTIATTACH, WRITERS,
                                            FENCING))}
FENCED = FENCING + ':fenced'
GENERATION = FENCING + ':generation'
FENCE = FENCING + ':fence'
PROMOTE = FENCING + ':promote'
WRITERS_FIELD = WRITERS + ':writers'
ATTACH_MODE = MULTIATTACH + ':attach_mode'
#: The volume type extra specs of a shareable type.
MULTIATTACH_SPEC = 'multiattach'
WRITERS_SPEC = 'multiattach:writers'
MAX_ATTACHMENTS_SPEC = 'multiattach:max_attachments'
#: The read-only flag in a volume's metadata (as Cinder shows it).
READONLY_KEY = 'readonly'
#: A one-writer volume's policy.
ONE_WRITER = 'one'
#: The user message cinder_ma records for an attachment fenced (by the
#: fence action, or demoted by a promotion): the action 901 (fence
#: attachment), the detail 901 (access revoked) of docs/user/messages.rst.
FENCING_EVENT = 'VOLUME_VOLUME_901_901'
#: How many fencing events the dashboard shows.
EVENTS_LIMIT = 50


class Attachment:
    """An attachment of a volume, as ``GET /attachments/detail`` shows
    it, with what the volume's details add (the host, to
    administrators) and the instance's name."""

    def __init__(self, info, host=None, instance_name=None,
                 writers=None):
        self._info = info
        self.id = info['id']
        self.volume_id = info.get('volume_id')
        self.status = info.get('status')
        self.instance = info.get('instance')
        self.attach_mode = info.get('attach_mode')
        self.attached_at = info.get('attached_at') or None
        self.fenced = bool(info.get(FENCED))
        self.generation = info.get(GENERATION)
        self.host = host
        self.instance_name = instance_name
        #: The writer policy of its volume ('one', 'many' or None).
        self.writers = writers

    @property
    def is_writer(self):
        """Whether it holds the writer slot of a one-writer volume (a
        fenced writer keeps it until promoted over or deleted)."""
        return self.writers == ONE_WRITER and self.attach_mode == 'rw'

    @property
    def is_standby(self):
        """A connected read-only attachment of a one-writer volume: what
        a promotion takes."""
        return (self.writers == ONE_WRITER and self.attach_mode == 'ro' and
                self.status == 'attached' and not self.fenced)

    def to_dict(self):
        return dict(self._info)


class Volume:
    """A volume, with cinder_ma's fields read out."""

    def __init__(self, info):
        self._info = info
        self.id = info['id']
        self.name = info.get('name') or ''
        self.status = info.get('status')
        self.size = info.get('size')
        self.volume_type = info.get('volume_type')
        self.multiattach = bool(info.get('multiattach'))
        self.writers = info.get(WRITERS_FIELD)
        metadata = info.get('metadata') or {}
        self.readonly = str(metadata.get(READONLY_KEY, '')).lower() == 'true'
        self.project_id = info.get('os-vol-tenant-attr:tenant_id')
        self.host = info.get('os-vol-host-attr:host')
        #: attachment id -> host name (administrators only).
        self.attachment_hosts = {
            a.get('attachment_id'): a.get('host_name')
            for a in info.get('attachments') or ()}
        #: Filled in by :func:`attachments_of`.
        self.attachments = []

    @property
    def writer(self):
        """The attachment that writes a one-writer volume, or None."""
        for attachment in self.attachments:
            if attachment.is_writer:
                return attachment
        return None

    @property
    def fenced(self):
        return [a for a in self.attachments if a.fenced]


def _http(request):
    """Horizon's cinderclient HTTP client (token, endpoint, log)."""
    return cinder.cinderclient(request, VERSION).client


def _url(path, **query):
    query = {k: v for k, v in query.items() if v is not None}
    if query:
        path += '?' + urllib.parse.urlencode(sorted(query.items()))
    return path


def _get(request, path, **query):
    _resp, body = _http(request).get(_url(path, **query),
                                     headers=dict(HEADERS))
    return body


def _post(request, path, body):
    _resp, answer = _http(request).post(path, body=body,
                                        headers=dict(HEADERS))
    return answer


def volume_get(request, volume_id):
    return Volume(_get(request, '/volumes/%s' % volume_id)['volume'])


def volume_list(request, all_projects=False):
    """Volumes with details (every project's with ``all_projects``, an
    administrator's view)."""
    body = _get(request, '/volumes/detail',
                all_tenants=1 if all_projects else None)
    return [Volume(v) for v in body['volumes']]


def attachment_list(request, volume_id=None, all_projects=False):
    """Attachment details (of one volume, of every project)."""
    body = _get(request, '/attachments/detail', volume_id=volume_id,
                all_tenants=1 if all_projects else None)
    return body['attachments']


def attachment_get(request, attachment_id):
    return _get(request, '/attachments/%s' % attachment_id)['attachment']


def attachments_of(volume, attachments, instance_names=None):
    """Fill ``volume.attachments`` from ``attachments`` (dicts of the
    attachments API): the writer of a one-writer volume first, then the
    oldest first; returns the volume."""
    names = instance_names or {}
    volume.attachments = sorted(
        (Attachment(a, host=volume.attachment_hosts.get(a['id']),
                    instance_name=names.get(a.get('instance')),
                    writers=volume.writers)
         for a in attachments if a.get('volume_id') == volume.id),
        key=lambda a: (not a.is_writer, a.attached_at or '', a.id))
    return volume


class Message:
    """A user message (``GET /messages``: 3.3, filtered from 3.5), with
    the volume it is about when the caller knows it."""

    def __init__(self, info):
        self._info = info
        self.id = info['id']
        self.event_id = info.get('event_id')
        self.user_message = info.get('user_message')
        self.message_level = info.get('message_level')
        self.created_at = info.get('created_at')
        self.request_id = info.get('request_id')
        self.resource_type = info.get('resource_type')
        self.resource_uuid = info.get('resource_uuid')
        #: Filled in by the caller from the volume list (None: the
        #: volume is gone, or another project's to a member).
        self.volume = None

    def to_dict(self):
        return dict(self._info)


def fencing_events(request, limit=EVENTS_LIMIT):
    """The newest user messages of attachments fenced, newest first.

    An administrator sees every project's messages (as in Cinder, the
    messages API takes no ``all_tenants``), a member their project's.
    Messages are kept ``[message] message_ttl`` seconds (30 days by
    default), then purged.
    """
    body = _get(request, '/messages', event_id=FENCING_EVENT,
                limit=limit, sort='created_at:desc')
    return [Message(m) for m in body['messages']]


class Audit:
    """A run of ``cinder-ma-manage attachment audit``, as the
    ``cinder-ma-audit`` extension shows it."""

    def __init__(self, info):
        self._info = info
        self.id = info['id']
        self.created_at = info.get('created_at')
        self.host = info.get('host')
        self.hosts_audited = info.get('hosts_audited')
        self.findings_count = info.get('findings_count') or 0
        self.findings = info.get('findings') or []

    def to_dict(self):
        return dict(self._info)


def last_audit(request):
    """The newest recorded run of the attachment audit, or None (never
    run); ``GET /cinder-ma-audits`` (administrators)."""
    body = _get(request, '/cinder-ma-audits', limit=1)
    audits = body['audits']
    return Audit(audits[0]) if audits else None


def update_readonly_flag(request, volume_id, readonly):
    """``os-update_readonly_flag`` (the volume must be available)."""
    _post(request, '/volumes/%s/action' % volume_id,
          {'os-update_readonly_flag': {'readonly': bool(readonly)}})


def fence(request, attachment_id):
    """``cinder-ma-fencing:fence``: the attachment's access is revoked at
    the storage target at once."""
    return _post(request, '/attachments/%s/action' % attachment_id,
                 {FENCE: {}})['attachment']


def promote(request, attachment_id):
    """``cinder-ma-fencing:promote``: a read-only attachment of a
    one-writer volume becomes its writer; the writer is fenced and made
    read-only first."""
    return _post(request, '/attachments/%s/action' % attachment_id,
                 {PROMOTE: {}})['attachment']


def shareable_type_create(request, name, description=None, writers=None,
                          max_attachments=None, is_public=True):
    """A shareable volume type (``multiattach="<is> True"``) with its
    writer policy and attachment cap."""
    specs = {MULTIATTACH_SPEC: '<is> True'}
    if writers:
        specs[WRITERS_SPEC] = writers
    if max_attachments:
        specs[MAX_ATTACHMENTS_SPEC] = str(int(max_attachments))
    body = {'volume_type': {
        'name': name, 'description': description or '',
        'os-volume-type-access:is_public': bool(is_public),
        'extra_specs': specs}}
    return _post(request, '/types', body)['volume_type']
