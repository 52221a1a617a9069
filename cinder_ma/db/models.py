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

"""SQLAlchemy models of cinder_ma's tables (see DESIGN.md, Data model).

The alembic migrations under ``migrations/`` create exactly this schema; a
functional test compares the two on every supported database.
"""

from oslo_db.sqlalchemy import models
from oslo_utils import timeutils
import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy import orm

BASE = orm.declarative_base()

#: A time to the microsecond on every database.
PRECISE_TIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


class CinderMABase(models.TimestampMixin, models.ModelBase):
    """Timestamps and soft-delete columns shared by every table."""

    deleted_at = sa.Column(sa.DateTime, nullable=True)
    deleted = sa.Column(sa.Boolean, nullable=False, default=False,
                        server_default=sa.false())


class SoftDeleteKeyMixin:
    """A ``deleted_key`` for soft-delete-aware unique constraints: ``'0'``
    while the row is live, its id once deleted (see
    :func:`cinder_ma.db.api.deleted_values`), so that live rows are unique
    and deleted ones never collide (as oslo.db's ``deleted = id``)."""

    deleted_key = sa.Column(sa.String(36), nullable=False, default='0',
                            server_default='0')



#: The extra spec of a shareable type's writer policy ('one' or 'many').
WRITERS_SPEC = 'multiattach:writers'


class VolumeType(BASE, CinderMABase, SoftDeleteKeyMixin):
    __tablename__ = 'volume_types'
    __table_args__ = (
        sa.Index('volume_types_name_idx', 'name'),
        sa.Index('volume_types_name_uniq', 'name', 'deleted_key',
                 unique=True),
    )

    id = sa.Column(sa.String(36), primary_key=True)
    name = sa.Column(sa.String(255), nullable=False)
    description = sa.Column(sa.String(255))
    is_public = sa.Column(sa.Boolean, nullable=False, default=True,
                          server_default=sa.true())
    # QoS specs of the type (no foreign key: see migration 0005).
    qos_specs_id = sa.Column(sa.String(36))

    extra_specs = orm.relationship(
        'VolumeTypeExtraSpecs', lazy='selectin',
        primaryjoin='and_(VolumeTypeExtraSpecs.volume_type_id == '
                    'VolumeType.id, VolumeTypeExtraSpecs.deleted == False)',
        viewonly=True)
    projects = orm.relationship(
        'VolumeTypeProjects', lazy='selectin',
        primaryjoin='and_(VolumeTypeProjects.volume_type_id == '
                    'VolumeType.id, VolumeTypeProjects.deleted == False)',
        viewonly=True)
    encryption = orm.relationship(
        'Encryption', lazy='selectin', uselist=False,
        primaryjoin='and_(Encryption.volume_type_id == VolumeType.id, '
                    'Encryption.deleted == False)',
        viewonly=True)


class QualityOfServiceSpecs(BASE, CinderMABase):
    """QoS specs, as Cinder keeps them: one root row per specs (``key``
    :data:`QOS_NAME_KEY`, ``value`` the name, ``specs_id`` null) and one
    row per key of the specs (``specs_id`` the root's id), ``consumer``
    among them.
    """

    __tablename__ = 'quality_of_service_specs'
    __table_args__ = (
        sa.Index('quality_of_service_specs_specs_id_idx', 'specs_id'),
    )

    id = sa.Column(sa.String(36), primary_key=True)
    specs_id = sa.Column(sa.String(36),
                         sa.ForeignKey('quality_of_service_specs.id'))
    key = sa.Column(sa.String(255))
    value = sa.Column(sa.String(255))


#: The key of a QoS specs' root row, whose value is the specs' name.
QOS_NAME_KEY = 'QoS_Specs_Name'


class VolumeTypeExtraSpecs(BASE, CinderMABase, SoftDeleteKeyMixin):
    __tablename__ = 'volume_type_extra_specs'
    __table_args__ = (
        sa.Index('volume_type_extra_specs_type_key_idx',
                 'volume_type_id', 'key'),
        sa.Index('volume_type_extra_specs_key_uniq', 'volume_type_id',
                 'key', 'deleted_key', unique=True),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    volume_type_id = sa.Column(sa.String(36),
                               sa.ForeignKey('volume_types.id'),
                               nullable=False)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255))


