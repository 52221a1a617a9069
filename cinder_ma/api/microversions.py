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
* 3.3  (MESSAGES) -- ``/messages``: user messages (list, show, delete),
  the asynchronous failures a user could not otherwise see (see
  :mod:`cinder_ma.api.v3.messages`).
* 3.5  (MESSAGES_PAGINATION) -- message lists take ``limit``, ``marker``,
  ``offset``, ``sort`` and Cinder's filters (``resource_uuid``,
  ``resource_type``, ``event_id``, ``request_id``, ``message_level``).
* 3.7  (CLUSTER_SUPPORT) -- services show ``cluster`` (always null: no
  clustering here).
* 3.11 (GROUP_TYPE) -- ``/group_types``: no groups here; the list is
  empty, a creation a 400.
* 3.12 (VOLUME_SUMMARY) -- ``GET /volumes/summary``: how many volumes
  and their total size.
* 3.13 (GROUP_VOLUME) -- volumes show ``group_id`` (always null: no
  groups); create accepts ``group_id`` (null only). ``/groups``: the
  list is empty, a creation a 400.
* 3.14 (GROUP_SNAPSHOTS) -- ``/group_snapshots``: the list is empty, a
  creation a 400. Snapshots show ``group_snapshot_id`` (always null).
* 3.15 (ETAGS) -- ``GET /volumes/{id}/metadata`` answers an ``Etag``;
  ``PUT /volumes/{id}/metadata`` and ``PUT .../metadata/{key}`` with an
  ``If-Match`` that no longer holds are a 412 (lost updates).
* 3.21 (VOLUME_DETAIL_PROVIDER_ID) -- volumes show ``provider_id`` to
  admins.
* 3.22 (SNAPSHOT_LIST_METADATA_FILTER) -- snapshot lists accept a
  ``metadata`` filter.
* 3.23 (VOLUME_DELETE_FORCE) -- volume delete honours ``force``.
* 3.27 (NEW_ATTACH) -- the attachments API: ``/attachments`` (create,
  show, list, list with details, update with a connector, delete).
  Below, those URLs are a 404.
* 3.30 (SNAPSHOT_SORT) -- snapshot lists sort by ``name``.
* 3.31 (RESOURCE_FILTER) -- unknown filters of volume and snapshot lists
  are a 400 instead of being ignored.
* 3.34 (LIKE_FILTER) -- volume lists accept ``name~`` (substring match).
* 3.36 (VOLUME_SUMMARY_METADATA) -- the volume summary shows the
  metadata of the volumes (each key with its distinct values).
* 3.39 (LIMITS_ADMIN_FILTER) -- admins get the absolute limits of
  another project with ``GET /limits?project_id=``.
