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

"""RPC endpoints of the manager: thin, each runs one flow or one driver
call.

A manager plays two roles, often in one process:

* for the volumes of its backends: create/delete (flows), and
  initialize/terminate connection (one driver call each, answered to the
  caller);
* for the instances of its host: the attach and detach flows, which call
  the manager of the volume's backend for the backend side.

A volume endpoint loads the volume, finds the backend of this node that
holds it, and runs the operation's flow with the volume as a frozen
VolumeRef; an attachment endpoint loads the attachment and runs its flow.
The flows record failures on the volume or attachment; the exception still
propagates so that the RPC server logs it (at debug level for the expected
ones below).
"""

import contextlib
import dataclasses
import functools
import threading
import time

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import fencing as fencing_db
from cinder_ma.db import messages as message_db
from cinder_ma.db import quotas as quota_db
from cinder_ma.db import snapshots as snapshot_db
from cinder_ma.db import volumes as volume_db
from cinder_ma.db import work as work_db
from cinder_ma import exception
from cinder_ma.manager import connector as host_connector
from cinder_ma.manager import consumers as consumer_endpoints
from cinder_ma.manager import flows
from cinder_ma.manager.flows import attach_volume as attach_flow
from cinder_ma.manager.flows import delete_volume as delete_flow
from cinder_ma.manager.flows import detach_volume as detach_flow
from cinder_ma.manager.flows import extend_volume as extend_flow
from cinder_ma.manager.flows import promote_attachment as promote_flow
from cinder_ma.manager.flows import rollback_attach as rollback_flow
from cinder_ma.manager import locks
from cinder_ma.manager import nova
from cinder_ma.manager import rpcapi
from cinder_ma.manager import snapshots as snapshot_endpoints
from cinder_ma.manager.tasks import volume as volume_tasks
from cinder_ma import message_field
from cinder_ma import notifications
from cinder_ma import status as vstatus
from cinder_ma.volume.drivers import base as driver_base
from cinder_ma.volume import qos_specs

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

#: Seconds a flow waits for the claim on its row of the flow before it to
#: be given up (see :meth:`Manager._claimed`), and how often it looks.
CLAIM_HANDOVER_WAIT = 5.0
CLAIM_HANDOVER_POLL = 0.05
#: How many report intervals (renewals) a claim handed over with its
#: records must still hold for a flow to adopt it without reading it
#: (see :meth:`Manager._adoptable`).
ADOPT_MARGIN = 1.5

#: Outcomes a caller can expect, not failures of the manager.
EXPECTED = (exception.VolumeNotFound, exception.VolumeAttachmentNotFound,
            exception.Conflict, exception.InvalidVolume,
            exception.InvalidInput, exception.DriverError,
            exception.SnapshotNotFound, exception.InvalidSnapshot)


@dataclasses.dataclass(frozen=True)
class Backend:
    """A storage backend run by this node's manager.

    :ivar name: the backend's config section (``host@<name>``).
    :ivar driver_name: entry point name of the driver.
    :ivar driver: the VolumeDriver instance.
    :ivar config: the backend's BackendConfig.
    :ivar host: ``node@name``.
    """

    name: str
    driver_name: str
    driver: driver_base.VolumeDriver
    config: object
    host: str


def volume_ref(volume, qos=None):
    """The VolumeRef drivers get for a volume row.

    :param qos: the back-end QoS specs of the volume's type, or None.
    """
    return driver_base.VolumeRef.for_volume(
        volume.id, volume.size, multiattach=volume.multiattach,
        host=volume.host, qos_specs=qos)