class VolumeTypeProjects(BASE, CinderMABase, SoftDeleteKeyMixin):
    """Projects that may use a private volume type."""

    __tablename__ = 'volume_type_projects'
    __table_args__ = (
        sa.Index('volume_type_projects_type_project_idx',
                 'volume_type_id', 'project_id'),
        sa.Index('volume_type_projects_project_uniq', 'volume_type_id',
                 'project_id', 'deleted_key', unique=True),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    volume_type_id = sa.Column(sa.String(36),
                               sa.ForeignKey('volume_types.id'),
                               nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)


class Encryption(BASE, CinderMABase):
    """Encryption of the volumes of a volume type (as in Cinder)."""

    __tablename__ = 'encryption'
    __table_args__ = (
        sa.Index('encryption_volume_type_id_idx', 'volume_type_id'),
    )

    encryption_id = sa.Column(sa.String(36), primary_key=True)
    volume_type_id = sa.Column(sa.String(36),
                               sa.ForeignKey('volume_types.id'),
                               nullable=False)
    provider = sa.Column(sa.String(255), nullable=False)
    cipher = sa.Column(sa.String(255))
    key_size = sa.Column(sa.Integer)
    control_location = sa.Column(sa.String(255), nullable=False)


class Volume(BASE, CinderMABase):
    __tablename__ = 'volumes'
    __table_args__ = (
        # Lists: a project's volumes, newest first.
        sa.Index('volumes_project_created_idx', 'project_id', 'deleted',
                 'created_at', 'id'),
        sa.Index('volumes_host_idx', 'host'),
        # The reconcile loop looks for volumes in transient statuses.
        sa.Index('volumes_status_idx', 'status'),
    )

    id = sa.Column(sa.String(36), primary_key=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255))
    name = sa.Column(sa.String(255))
    description = sa.Column(sa.String(255))
    size = sa.Column(sa.Integer, nullable=False)
    status = sa.Column(sa.String(255), nullable=False)
    error_reason = sa.Column(sa.Text)
    host = sa.Column(sa.String(255))
    availability_zone = sa.Column(sa.String(255))
    volume_type_id = sa.Column(sa.String(36),
                               sa.ForeignKey('volume_types.id'),
                               nullable=False)
    multiattach = sa.Column(sa.Boolean, nullable=False, default=False,
                            server_default=sa.false())
    bootable = sa.Column(sa.Boolean, nullable=False, default=False,
                         server_default=sa.false())
    encrypted = sa.Column(sa.Boolean, nullable=False, default=False,
                          server_default=sa.false())
    shared_targets = sa.Column(sa.Boolean, nullable=False, default=False,
                               server_default=sa.false())
    service_uuid = sa.Column(sa.String(36))
    # os-update_readonly_flag: every attachment is 'ro'.
    readonly = sa.Column(sa.Boolean, nullable=False, default=False,
                         server_default=sa.false())
    # Live attachments (reserved up to error_detaching) and, for a volume
    # that is not shareable, the one instance holding them: the columns the
    # reservation compare-and-swap tests (see
    # db.attachments.attachment_reserve).
    attach_count = sa.Column(sa.Integer, nullable=False, default=0,
                             server_default='0')
    reserved_instance_uuid = sa.Column(sa.String(36))
    # The process running the volume's transient status (creating,
    # deleting, extending) and until when its claim holds unless renewed
    # (see cinder_ma.db.work); the size an extend grows it to.
    claimed_by = sa.Column(sa.String(80))
    claimed_until = sa.Column(sa.DateTime)
    target_size = sa.Column(sa.Integer)
    # What the volume was made from: a snapshot or another volume (None:
    # an empty volume).
    snapshot_id = sa.Column(sa.String(36))
    source_volid = sa.Column(sa.String(36))

    volume_type = orm.relationship(VolumeType, lazy='joined',
                                   viewonly=True)
    volume_metadata = orm.relationship(
        'VolumeMetadata', lazy='selectin',
        primaryjoin='and_(VolumeMetadata.volume_id == Volume.id, '
                    'VolumeMetadata.deleted == False)',
        viewonly=True)
    volume_attachment = orm.relationship(
        'VolumeAttachment', lazy='selectin',
        primaryjoin='and_(VolumeAttachment.volume_id == Volume.id, '
                    'VolumeAttachment.deleted == False)',
        order_by='VolumeAttachment.created_at',
        viewonly=True)


class VolumeMetadata(BASE, CinderMABase):
    __tablename__ = 'volume_metadata'
    __table_args__ = (
        sa.Index('volume_metadata_volume_id_idx', 'volume_id', 'key'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    volume_id = sa.Column(sa.String(36), sa.ForeignKey('volumes.id'),
                          nullable=False)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255))