* 3.40 (VOLUME_REVERT) -- the ``revert`` volume action: the volume's
  data back to its latest snapshot (available volumes only, of the
  snapshot's size).
* 3.41 (SNAPSHOT_LIST_USER_ID) -- snapshots show ``user_id``.
* 3.42 (VOLUME_EXTEND_INUSE) -- ``os-extend`` grows in-use volumes too
  (where the backend declares online extend); below, only available
  ones.
* 3.44 (NEW_ATTACH_COMPLETION) -- the ``os-complete`` action of
  attachments marks an attachment attached (204).
* 3.45 (SUPPORT_COUNT_INFO) -- volume and snapshot lists accept
  ``with_count`` and then return ``count``.
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
* 3.55 (TRANSFER_WITH_SNAPSHOTS) -- ``/volume-transfers``: Cinder's v3
  volume transfers, whose create takes ``no_snapshots`` and whose detail
  shows it (see :mod:`cinder_ma.api.v3.transfers`).
  (Before 3.71 was served, cinder_ma used 3.55 for its own "attach
  through a manager"; that is now the extension
  ``cinder-ma-manager-attach``, see :mod:`cinder_ma.api.extensions`, and
  a request in the old form is a 400 naming the new one.)
* 3.56 (BACKUP_PROJECT_USER_ID), 3.58 (GROUP_GROUPSNAPSHOT_PROJECT_ID)
  -- backups and groups: not served here (their lists are empty),
  nothing changes.
* 3.57 (TRANSFER_WITH_HISTORY) -- ``/volume-transfers`` show
  ``source_project_id``, ``destination_project_id`` and ``accepted``.
* 3.59 (SUPPORT_TRANSFER_PAGINATION) -- ``/volume-transfers`` lists take
  ``marker`` and ``sort`` (besides ``limit`` and ``offset``).
* 3.60 (VOLUME_TIME_COMPARISON_FILTER) -- volume lists accept
  ``created_at`` and ``updated_at`` filters, ``<op>:<ISO 8601 time>``
  with ``op`` one of ``gt``, ``gte``, ``lt``, ``lte``, ``eq``, ``neq``
  (several comma separated, all must hold).
* 3.61 (VOLUME_CLUSTER_NAME) -- volumes show ``cluster_name`` to admins
  (always null: no clustering here).
* 3.62 (DEFAULT_TYPE_OVERRIDES) -- per-project default types: not served,
  nothing changes.
* 3.63 (VOLUME_TYPE_ID_IN_VOLUME_DETAIL) -- volumes show
  ``volume_type_id``; ``volume_type`` is the type's name or null.
* 3.64 (ENCRYPTION_KEY_ID_IN_DETAILS) -- volumes show
  ``encryption_key_id`` when they have a key; no key manager here, so
  the field never appears.
* 3.65 (USE_QUOTA) -- volumes show ``consumes_quota`` (always true: no
  temporary volumes here); volume lists accept a ``consumes_quota``
  filter (a boolean). Snapshots show ``consumes_quota`` (true) and
  their lists accept it as a filter.
* 3.66 (SNAPSHOT_IN_USE) -- an in-use volume is snapshotted without
  ``force`` (below, ``force`` is needed); a false ``force`` is a 400, a
  true one is ignored.
* 3.67 (SUPPORT_PROJECT_ID_OPTIONAL) -- every
  ``/v3/{project_id}/...`` URL is also served as ``/v3/...`` (the
  project is the caller's). Both forms are routed at every version, as
  in Cinder; the short one is documented from 3.67.
* 3.68 (SUPPORT_REIMAGE_VOLUME) -- ``os-reimage`` needs an image service:
  not served, nothing changes (the action is a 400, unknown).
* 3.69 (SHARED_TARGETS_TRISTATE) -- ``shared_targets`` may be null
  (forced locking); below, a null shows as true. Backends here always
  say true or false.
* 3.70 (TRANSFER_ENCRYPTED_VOLUME) -- an encrypted volume may be
  transferred (below, a 400).
* 3.71 (EXTEND_VOLUME_COMPLETION) -- the ``os-extend_volume_completion``
  volume action (admins and services), with which a compute service
  finishes an online extend that Cinder left waiting for it. cinder_ma's
  backends extend attached volumes themselves and never wait, so the
  action always answers 400 ("not being extended"), as Cinder does for a
  volume that is not waiting.

cinder_ma's own additions are not on this line: they are extensions
(:mod:`cinder_ma.api.extensions`), listed by
``GET /v3/{project_id}/extensions``.
"""

import re

import microversion_parse

from cinder_ma import exception

BASE_VERSION = '3.0'
VOLUME_LIST_BOOTABLE = '3.2'
MESSAGES = '3.3'
MESSAGES_PAGINATION = '3.5'
CLUSTER_SUPPORT = '3.7'
GROUP_TYPE = '3.11'
VOLUME_SUMMARY = '3.12'
GROUP_VOLUME = '3.13'
GROUP_SNAPSHOTS = '3.14'
ETAGS = '3.15'
VOLUME_DETAIL_PROVIDER_ID = '3.21'
SNAPSHOT_LIST_METADATA_FILTER = '3.22'
VOLUME_DELETE_FORCE = '3.23'
NEW_ATTACH = '3.27'
SNAPSHOT_SORT = '3.30'
RESOURCE_FILTER = '3.31'
LIKE_FILTER = '3.34'
VOLUME_SUMMARY_METADATA = '3.36'
LIMITS_ADMIN_FILTER = '3.39'
VOLUME_REVERT = '3.40'
SNAPSHOT_LIST_USER_ID = '3.41'
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
TRANSFER_WITH_SNAPSHOTS = '3.55'
BACKUP_PROJECT_USER_ID = '3.56'
TRANSFER_WITH_HISTORY = '3.57'
GROUP_GROUPSNAPSHOT_PROJECT_ID = '3.58'
SUPPORT_TRANSFER_PAGINATION = '3.59'
VOLUME_TIME_COMPARISON_FILTER = '3.60'
VOLUME_CLUSTER_NAME = '3.61'
DEFAULT_TYPE_OVERRIDES = '3.62'
VOLUME_TYPE_ID_IN_VOLUME_DETAIL = '3.63'
ENCRYPTION_KEY_ID_IN_DETAILS = '3.64'
USE_QUOTA = '3.65'
SNAPSHOT_IN_USE = '3.66'
SUPPORT_PROJECT_ID_OPTIONAL = '3.67'
SUPPORT_REIMAGE_VOLUME = '3.68'
SHARED_TARGETS_TRISTATE = '3.69'
TRANSFER_ENCRYPTED_VOLUME = '3.70'
EXTEND_VOLUME_COMPLETION = '3.71'

MIN_VERSION = BASE_VERSION
# Cinder 29's maximum.
MAX_VERSION = EXTEND_VOLUME_COMPLETION

# When MAX_VERSION last changed; the version documents show it.
UPDATED = '2026-11-22T00:00:00Z'

HEADER = 'OpenStack-API-Version'
SERVICE_TYPE = 'volume'
LATEST = 'latest'

# ASCII digits, a few of them: int() of thousands of digits is slow (and
# refused past 4300), and \d would take any script's digits.
_VERSION_RE = re.compile(r'^([1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})$')


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
            raise InvalidAPIVersionString(version=exception.cut(version))
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


def from_headers(headers):
    """The APIVersionRequest of a request's headers.

    :param headers: the request's headers: a webob ``EnvironHeaders``
        (case-insensitive), or a dict keyed by :data:`HEADER`.
    :raises InvalidAPIVersionString: malformed version (400).
    :raises InvalidGlobalAPIVersion: outside [MIN_VERSION, MAX_VERSION]
        (406).
    """
    # microversion_parse reads the header, which may name several
    # services (``compute 2.60, volume 3.50``); the version is ours to
    # check. It is given that one header alone: it would otherwise fold
    # every header of the request, which costs more than the rest of the
    # negotiation. (WSGI has already joined a repeated header with
    # commas, as microversion_parse would.)
    value = headers.get(HEADER)
    requested = microversion_parse.get_version(
        {} if value is None else {HEADER: value}, SERVICE_TYPE)
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