class Manager(snapshot_endpoints.SnapshotEndpoints,
              consumer_endpoints.ConsumerEndpoints):
    """The endpoints of ``cinder-ma-manager`` (RPC API version 1.x); those
    of snapshots are :class:`~cinder_ma.manager.snapshots.SnapshotEndpoints`'
    (1.7), those of consumers' attachments
    :class:`~cinder_ma.manager.consumers.ConsumerEndpoints`' (1.8)."""

    target = messaging.Target(version=rpcapi.ManagerAPI.RPC_API_VERSION)

    def __init__(self, host, backends, hypervisor=None, connectors=None,
                 worker_id=None):
        """:param backends: {section name: :class:`Backend`}.
        :param hypervisor: the host's hypervisor driver, or None.
        :param connectors: the host's
            :class:`~cinder_ma.manager.connector.Connectors` (by default
            the in-tree ones and those of installed packages).
        :param worker_id: the id this process claims work under (see
            :mod:`cinder_ma.db.work`); a fresh one by default.
        """
        self.host = host
        self.worker_id = worker_id or work_db.new_worker_id()
        self._active_claims = set()
        self._claims_lock = threading.Lock()
        self.backends = dict(backends)
        self.hypervisor = hypervisor
        self.connectors = connectors or host_connector.Connectors()
        # The flows' way to the backends: this node's own in-process,
        # the others' over RPC.
        self.manager_api = _LocalFirst(self, rpcapi.ManagerAPI())
        self.nova_api = nova.NovaAPI()

    def _backend(self, volume):
        node = rpcapi.server_for(volume.host) if volume.host else None
        backend = self.backends.get(rpcapi.backend_of(volume.host))
        if node != self.host or backend is None:
            raise exception.InvalidVolume(
                reason='volume %s is on %s, which is not a backend of the '
                       'manager of %s' % (volume.id, volume.host, self.host))
        return backend

    def _load(self, context, volume_id, expected_status, error_status):
        """The volume and its backend, or a reason it cannot proceed."""
        # The row alone: the flows need its columns, not its children.
        volume = volume_db.volume_get(context, volume_id, children=False)
        return volume, self._check_loaded(context, volume, expected_status,
                                          error_status)

    def _check_loaded(self, context, volume, expected_status, error_status):
        """The backend of a volume just read, or a reason it cannot
        proceed (recorded on the volume when it is not ours)."""
        volume_id = volume.id
        if volume.status != expected_status:
            raise exception.InvalidVolume(
                reason='volume %s is %s, not %s' % (
                    volume_id, volume.status, expected_status))
        try:
            return self._backend(volume)
        except exception.InvalidVolume as exc:
            LOG.error('%s', exc)
            try:
                volume_db.volume_update(
                    context, volume_id,
                    {'status': error_status, 'error_reason': str(exc)},
                    expected={'status': expected_status})
            except (exception.VolumeNotFound, exception.Conflict):
                pass
            raise

    # Claims on work

    @property
    def _lease(self):
        return CONF.manager.work_lease_time

    @contextlib.contextmanager
    def _claimed(self, context, kind, row_id, statuses, stale_before=None,
                 handover=None, pending=None, rows=None, adopt=False,
                 check=None, records=None):
        """Hold the claim on a volume's or attachment's work while the
        block runs, then give it up (see :func:`cinder_ma.db.work.claim`
        for ``handover`` and ``pending``).

        :param rows: (attachments) a list that gets the attachment and its
            volume, read in the transaction that claims it.
        :param adopt: (attachments) the claim ``handover`` was written with
            the request's own change (a delete's ``detaching``): this flow
            runs under it as it is, renewing it, without writing a claim.
        :param check: (attachments, claimed) ``check(attachment, volume)``
            in the claim's transaction; what it raises is raised, and
            nothing is claimed.
        :param records: (attachments, with ``handover``) the attachment
            and its volume as the caller read them with its claim
            ``handover``: the flow runs under that claim as it is, with
            those records, reading and writing nothing here, while the
            claim is valid for long enough (:meth:`_adoptable`);
            otherwise as without them.
        :raises Conflict: the row is not in ``statuses`` any more, or
            another flow holds it (a repeated or stale message).
        """
        owner = work_db.owner_token(self.worker_id)
        deadline = time.monotonic() + CLAIM_HANDOVER_WAIT
        options = {}
        if records is not None and self._adoptable(records[0], handover):
            owner = handover
            claim = None
            claimed = records
        elif rows is None:
            claim = work_db.claim
        elif adopt:
            owner = handover
            claim = attachment_db.attachment_adopt
        else:
            claim = attachment_db.attachment_claim
            options['check'] = check
        while claim is not None and not (
                claimed := claim(context, kind, row_id, owner, statuses,
                                 self._lease, stale_before=stale_before,
                                 handover=handover, pending=pending,
                                 **options)):
            # The flow before this one on the row (a create before a
            # delete, an attach before a detach) moves the row out of its
            # status, then gives its claim up in the next transaction: a
            # client that saw the new status may have asked for this in
            # between. Wait for that hand-over, briefly; a claim that
            # stays is another flow's, or a dead one's, which expires.
            _refuse_unless_held(context, kind, row_id, statuses)
            if stale_before is not None or time.monotonic() >= deadline:
                raise exception.Conflict(
                    reason='another flow works on %s %s' % (kind, row_id))
            time.sleep(CLAIM_HANDOVER_POLL)
        if rows is not None:
            rows.extend(claimed)
        with self._claims_lock:
            if owner == handover and owner in self._active_claims:
                # Adopted already by a flow of this process: a repeated
                # message.
                raise exception.Conflict(
                    reason='another flow works on %s %s' % (kind, row_id))
            self._active_claims.add(owner)
        try:
            yield owner
        finally:
            with self._claims_lock:
                held = owner in self._active_claims
                self._active_claims.discard(owner)
            try:
                if held:
                    work_db.release(context, kind, row_id, owner)
            except Exception:
                # It expires by itself.
                LOG.exception('Could not release the claim on %s %s',
                              kind, row_id)

    def _adoptable(self, attachment, handover):
        """Whether this flow may run under the claim ``handover`` that
        the API wrote with ``attachment`` (its record as written) without
        reading it again: the claim is the record's and stays valid for
        at least :data:`ADOPT_MARGIN` report intervals, by the clock that
        decides when it expires (this node's: only a manager serving the
        volume's backend, here, takes a claim of its attachments over),
        long enough for this process's next renewal of it. A message that
        waited longer is served as one without records."""
        until = attachment.claimed_until
        if handover is None or attachment.claimed_by != handover or \
                until is None:
            return False
        remaining = (until - db_api.utcnow()).total_seconds()
        return remaining > ADOPT_MARGIN * CONF.manager.report_interval

    def _claim_given_up(self, owner):
        """The flow running under claim ``owner`` gave it up itself, in
        its last write (see :meth:`_claimed`, which then need not)."""
        with self._claims_lock:
            self._active_claims.discard(owner)

    def _running_claims(self):
        """The claims of the flows running in this process."""
        with self._claims_lock:
            return set(self._active_claims)

    def _can_serve_volume(self, host):
        """Whether ``host`` (``node@backend#pool``) is a backend of this
        manager."""
        return bool(host) and rpcapi.server_for(host) == self.host and \
            rpcapi.backend_of(host) in self.backends

    @messaging.expected_exceptions(*EXPECTED)
    def create_volume(self, context, volume_id):
        """Create a volume recorded as 'creating' on this node."""
        with self._claimed(context, 'volume', volume_id,
                           (vstatus.CREATING,)) as owner:
            self._create_volume(context, volume_id, owner)

    def _create_volume(self, context, volume_id, owner, clean_first=False):
        """:param owner: the claim the flow runs under, which its last
            status change gives up.
        :param clean_first: delete what an interrupted run may have
            left of the storage first (idempotent)."""
        # The volume and the QoS specs of its type, in one transaction.
        with db_api.reading(context):
            volume = volume_db.volume_get(context, volume_id, children=False)
            _front_end, back_end = qos_specs.for_volume(
                context, volume.volume_type_id, volume.size)
        backend = self._check_loaded(context, volume, vstatus.CREATING,
                                     vstatus.ERROR)
        if clean_first:
            backend.driver.delete_volume(volume_ref(volume))
        store = {'context': context, 'volume_id': volume_id,
                 'volume': volume_ref(volume, back_end), 'claim': owner}
        try:
            factory, source = self._source_of(context, volume, store)
        except (exception.SnapshotNotFound, exception.VolumeNotFound) as exc:
            # Its source is gone (deleted by an administrator's force):
            # nothing to make the volume from.
            LOG.error('Volume %s cannot be created: %s', volume_id, exc)
            volume_db.volume_change(
                context, volume_id,
                {'status': vstatus.ERROR,
                 'error_reason': 'its source is gone: %s' % exc},
                expected={'status': vstatus.CREATING})
            raise
        flows.run(factory, store, backend.driver)
        self._claim_given_up(owner)
        LOG.info('Created volume %s on %s%s', volume_id, volume.host,
                 source)

    @messaging.expected_exceptions(*EXPECTED)
    def delete_volume(self, context, volume_id):
        """Delete a volume recorded as 'deleting' on this node."""
        with self._claimed(context, 'volume', volume_id, (vstatus.DELETING,)):
            self._delete_volume(context, volume_id)

    def _delete_volume(self, context, volume_id):
        volume, backend = self._load(context, volume_id, vstatus.DELETING,
                                     vstatus.ERROR_DELETING)
        flows.run(delete_flow.get_flow,
                  {'context': context, 'volume_id': volume_id,
                   'volume': volume_ref(volume)}, backend.driver)
        LOG.info('Deleted volume %s from %s', volume_id, volume.host)

    @messaging.expected_exceptions(*EXPECTED)
    def extend_volume(self, context, volume_id, new_size):
        """Grow a volume recorded as 'extending' on this node (1.2)."""
        with self._claimed(context, 'volume', volume_id,
                          (vstatus.EXTENDING,)):
            self._extend_volume(context, volume_id, new_size)

    def _extend_volume(self, context, volume_id, new_size):
        volume = volume_db.volume_get(context, volume_id)
        if volume.status != vstatus.EXTENDING:
            raise exception.InvalidVolume(
                reason='volume %s is %s, not extending' % (volume_id,
                                                          volume.status))
        try:
            backend = self._backend(volume)
        except exception.InvalidVolume as exc:
            # Not ours: give the volume its status back rather than leave
            # it extending.
            LOG.error('%s', exc)
            attachment_db.volume_leave_status(
                context, volume_id, vstatus.EXTENDING,
                {'error_reason': 'extend failed: %s' % exc})
            # The API charged the project's quota for the new size.
            quota_db.release_extend(context, volume_id,
                                    new_size - volume.size)
            raise
        # The volume is 'extending': its attachments stay as they are.
        targets = volume_tasks.resize_targets(volume)
        results = flows.run_once(
            extend_flow.get_flow(backend.driver, targets),
            {'context': context, 'volume_id': volume_id,
             'volume': volume_ref(volume), 'new_size': new_size,
             'manager_api': self.manager_api, 'nova_api': self.nova_api},
            engine=flows.PARALLEL if len(targets) > 1 else flows.SERIAL)
        # Instances not resized by their manager or not told by Nova.
        not_resized = dict(results['not_resized'],
                           **results['nova_not_told'])
        if not_resized:
            LOG.warning('Extended volume %s to %s GiB; %d attachment(s) do '
                        'not see the new size: %s', volume_id, new_size,
                        len(not_resized), ', '.join(sorted(not_resized)))
            message_db.record(
                context, volume.project_id,
                message_field.Action.EXTEND_VOLUME, resource_uuid=volume_id,
                detail=message_field.Detail.NOTIFY_COMPUTE_SERVICE_FAILED)
        else:
            LOG.info('Extended volume %s to %s GiB', volume_id, new_size)
        notifications.notify_extend(context,
                                    volume_db.volume_get(context, volume_id),
                                    new_size, not_resized)

    # Connections (backend role)

    def _connection_backend(self, context, volume_id):
        volume = volume_db.volume_get(context, volume_id, children=False)
        return volume, self._backend(volume)

    @staticmethod
    def _driver_call(what, volume, func, *args):
        """``func(*args)``; unexpected errors become DriverError."""
        try:
            return func(*args)
        except exception.CinderMAException:
            raise
        except Exception as exc:
            LOG.exception('%s of volume %s failed', what, volume.id)
            raise exception.DriverError(
                reason='%s of volume %s failed: %s' % (what, volume.id,
                                                        exc)) from None

    @messaging.expected_exceptions(*EXPECTED)
    def initialize_connection(self, context, volume_id, connector,
                              attach_mode, attachment_id=None):
        """Connect a volume of this node to the host of ``connector``
        (see :meth:`connect_volume`), for another node's flow: logged at
        info level."""
        return self.connect_volume(context, volume_id, connector,
                                   attach_mode, attachment_id,
                                   log_level=logging.INFO)

    def connect_volume(self, context, volume_id, connector, attach_mode,
                       attachment_id=None, read=None,
                       log_level=logging.DEBUG):
        """Connect a volume of this node to the host of ``connector``;
        logged at ``log_level``: debug for this manager's own flows, which
        log their outcome, info when another node's flow asked
        (:meth:`initialize_connection`).

        :param attachment_id: (1.5) the attachment the connection is for:
            a driver with ``per_attachment_connections`` makes one for it
            alone (the connection info then says so, see
            :func:`cinder_ma.manager.rpcapi.is_attachment_scoped`); other
            drivers ignore it.
        :param read: ``(volume, (front-end, back-end QoS specs))`` as this
            manager's flow read them in the transaction of its claim
            (:func:`connection_read`), not read again then.
        :returns: the driver's connection info, whose
            ``data['access_mode']`` is ``attach_mode`` and
            ``data['qos_specs']`` the front-end QoS specs of the volume's
            type (None when it has none).
        """
        if attach_mode not in driver_base.ACCESS_MODES:
            raise exception.InvalidInput(
                reason='attach mode must be one of %s, not %r' % (
                    ', '.join(driver_base.ACCESS_MODES), attach_mode))
        if not isinstance(connector, dict) or not connector.get('host'):
            raise exception.InvalidInput(
                reason='connector must be an object with at least "host"')
        if read is None:
            # The volume and its type's QoS specs in one transaction.
            with db_api.reading(context):
                read = connection_read(
                    context, volume_db.volume_get(context, volume_id,
                                                  children=False))
        volume, (front_end, back_end) = read
        backend = self._backend(volume)
        if volume.status not in vstatus.ATTACHABLE_STATUSES:
            raise exception.InvalidVolume(
                reason='volume %s is %s; it cannot be connected' % (
                    volume_id, volume.status))
        ref = volume_ref(volume, back_end)
        scoped = _per_attachment(backend) and attachment_id is not None
        extra = (attachment_id,) if scoped else ()
        info = self._driver_call(
            'Initializing the connection', volume,
            _with_attachment(backend.driver.initialize_connection,
                             attachment_id if scoped else None),
            ref, connector, attach_mode)
        if not (isinstance(info, dict) and
                info.get('driver_volume_type')):
            self._driver_call('Terminating the connection', volume,
                              _with_attachment(
                                  backend.driver.terminate_connection,
                                  *extra), ref, connector)
            raise exception.DriverError(
                reason='the driver of %s returned connection info without '
                       'driver_volume_type' % backend.host)
        info = dict(info)
        if scoped:
            info[rpcapi.SCOPE_KEY] = rpcapi.ATTACHMENT_SCOPE
        # As Cinder's volume manager: the front-end QoS specs of the
        # volume's type (null when none) for the hypervisor to apply.
        info['data'] = dict(info.get('data') or {}, access_mode=attach_mode,
                            qos_specs=front_end)
        # cinder_ma's own: the size the consumer's disk should have,
        # updated there by an extend (SIZE_KEY).
        info['data'][driver_base.SIZE_KEY] = volume.size
        LOG.log(log_level, 'Initialized the %(type)s connection of volume '
                '%(vol)s to host %(host)s (%(mode)s%(scope)s)',
                {'type': info['driver_volume_type'], 'vol': volume_id,
                 'host': connector['host'], 'mode': attach_mode,
                 'scope': ', attachment %s' % attachment_id if scoped
                 else ''})
        return info

    @messaging.expected_exceptions(*EXPECTED)
    def terminate_connection(self, context, volume_id, connector,
                             attachment_id=None):
        """Undo initialize_connection for the host of ``connector`` (see
        :meth:`disconnect_volume`), for another node's flow: logged at
        info level."""
        self.disconnect_volume(context, volume_id, connector, attachment_id,
                               log_level=logging.INFO)

    def disconnect_volume(self, context, volume_id, connector,
                          attachment_id=None, log_level=logging.DEBUG,
                          volume=None):
        """Undo initialize_connection for the host of ``connector``;
        logged at ``log_level``: debug for this manager's own flows, which
        log their outcome, info when another node's flow asked
        (:meth:`terminate_connection`).

        :returns: whether the backend was asked to end a connection.
        :param attachment_id: (1.5) end only the connection made for this
            attachment (see :meth:`initialize_connection`), at once. A
            backend without per-attachment connections has none: nothing
            is done then (its connections are the host's, ended without
            an attachment id when their last user goes).
        :param volume: the volume's row as the flow that asks got it with
            its claim (not read again), or None.
        """
        if not isinstance(connector, dict):
            raise exception.InvalidInput(
                reason='connector must be an object')
        if volume is None:
            volume, backend = self._connection_backend(context, volume_id)
        else:
            backend = self._backend(volume)
        if attachment_id is not None and not _per_attachment(backend):
            LOG.info('The connections of backend %s are not made per '
                     'attachment: nothing to end for attachment %s of '
                     'volume %s', backend.host, attachment_id, volume_id)
            return False
        self._driver_call('Terminating the connection', volume,
                          _with_attachment(
                              backend.driver.terminate_connection,
                              attachment_id),
                          volume_ref(volume), connector)
        LOG.log(log_level, 'Terminated the connection of volume %s to host '
                '%s%s', volume_id, connector.get('host'),
                ' (attachment %s)' % attachment_id if attachment_id else '')
        return True

    # Attachments (instance host role)

    @messaging.expected_exceptions(*EXPECTED)
    def get_instance_owner(self, context, instance_uuid):
        """The project owning an instance of this host, as the hypervisor
        driver reads it, or None (1.3)."""
        driver = self.hypervisor
        if driver is None or not driver.capabilities.reports_instance_owner:
            return None
        return driver.get_instance_owner(instance_uuid)

    @messaging.expected_exceptions(*EXPECTED)
    def resize_attachment(self, context, attachment_id, new_size):
        """Make the instance of an attachment of this host see the new
        size of its volume, grown online by its backend (1.6).

        :param new_size: the volume's new size in GiB.
        :raises DriverError: this host has no hypervisor driver that can
            resize disks, or the driver failed.
        :raises InvalidVolume: the attachment is not attached through this
            host's manager.
        """
        attachment = attachment_db.attachment_get(context, attachment_id)
        if attachment.manager_host != self.host or \
                attachment.attach_status != vstatus.ATTACH_ATTACHED:
            raise exception.InvalidVolume(
                reason='attachment %s is %s through the manager of %s, not '
                       'attached through the manager of %s' % (
                           attachment_id, attachment.attach_status,
                           attachment.manager_host, self.host))
        driver = self.hypervisor
        if driver is None or not driver.capabilities.supports_extend_volume:
            raise exception.DriverError(
                reason='the hypervisor driver of host %s cannot resize '
                       'disks (supports_extend_volume)' % self.host)
        try:
            driver.resize_volume(attachment.instance_uuid, attachment_id,
                                 int(new_size) * driver_base.GiB)
        except exception.CinderMAException:
            raise
        except Exception as exc:
            LOG.exception('Resizing the disk of attachment %s failed',
                          attachment_id)
            raise exception.DriverError(
                reason='resizing the disk of attachment %s failed: %s' % (
                    attachment_id, exc)) from None
        LOG.info('Instance %s sees attachment %s of volume %s at %s GiB',
                 attachment.instance_uuid, attachment_id,
                 attachment.volume_id, new_size)

    def _load_attachment(self, context, attachment_id, expected_status,
                         error_status):
        """The attachment and its volume, or a reason the flow cannot run.

        An attachment that is not in ``expected_status`` is left alone (a
        repeated or stale message); one that cannot be handled here is
        moved to ``error_status``.
        """
        attachment = attachment_db.attachment_get(context, attachment_id)
        if attachment.attach_status != expected_status:
            raise exception.Conflict(
                reason='attachment %s is %s, not %s' % (
                    attachment_id, attachment.attach_status,
                    expected_status))
        volume = volume_db.volume_get(context, attachment.volume_id)
        try:
            if attachment.manager_host != self.host:
                raise exception.InvalidVolume(
                    reason='attachment %s is handled by the manager of %s, '
                           'not of %s' % (attachment_id,
                                          attachment.manager_host,
                                          self.host))
            if not volume.host:
                raise exception.InvalidVolume(
                    reason='volume %s has no host' % volume.id)
            try:
                lock = locks.ConnectionLock.for_volume(
                    volume.id, volume.shared_targets, volume.service_uuid)
            except ValueError as exc:
                raise exception.InvalidVolume(reason=str(exc))
        except exception.InvalidVolume as exc:
            LOG.error('%s', exc)
            try:
                attachment_db.attachment_update(
                    context, attachment_id, {'attach_status': error_status},
                    expected_status=expected_status)
            except (exception.VolumeAttachmentNotFound, exception.Conflict,
                    exception.InvalidVolume):
                pass
            raise
        return attachment, volume, lock

    def _store(self, context, attachment, volume):
        return {
            'context': context,
            'attachment_id': attachment.id,
            'volume_id': volume.id,
            'volume_host': volume.host,
            'instance_uuid': attachment.instance_uuid,
            'attach_mode': attachment.attach_mode,
            'host': self.host,
            'shared_service_uuid': (volume.service_uuid
                                    if volume.shared_targets else None),
        }

    def _run_attachment_flow(self, factory, store, lock):
        """Run the flow of ``factory`` (built with this host's connectors
        and hypervisor driver) under the connection lock ``lock``, which
        its tasks take and the run leaves released."""
        store.update(manager_api=self.manager_api, connection_lock=lock)
        try:
            flows.run(factory, store, self.connectors, self.hypervisor)
        finally:
            # Released by the flow's last step or its reverts when it has
            # one, by the end of the run otherwise (idempotent).
            lock.release()

    @messaging.expected_exceptions(*EXPECTED)
    def attach_volume(self, context, attachment_id):
        """Attach a reserved attachment to its instance on this host."""
        with self._claimed(context, 'attachment', attachment_id,
                          (vstatus.ATTACH_RESERVED,)):
            self._attach_volume(context, attachment_id)

    def _attach_volume(self, context, attachment_id):
        attachment, volume, lock = self._load_attachment(
            context, attachment_id, vstatus.ATTACH_RESERVED,
            vstatus.ATTACH_ERROR_ATTACHING)
        store = self._store(context, attachment, volume)
        store.update(shareable=bool(volume.multiattach),
                     mountpoint=attachment.mountpoint)
        self._run_attachment_flow(attach_flow.get_flow, store, lock)
        LOG.info('Attached volume %s to instance %s (attachment %s, %s)',
                 volume.id, attachment.instance_uuid, attachment_id,
                 attachment.attach_mode)

    @messaging.expected_exceptions(*EXPECTED)
    def detach_volume(self, context, attachment_id):
        """Detach an attachment in 'detaching' from its instance on this
        host and delete it.
        """
        with self._claimed(context, 'attachment', attachment_id,
                          (vstatus.ATTACH_DETACHING,)):
            self._detach_volume(context, attachment_id)

    def _detach_volume(self, context, attachment_id):
        attachment, volume = self._teardown(
            context, attachment_id, detach_flow, vstatus.ATTACH_DETACHING,
            vstatus.ATTACH_ERROR_DETACHING)
        LOG.info('Detached volume %s from instance %s (attachment %s)',
                 volume.id, attachment.instance_uuid, attachment_id)

    def _teardown(self, context, attachment_id, flow_module, *statuses):
        """Run ``flow_module``'s flow (detach, or the rollback of an
        attach) on an attachment in one of ``statuses`` with its recorded
        connector and connection info; returns (attachment, volume)."""
        attachment, volume, lock = self._load_attachment(
            context, attachment_id, *statuses)
        store = self._store(context, attachment, volume)
        store.update(
            connector=attachment.connector,
            connection_info=attachment.connection_info)
        self._run_attachment_flow(flow_module.get_flow, store, lock)
        return attachment, volume

    @messaging.expected_exceptions(*EXPECTED)
    def promote_attachment(self, context, attachment_id, revoke_ids=()):
        """Carry out the promotion of an attachment of this host, recorded
        as its volume's writer (1.5): end the connections of the fenced
        attachments ``revoke_ids``, make this one's read-write connection
        and switch the instance's disk to it in place (see
        :mod:`cinder_ma.manager.flows.promote_attachment`), under a claim
        on the attachment whose ``pending_work`` names the promotion: the
        reconcile loop runs it again if this process dies
        (:meth:`_recover_host_promote`)."""
        pending = {'op': 'promote', 'revoke_ids': list(revoke_ids or ())}
        rows = []
        with self._claimed(context, 'attachment', attachment_id,
                           fencing_db.PROMOTABLE_STATUSES, pending=pending,
                           rows=rows):
            attachment, volume = rows
            self._promote_on_host(context, attachment, volume,
                                  pending['revoke_ids'])

    def _recover_host_promote(self, context, attachment_id):
        """Run again the promotion of an attachment of this host that a
        dead process left unfinished (its claim expired with
        ``pending_work`` naming it); run by the reconcile loop under its
        own claim."""
        attachment, volume = attachment_db.attachment_and_volume_get(
            context, attachment_id)
        pending = attachment.pending_work or {}
        self._promote_on_host(context, attachment, volume,
                              pending.get('revoke_ids'))
        LOG.info('Recovered the interrupted promote of attachment %s of '
                 'volume %s (it was %s)', attachment_id, volume.id,
                 attachment.attach_status)

    def _promote_on_host(self, context, attachment, volume, revoke_ids):
        attachment_id = attachment.id
        if attachment.manager_host != self.host:
            raise exception.InvalidVolume(
                reason='attachment %s is handled by the manager of %s, not '
                       'of %s' % (attachment_id, attachment.manager_host,
                                  self.host))
        if attachment.attach_mode != 'rw' or \
                attachment.fenced_at is not None:
            raise exception.Conflict(
                reason='attachment %s is not the unfenced writer of volume '
                       '%s' % (attachment_id, volume.id))
        revoke = self._revocations(context, volume, revoke_ids)
        try:
            lock = locks.ConnectionLock.for_volume(
                volume.id, volume.shared_targets, volume.service_uuid)
        except ValueError as exc:
            raise exception.InvalidVolume(reason=str(exc))
        store = self._store(context, attachment, volume)
        store.update(attach_mode='rw', generation=attachment.generation,
                     revoke=revoke, shareable=bool(volume.multiattach),
                     previous_connection_info=attachment.connection_info)
        self._run_attachment_flow(promote_flow.get_host_flow, store, lock)
        LOG.info('Attachment %s of instance %s is the writer of volume %s '
                 '(generation %d); its disk is reconnected',
                 attachment_id, attachment.instance_uuid, volume.id,
                 attachment.generation)

    def _rollback_attach(self, context, attachment_id):
        """Undo what an interrupted attach flow did to an attachment left
        'attaching' (the disk, the host's and the backend's connection),
        back to 'reserved'."""
        self._teardown(context, attachment_id, rollback_flow,
                       vstatus.ATTACH_ATTACHING,
                       vstatus.ATTACH_ERROR_ATTACHING)
        LOG.info('Rolled back the interrupted attach of attachment %s',
                 attachment_id)

    @staticmethod
    def _connection_read(context, volume):
        """:func:`connection_read`, for
        :class:`~cinder_ma.manager.consumers.ConsumerEndpoints` (which
        cannot import this module)."""
        return connection_read(context, volume)

    @staticmethod
    def _revocations(context, volume, revoke_ids):
        """The ``revoke`` of a promotion: the fenced attachments
        ``revoke_ids`` of ``volume`` and their connectors."""
        revoke = []
        for other_id in revoke_ids or ():
            other = attachment_db.attachment_get(context, other_id)
            if other.volume_id != volume.id or other.fenced_at is None:
                raise exception.InvalidInput(
                    reason='attachment %s is not a fenced attachment of '
                           'volume %s' % (other_id, volume.id))
            revoke.append({'attachment_id': other.id,
                           'connector': other.connector})
        return revoke

    # Audits (1.4)

    def list_connections(self, context):
        """What this node's backends and hypervisor hold (see
        :meth:`cinder_ma.manager.rpcapi.ManagerAPI.list_connections`)."""
        def listed(what, func):
            try:
                return func()
            except Exception as exc:
                LOG.warning('Listing %s failed: %s', what, exc)
                return 'listing failed: %s' % exc

        return {
            'host': self.host,
            'backends': {name: listed('the connections of ' + backend.host,
                                      backend.driver.list_connections)
                         for name, backend in sorted(self.backends.items())},
            'hypervisor': (None if self.hypervisor is None else listed(
                'the disks of the instances',
                self.hypervisor.list_attached_disks)),
        }