class VolumeAttachment(BASE, CinderMABase):
    __tablename__ = 'volume_attachment'
    __table_args__ = (
        sa.Index('volume_attachment_volume_order_idx', 'volume_id',
                 'deleted', 'created_at'),
        sa.Index('volume_attachment_instance_idx', 'instance_uuid'),
        sa.Index('volume_attachment_status_idx', 'attach_status'),
    )

    id = sa.Column(sa.String(36), primary_key=True)
    volume_id = sa.Column(sa.String(36), sa.ForeignKey('volumes.id'),
                          nullable=False)
    instance_uuid = sa.Column(sa.String(36))
    attached_host = sa.Column(sa.String(255))
    # Host whose cinder_ma manager runs the attach and detach flows of
    # this attachment; None when an external consumer drives it.
    manager_host = sa.Column(sa.String(255))
    mountpoint = sa.Column(sa.String(255))
    connector = sa.Column(sa.Text)
    connection_info = sa.Column(sa.Text)
    attach_mode = sa.Column(sa.String(2), nullable=False, default='rw',
                            server_default='rw')
    attach_status = sa.Column(sa.String(255), nullable=False)
    attach_time = sa.Column(sa.DateTime)
    detach_time = sa.Column(sa.DateTime)
    # As on volumes: the claim on in-flight work, and why the last step
    # failed (shown to administrators).
    claimed_by = sa.Column(sa.String(80))
    claimed_until = sa.Column(sa.DateTime)
    error_reason = sa.Column(sa.Text)
    # Fencing (cinder-ma-fencing): the connections the attachment was
    # given (1 for the first, one more at each reconnection or
    # promotion), and when its access was revoked (None: not fenced).
    generation = sa.Column(sa.Integer, nullable=False, default=1,
                           server_default='1')
    fenced_at = sa.Column(sa.DateTime)
    # When its consumer said it began detaching it (os-begin_detaching);
    # None otherwise. It stays 'attached' meanwhile (as in Cinder) and
    # counts as 'detaching' for its volume's status (cinder_ma.status).
    detach_begun_at = sa.Column(sa.DateTime)
    # The flow a manager runs on a consumer's attachment under its claim
    # (JSON: ``op`` and what its recovery needs), written with the claim
    # and cleared with its release; the reconcile loop finishes or
    # reverts it when the claim expires (cinder_ma.manager.reconcile).
    pending_work = sa.Column(sa.Text)


class Snapshot(BASE, CinderMABase):
    """A point-in-time copy of a volume, on the volume's backend."""

    __tablename__ = 'snapshots'
    __table_args__ = (
        # Lists: a project's snapshots, newest first.
        sa.Index('snapshots_project_created_idx', 'project_id', 'deleted',
                 'created_at', 'id'),
        # A volume's snapshots (delete refusal, cascade, revert).
        sa.Index('snapshots_volume_idx', 'volume_id', 'deleted',
                 'created_at'),
        # The reconcile loop looks for snapshots in transient statuses.
        sa.Index('snapshots_status_idx', 'status'),
    )

    # To the microsecond on MariaDB too (whose DATETIME keeps seconds):
    # a volume reverts to its latest snapshot, found by this order.
    created_at = sa.Column(PRECISE_TIME, default=timeutils.utcnow)
    id = sa.Column(sa.String(36), primary_key=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255))
    volume_id = sa.Column(sa.String(36), sa.ForeignKey('volumes.id'),
                          nullable=False)
    # The volume's type and size when the snapshot was taken (quotas,
    # and the type of a volume made from it).
    volume_type_id = sa.Column(sa.String(36), nullable=False)
    volume_size = sa.Column(sa.Integer, nullable=False)
    name = sa.Column(sa.String(255))
    description = sa.Column(sa.String(255))
    status = sa.Column(sa.String(255), nullable=False)
    progress = sa.Column(sa.String(255))
    error_reason = sa.Column(sa.Text)
    # As on volumes: the claim on in-flight work (see db.work).
    claimed_by = sa.Column(sa.String(80))
    claimed_until = sa.Column(sa.DateTime)


class SnapshotMetadata(BASE, CinderMABase):
    __tablename__ = 'snapshot_metadata'
    __table_args__ = (
        sa.Index('snapshot_metadata_snapshot_id_idx', 'snapshot_id', 'key'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    snapshot_id = sa.Column(sa.String(36), sa.ForeignKey('snapshots.id'),
                            nullable=False)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255))


