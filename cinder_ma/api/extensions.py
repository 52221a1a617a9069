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
    updated='2026-11-27T00:00:00+00:00',
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

AUDIT = Extension(
    alias='cinder-ma-audit',
    name='AttachmentAudit',
    description=(
        'The results of cinder-ma-manage attachment audit, which compares '
        'every live attachment with its backend\'s connections and its '
        'host\'s disks: GET /v3/{project_id}/cinder-ma-audits '
        '(administrators) lists the recorded runs, newest first, each with '
        'when and on which host it ran, how many hosts it audited and its '
        'findings (kind, id, host, problem); the newest twenty are kept.'),
    updated='2026-11-27T00:00:00+00:00',
    min_version=mv.BASE_VERSION)

EXTENSIONS = (MANAGER_ATTACH, MULTIATTACH, RECOVERY, WRITERS, FENCING,
              AUDIT)


def _cinder(name, alias, updated, description):
    return Extension(alias=alias, name=name, description=description,
                     updated=updated, min_version=mv.BASE_VERSION)


#: Cinder's own extensions (its ``cinder/api/contrib``) that cinder_ma
#: serves, listed with Cinder's names, aliases and dates: clients look
#: for them by name (Horizon shows the availability zone of a new volume
#: only with ``AvailabilityZones``, volume type encryption only with
#: ``VolumeTypeEncryption``, its services panel only with ``Services``).
#: Those cinder_ma does not serve (``Backups``, ``VolumeTransfer``,
#: ``SnapshotActions``, ``VolumeManage``...) are not listed. Their fields
#: and actions are Cinder's, without a ``Cinder-MA-Extensions`` header.
CINDER_EXTENSIONS = (
    _cinder('AdminActions', 'os-admin-actions', '2012-08-25T00:00:00+00:00',
            'Administrator actions on volumes: os-reset_status, '
            'os-force_delete, os-force_detach.'),
    _cinder('AvailabilityZones', 'os-availability-zone',
            '2013-06-27T00:00:00+00:00',
            'The availability zones of the storage backends.'),
    _cinder('Capabilities', 'capabilities', '2015-08-31T00:00:00+00:00',
            'The capabilities of a storage backend.'),
    _cinder('ExtendedServices', 'os-extended-services',
            '2014-01-10T00:00:00-00:00',
            'Services disabled with a reason (disable-log-reason).'),
    _cinder('Hosts', 'os-hosts', '2011-06-29T00:00:00+00:00',
            'The storage hosts and what their volumes use.'),
    _cinder('Qos_specs_manage', 'qos-specs', '2013-08-02T00:00:00+00:00',
            'QoS specs and their association with volume types.'),
    _cinder('QuotaClasses', 'os-quota-class-sets',
            '2012-03-12T00:00:00+00:00', 'Default quotas.'),
    _cinder('Quotas', 'os-quota-sets', '2011-08-08T00:00:00+00:00',
            'Quotas of projects.'),
    _cinder('Scheduler_stats', 'scheduler-stats',
            '2014-09-07T00:00:00+00:00',
            'The pools of the storage backends and their capacity.'),
    _cinder('Services', 'os-services', '2012-10-28T00:00:00-00:00',
            'The services (managers) and their state.'),
    _cinder('TypesExtraSpecs', 'os-types-extra-specs',
            '2011-08-24T00:00:00+00:00', 'Extra specs of volume types.'),
    _cinder('TypesManage', 'os-types-manage', '2011-08-24T00:00:00+00:00',
            'Creating, updating and deleting volume types.'),
    _cinder('UsedLimits', 'os-used-limits', '2013-10-03T00:00:00+00:00',
            'What a project uses of its limits.'),
    _cinder('VolumeActions', 'os-volume-actions',
            '2012-05-31T00:00:00+00:00',
            'Actions on volumes: attaching and detaching (legacy), '
            'os-extend, os-set_bootable, os-retype, '
            'os-update_readonly_flag.'),
    _cinder('VolumeEncryptionMetadata', 'os-volume-encryption-metadata',
            '2013-07-10T00:00:00+00:00',
            'The encryption metadata of a volume (its type\'s '
            'encryption).'),
    _cinder('VolumeHostAttribute', 'os-vol-host-attr',
            '2011-11-03T00:00:00+00:00',
            'The host of a volume, shown to administrators.'),
    _cinder('VolumeMigStatusAttribute', 'os-vol-mig-status-attr',
            '2013-08-08T00:00:00+00:00',
            'The migration status of a volume, shown to administrators '
            '(always null: no migration here).'),
    _cinder('VolumeTenantAttribute', 'os-vol-tenant-attr',
            '2011-11-03T00:00:00+00:00', 'The project of a volume.'),
    _cinder('VolumeTypeAccess', 'os-volume-type-access',
            '2014-06-26T00:00:00Z', 'Access of projects to private volume '
            'types.'),
    _cinder('VolumeTypeEncryption', 'encryption',
            '2013-07-01T00:00:00+00:00', 'Encryption of volume types.'),
)

#: What ``GET /v3/{project_id}/extensions`` lists: Cinder's, then
#: cinder_ma's own.
LISTED = CINDER_EXTENSIONS + EXTENSIONS

_BY_ALIAS = {ext.alias: ext for ext in LISTED}
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