def connection_read(context, volume):
    """What connecting ``volume`` reads besides the volume itself: the
    QoS specs of its type, as ``connect_volume``'s ``read``."""
    return volume, qos_specs.for_volume(context, volume.volume_type_id,
                                        volume.size)


class _LocalFirst:
    """The manager API a manager's flows use: this node's connection
    endpoints called in-process (no RPC to itself, which would hold one
    of its RPC server's threads waiting for another), other nodes' over
    RPC."""

    def __init__(self, manager, remote):
        self._manager = manager
        self._remote = remote

    def __getattr__(self, name):
        return getattr(self._remote, name)

    def _local(self, host):
        return host and rpcapi.server_for(host) == self._manager.host

    def initialize_connection(self, context, volume_id, host, connector,
                              attach_mode, attachment_id=None, read=None):
        """:param read: what :func:`connection_read` read in the flow's
        claim, for this node's backend (another node reads it)."""
        if not self._local(host):
            return self._remote.initialize_connection(
                context, volume_id, host, connector, attach_mode,
                attachment_id=attachment_id)
        return self._manager.connect_volume(
            context, volume_id, connector, attach_mode,
            attachment_id=attachment_id, read=read)

    def terminate_connection(self, context, volume_id, host, connector,
                             attachment_id=None, volume=None):
        """:param volume: the volume's row as the flow got it with its
        claim, for this node's backend (another node reads it)."""
        if not self._local(host):
            return self._remote.terminate_connection(
                context, volume_id, host, connector,
                attachment_id=attachment_id)
        return self._manager.disconnect_volume(
            context, volume_id, connector, attachment_id=attachment_id,
            volume=volume)


