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

"""cinder_ma's own additions to Cinder's API: extensions.

Cinder's microversion line is Cinder's (:mod:`cinder_ma.api.microversions`):
a number there means what it means in Cinder. What cinder_ma adds beyond
Cinder is an *extension*, as Cinder's own optional parts once were
(``os-vol-tenant-attr``...): listed by ``GET /v3/{project_id}/extensions``
with its name, alias, description and the date it last changed, and
recognisable on the wire because every field and action it adds carries
its alias as a prefix (``cinder-ma-manager-attach:instance_host``).

The convention, for these and the extensions to come (the writer policy
``multiattach:writers``, fencing with generations, standby promotion):

* An extension builds on a Cinder microversion (``min_version``): its
  request fields and actions are accepted from that version on, and are a
  400 below it (the schemas of the lower ranges do not know them).
* Request fields and actions are named ``<alias>:<name>``; they never
  change the meaning of a Cinder field.
* Response fields of an extension never appear in Cinder's shapes unless
  the request asks for the extension: the header ``Cinder-MA-Extensions``
  lists the aliases a client understands (comma separated). A client that
  does not send it (python-cinderclient, Tempest, Nova) gets exactly
  Cinder's shape, which Tempest checks with ``additionalProperties:
  false``.
* A new extension comes with its entry in :data:`EXTENSIONS`, its api-ref
  page (``api-ref/source/extensions.inc``), a release note and, when it
  changes, a new ``updated`` date. An incompatible change is a new alias.
"""

import collections

from cinder_ma.api import microversions as mv

HEADER = 'Cinder-MA-Extensions'

Extension = collections.namedtuple(
    'Extension', ('alias', 'name', 'description', 'updated', 'min_version'))

MANAGER_ATTACH = Extension(
    alias='cinder-ma-manager-attach',
    name='ManagerAttach',
    description=(
        'Attach through a cinder_ma manager: attachment create takes '
        'cinder-ma-manager-attach:instance_host (with instance_uuid, not '
        'with connector), a host run by a cinder_ma manager, whose attach '
        'flow connects the volume and attaches it to the instance '
        'asynchronously; deleting the attachment detaches it the same '
        'way.'),
    updated='2026-11-22T00:00:00+00:00',
    min_version=mv.ATTACHMENT_CREATE_MODE_ARG)

MULTIATTACH = Extension(
    alias='cinder-ma-multiattach',
    name='MultiattachDetails',
    description=(
        'Details of shareable volumes: os-begin_detaching and '
        'os-roll_detaching act on the volume as in Cinder, and take '
        'cinder-ma-multiattach:attachment_id to narrow them to one of its '
        'attachments (optional: without it, os-begin_detaching marks the '
        'only attached attachment, or none of several, and '
        'os-roll_detaching rolls back every mark); with the request '
        'header Cinder-MA-Extensions naming this alias, the attachments of '
        'a volume show cinder-ma-multiattach:attach_mode.'),
    updated='2026-11-22T00:00:00+00:00',
    min_version=mv.MULTIATTACH_VOLUMES)

RECOVERY = Extension(
    alias='cinder-ma-recovery',
    name='FailureReasons',
    description=(
        'Why the last operation of a volume or an attachment failed: with '
        'the request header Cinder-MA-Extensions naming this alias, '
        'administrators see cinder-ma-recovery:failure_reason in volume '
        'and attachment details (null when nothing failed; see the '
        'operations guide).'),
    updated='2026-11-22T00:00:00+00:00',
    min_version=mv.BASE_VERSION)

WRITERS = Extension(
    alias='cinder-ma-writers',
    name='WriterPolicy',
    description=(
        'One-writer shareable volumes: a volume type with the extra spec '
        'multiattach:writers = one takes any number of read-only '
        'attachments and at most one read-write attachment at a time (a '
        'second is a 409 naming the writer); with the request header '
        'Cinder-MA-Extensions naming this alias, shareable volumes show '
        'cinder-ma-writers:writers (one or many).'),
    updated='2026-11-22T00:00:00+00:00',
    min_version=mv.BASE_VERSION)

FENCING = Extension(
    alias='cinder-ma-fencing',
    name='Fencing',
    description=(
        'Fencing and standby promotion of attachments whose backend makes '
        'connections per attachment: the attachment actions '
        'cinder-ma-fencing:fence (an administrator or a service revokes '
        'the attachment\'s access at the target at once; it stays fenced '
        'until its consumer connects it again with a new connector, which '
        'gives it new credentials and the next generation, or it is '
        'deleted) and cinder-ma-fencing:promote (on a volume whose type '
        'has multiattach:writers = one, a read-only attachment becomes '
        'the writer in one transaction: the writer is fenced and turned '
        'read-only, its access revoked before the new read-write '
        'connection exists; attachments made through a manager keep '
        'their disk). Both answer the attachment with '
        'cinder-ma-fencing:fenced and cinder-ma-fencing:generation, which '
        'attachment details show too when the request header '
        'Cinder-MA-Extensions names this alias.'),
    updated='2026-11-22T00:00:00+00:00',
    min_version=mv.NEW_ATTACH_COMPLETION)

EXTENSIONS = (MANAGER_ATTACH, MULTIATTACH, RECOVERY, WRITERS, FENCING)

_BY_ALIAS = {ext.alias: ext for ext in EXTENSIONS}
_ASKED = 'cinder_ma.extensions'


def field(extension, name):
    """The wire name of an extension's field or action."""
    return '%s:%s' % (extension.alias, name)


def get(alias):
    """The extension of an alias, or None."""
    return _BY_ALIAS.get(alias)


def available(req, extension):
    """Whether the request's microversion serves the extension."""
    return req.api_version.matches(extension.min_version)


def asked(req, extension):
    """Whether the response may carry the extension's fields: the request
    names it in :data:`HEADER` and its microversion serves it."""
    if _ASKED not in req.environ:
        value = req.headers.get(HEADER, '')
        req.environ[_ASKED] = frozenset(
            alias.strip() for alias in value.split(',') if alias.strip())
    return (extension.alias in req.environ[_ASKED] and
            available(req, extension))
