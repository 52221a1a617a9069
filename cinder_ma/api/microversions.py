"""Microversions of the Block Storage v3 API.

A client asks for a microversion with the header
``OpenStack-API-Version: volume 3.N`` (or ``volume latest``); without it
the request is served as 3.0. Every response under ``/v3`` says which
version served it in the same header, with ``Vary: OpenStack-API-Version``.

The numbers are Cinder's: a client written for Cinder gets at 3.N what
Cinder gives at 3.N, for the resources cinder_ma serves. Use the named
constants below, never a bare number, in controllers, schemas and views.

History (what each version changes in cinder_ma; Cinder's own history
covers resources we do not serve):

* 3.0  -- the Cinder v2 core API at /v3: volumes with their metadata
  and actions (legacy attach/detach, os-extend, os-set_bootable,
  os-retype, os-force_delete), types with their extra specs, access
  lists (os-volume-type-access) and encryption, os-services.
* 3.2  (VOLUME_LIST_BOOTABLE) -- the ``bootable`` filter of volume lists
  takes strict booleans; anything else is a 400 (before: "false"/"False"
  mean non-bootable, any other value bootable).
* 3.7  (CLUSTER_SUPPORT) -- services show ``cluster`` (always null: no
  clustering here).
* 3.13 (GROUP_VOLUME) -- volumes show ``group_id`` (always null: no
  groups); create accepts ``group_id`` (null only).
* 3.15 (ETAGS) -- ``GET /volumes/{id}/metadata`` answers an ``Etag``;
  ``PUT /volumes/{id}/metadata`` and ``PUT .../metadata/{key}`` with an
  ``If-Match`` that no longer holds are a 412 (lost updates).
* 3.21 (VOLUME_DETAIL_PROVIDER_ID) -- volumes show ``provider_id`` to
  admins.
* 3.23 (VOLUME_DELETE_FORCE) -- volume delete honours ``force``.
* 3.27 (NEW_ATTACH) -- the attachments API: ``/attachments`` (create,
  show, list, list with details, update with a connector, delete).
  Below, those URLs are a 404.
* 3.31 (RESOURCE_FILTER) -- unknown filters of volume lists are a 400
  instead of being ignored.
* 3.34 (LIKE_FILTER) -- volume lists accept ``name~`` (substring match).
* 3.42 (VOLUME_EXTEND_INUSE) -- ``os-extend`` grows in-use volumes too
  (where the backend declares online extend); below, only available
  ones.
* 3.44 (NEW_ATTACH_COMPLETION) -- the ``os-complete`` action of
  attachments marks an attachment attached (204).
* 3.45 (SUPPORT_COUNT_INFO) -- volume lists accept ``with_count`` and then
  return ``count``.
* 3.47 (VOLUME_CREATE_FROM_BACKUP) -- create accepts ``backup_id`` (null
  only: no backups).
* 3.48 (VOLUME_SHARED_TARGETS_AND_SERVICE_FIELDS) -- volumes show
  ``shared_targets`` and ``service_uuid``.
* 3.49 (BACKEND_STATE_REPORT) -- services of volume backends show
  ``backend_state``.
* 3.50 (MULTIATTACH_VOLUMES) -- shareable volumes come from volume types
  with the extra spec ``multiattach="<is> True"``; the legacy
  ``multiattach`` flag of volume create is refused.
* 3.52 (SUPPORT_VOLUME_TYPE_FILTER) -- type lists accept an ``extra_specs``
  filter (a JSON object).
* 3.53 (SUPPORT_VOLUME_SCHEMA_CHANGES) -- volume create refuses unknown
  keys; volume update needs at least one field.
* 3.54 (ATTACHMENT_CREATE_MODE_ARG) -- attachment create takes ``mode``
  (``rw`` or ``ro``).
* 3.55 (ATTACH_THROUGH_MANAGER) -- **cinder_ma's own**, "attach through a
  cinder_ma manager": attachment create takes ``instance_host``, a host
  run by a cinder_ma manager (not with ``connector``); that manager's
  attach flow connects the volume and attaches it to the instance,
  asynchronously (the attachment goes from ``reserved`` to ``attached``;
  clients poll it). The ``attachments`` entries of volumes show
  ``attach_mode``; attachment lists show ``attachments_links`` when a
  page is full; ``os-begin_detaching`` and ``os-roll_detaching`` take an
  optional ``attachment_id`` (a shareable volume has several).
  Cinder's own 3.55 (volume transfers with snapshots) is not served:
  cinder_ma has no transfers. A Cinder client negotiates the lower of its
  maximum and ours (python-cinderclient's is 3.71), so it speaks 3.55 to
  us and gets Cinder's shapes plus the fields above.
"""

import re

from cinder_ma import exception