def _refuse_unless_held(context, kind, row_id, statuses):
    """Why a claim failed, raised, unless the row is in one of
    ``statuses`` under another flow's claim: it is gone, or not in one of
    ``statuses`` (a repeated or stale message)."""
    if kind == 'volume':
        status = volume_db.volume_get(context, row_id, children=False).status
        if status not in statuses:
            raise exception.InvalidVolume(
                reason='volume %s is %s, not %s' % (
                    row_id, status, ' or '.join(statuses)))
    elif kind == 'snapshot':
        status = snapshot_db.snapshot_get(context, row_id).status
        if status not in statuses:
            raise exception.InvalidSnapshot(
                reason='snapshot %s is %s, not %s' % (
                    row_id, status, ' or '.join(statuses)))
    else:
        status = attachment_db.attachment_get(context, row_id).attach_status
        if status not in statuses:
            raise exception.Conflict(
                reason='attachment %s is %s, not %s' % (
                    row_id, status, ' or '.join(statuses)))


def _per_attachment(backend):
    return backend.driver.capabilities.per_attachment_connections


def _with_attachment(method, attachment_id=None):
    """A driver's connection ``method``, given ``attachment_id`` as its
    keyword argument when it is not None (only drivers declaring
    ``per_attachment_connections`` take it)."""
    if attachment_id is None:
        return method
    return functools.partial(method, attachment_id=attachment_id)