class Service(BASE, CinderMABase):
    __tablename__ = 'services'
    __table_args__ = (
        sa.Index('services_host_binary_idx', 'host', 'binary'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    host = sa.Column(sa.String(255), nullable=False)
    binary = sa.Column(sa.String(255), nullable=False)
    topic = sa.Column(sa.String(255), nullable=False)
    availability_zone = sa.Column(sa.String(255))
    disabled = sa.Column(sa.Boolean, nullable=False, default=False,
                         server_default=sa.false())
    disabled_reason = sa.Column(sa.String(255))
    # Frozen (os-services/freeze): the backend refuses changes to its
    # volumes until it is thawed.
    frozen = sa.Column(sa.Boolean, nullable=False, default=False,
                       server_default=sa.false())
    heartbeat_at = sa.Column(sa.DateTime)
    capabilities = sa.Column(sa.Text)


class _QuotaBase(models.TimestampMixin, models.ModelBase):
    """Quota rows are replaced or deleted, never soft-deleted."""


class Quota(BASE, _QuotaBase):
    """A project's own limit of a resource (overrides its class)."""

    __tablename__ = 'quotas'
    __table_args__ = (
        sa.UniqueConstraint('project_id', 'resource',
                            name='uniq_quotas0project_id0resource'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    # 'volumes', 'gigabytes', ... or 'volumes:<type id>' for a type's.
    resource = sa.Column(sa.String(300), nullable=False)
    hard_limit = sa.Column(sa.Integer, nullable=False)


class QuotaClass(BASE, _QuotaBase):
    """The limit of a resource in a quota class ('default': every
    project's)."""

    __tablename__ = 'quota_classes'
    __table_args__ = (
        sa.UniqueConstraint('class_name', 'resource',
                            name='uniq_quota_classes0class_name0resource'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    class_name = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(300), nullable=False)
    hard_limit = sa.Column(sa.Integer, nullable=False)


class QuotaUsage(BASE, _QuotaBase):
    """What a project uses of a resource: a counter changed by a
    compare-and-swap in the transaction of every change of its volumes
    (see db.quotas)."""

    __tablename__ = 'quota_usages'
    __table_args__ = (
        sa.UniqueConstraint('project_id', 'resource',
                            name='uniq_quota_usages0project_id0resource'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(300), nullable=False)
    in_use = sa.Column(sa.Integer, nullable=False, default=0,
                       server_default='0')


class Message(BASE, CinderMABase):
    """A user message (Cinder's ``messages``): an asynchronous failure
    told to the project it happened to, as ids (see
    :mod:`cinder_ma.message_field`), kept until ``expires_at`` at least
    (its ``guaranteed_until``)."""

    __tablename__ = 'messages'
    __table_args__ = (
        # Lists: a project's messages, newest first.
        sa.Index('messages_project_created_idx', 'project_id', 'deleted',
                 'created_at', 'id'),
        # The purge of expired messages.
        sa.Index('messages_expires_at_idx', 'expires_at'),
    )

    id = sa.Column(sa.String(36), primary_key=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    request_id = sa.Column(sa.String(255))
    resource_type = sa.Column(sa.String(36))
    resource_uuid = sa.Column(sa.String(255))
    event_id = sa.Column(sa.String(255), nullable=False)
    action_id = sa.Column(sa.String(10))
    detail_id = sa.Column(sa.String(10))
    message_level = sa.Column(sa.String(255), nullable=False)
    expires_at = sa.Column(sa.DateTime)


class Transfer(BASE, CinderMABase):
    """A volume transfer (Cinder's ``transfers``): an offer of a volume to
    whoever presents its authorization key, stored salted and hashed
    (``salt``, ``crypt_hash``), never in clear."""

    __tablename__ = 'transfers'
    __table_args__ = (
        sa.Index('transfers_volume_id_idx', 'volume_id'),
        sa.Index('transfers_project_created_idx', 'source_project_id',
                 'deleted', 'created_at', 'id'),
    )

    id = sa.Column(sa.String(36), primary_key=True)
    volume_id = sa.Column(sa.String(36), sa.ForeignKey('volumes.id'),
                          nullable=False)
    display_name = sa.Column(sa.String(255))
    salt = sa.Column(sa.String(255))
    crypt_hash = sa.Column(sa.String(255))
    expires_at = sa.Column(sa.DateTime)
    no_snapshots = sa.Column(sa.Boolean, nullable=False, default=False,
                             server_default=sa.false())
    source_project_id = sa.Column(sa.String(255))
    destination_project_id = sa.Column(sa.String(255))
    accepted = sa.Column(sa.Boolean, nullable=False, default=False,
                         server_default=sa.false())


class AttachmentAudit(BASE, CinderMABase):
    """A run of ``cinder-ma-manage attachment audit``: when, on which
    host, how many hosts it audited and what it found (``findings``: a
    JSON list of ``[kind, id, host, problem]``, as the command prints
    them). Only the newest runs are kept
    (:data:`cinder_ma.db.audits.KEEP`)."""

    __tablename__ = 'attachment_audits'
    __table_args__ = (
        sa.Index('attachment_audits_created_idx', 'created_at', 'id'),
    )

    id = sa.Column(sa.String(36), primary_key=True)
    host = sa.Column(sa.String(255), nullable=False)
    hosts_audited = sa.Column(sa.Integer, nullable=False, default=0)
    findings_count = sa.Column(sa.Integer, nullable=False, default=0)
    findings = sa.Column(sa.Text, nullable=False)