BASE_VERSION = '3.0'
VOLUME_LIST_BOOTABLE = '3.2'
CLUSTER_SUPPORT = '3.7'
GROUP_VOLUME = '3.13'
ETAGS = '3.15'
VOLUME_DETAIL_PROVIDER_ID = '3.21'
VOLUME_DELETE_FORCE = '3.23'
NEW_ATTACH = '3.27'
RESOURCE_FILTER = '3.31'
LIKE_FILTER = '3.34'
VOLUME_EXTEND_INUSE = '3.42'
NEW_ATTACH_COMPLETION = '3.44'
SUPPORT_COUNT_INFO = '3.45'
VOLUME_CREATE_FROM_BACKUP = '3.47'
VOLUME_SHARED_TARGETS_AND_SERVICE_FIELDS = '3.48'
BACKEND_STATE_REPORT = '3.49'
MULTIATTACH_VOLUMES = '3.50'
SUPPORT_VOLUME_TYPE_FILTER = '3.52'
SUPPORT_VOLUME_SCHEMA_CHANGES = '3.53'
ATTACHMENT_CREATE_MODE_ARG = '3.54'
# cinder_ma's own (Cinder's 3.55 is TRANSFER_WITH_SNAPSHOTS).
ATTACH_THROUGH_MANAGER = '3.55'

MIN_VERSION = BASE_VERSION
MAX_VERSION = ATTACH_THROUGH_MANAGER

# When MAX_VERSION last changed; the version documents show it.
UPDATED = '2026-11-21T00:00:00Z'

HEADER = 'OpenStack-API-Version'
SERVICE_TYPE = 'volume'
LATEST = 'latest'

_VERSION_RE = re.compile(r'^([1-9]\d*)\.(0|[1-9]\d*)$')


class InvalidAPIVersionString(exception.Invalid):
    message = ('API Version String %(version)s is of invalid format. Must '
               'be of format MajorNum.MinorNum.')


class InvalidGlobalAPIVersion(exception.VersionNotAcceptable):
    message = ('Version %(req_ver)s is not supported by the API. Minimum '
               'is %(min_ver)s and maximum is %(max_ver)s.')


class VersionNotFoundForAPIMethod(exception.NotFound):
    message = 'API version %(version)s is not supported on this method.'


_PARSED = {}


class APIVersionRequest:
    """The microversion a request asked for (ordered, comparable)."""

    def __init__(self, version):
        match = _VERSION_RE.match(str(version).strip())
        if not match:
            raise InvalidAPIVersionString(version=version)
        self.major = int(match.group(1))
        self.minor = int(match.group(2))

    def _key(self):
        return (self.major, self.minor)

    @classmethod
    def _coerce(cls, other):
        if isinstance(other, cls):
            return other
        # Constants are strings: parse each once, not once per use (views
        # ask for every item of a list).
        parsed = _PARSED.get(other)
        if parsed is None:
            parsed = _PARSED[other] = cls(other)
        return parsed

    def __eq__(self, other):
        return self._key() == self._coerce(other)._key()

    def __lt__(self, other):
        return self._key() < self._coerce(other)._key()

    def __le__(self, other):
        return self._key() <= self._coerce(other)._key()

    def __gt__(self, other):
        return self._key() > self._coerce(other)._key()

    def __ge__(self, other):
        return self._key() >= self._coerce(other)._key()

    def __hash__(self):
        return hash(self._key())

    def __str__(self):
        return '%d.%d' % self._key()

    def __repr__(self):
        return 'APIVersionRequest(%r)' % str(self)

    def matches(self, min_version=None, max_version=None):
        """Whether min_version <= self <= max_version (None: unbounded)."""
        if min_version is not None and self < min_version:
            return False
        if max_version is not None and self > max_version:
            return False
        return True


def _requested(header_value):
    """The version named for ``volume`` in a header value, or None.

    The header may name several services, comma separated:
    ``compute 2.60, volume 3.50``.
    """
    for item in header_value.split(','):
        parts = item.strip().split(None, 1)
        if len(parts) == 2 and parts[0].lower() == SERVICE_TYPE:
            return parts[1].strip()
        if len(parts) == 1 and parts[0].lower() == SERVICE_TYPE:
            return ''
    return None


def from_headers(headers):
    """The APIVersionRequest of a request's headers.

    :raises InvalidAPIVersionString: malformed version (400).
    :raises InvalidGlobalAPIVersion: outside [MIN_VERSION, MAX_VERSION]
        (406).
    """
    value = headers.get(HEADER)
    requested = _requested(value) if value else None
    if requested is None:
        return APIVersionRequest(MIN_VERSION)
    if requested.lower() == LATEST:
        return APIVersionRequest(MAX_VERSION)
    version = APIVersionRequest(requested)
    if not version.matches(MIN_VERSION, MAX_VERSION):
        raise InvalidGlobalAPIVersion(req_ver=str(version),
                                      min_ver=MIN_VERSION,
                                      max_ver=MAX_VERSION)
    return version


def prior(version):
    """The microversion just before ``version`` (for range bounds)."""
    version = APIVersionRequest(version)
    if version.minor == 0:
        raise ValueError('no microversion before %s' % version)
    return '%d.%d' % (version.major, version.minor - 1)


def response_headers(version):
    """Headers every response served at ``version`` carries."""
    return {HEADER: '%s %s' % (SERVICE_TYPE, version),
            'Vary': HEADER}
