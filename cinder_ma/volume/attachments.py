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

"""Attachments: the multi-attach rules, run in the API process.

Two ways lead to the same records and tasks:

* the Cinder attachments API, driven by an external consumer (a compute
  service of its own): create (reserve), update with a connector (the
  manager of the volume's backend runs the connect flow), complete,
  delete (that manager runs the disconnect flow);
* attach/detach through a cinder_ma manager running the instance's host:
  the API reserves, checks that the backend and the host's hypervisor
  driver can do what is asked, and casts the attach (or detach) flow to
  that host's manager.
"""

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import timeutils

from cinder_ma import connection_info as cm_connection_info
from cinder_ma.db import api as db_api
from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import models
from cinder_ma.db import records
from cinder_ma.db import services as service_db
from cinder_ma.db import types as type_db
from cinder_ma.db import work as work_db
from cinder_ma import exception
from cinder_ma import holds
from cinder_ma.manager import rpcapi
from cinder_ma import notifications
from cinder_ma.policies import attachments as attachment_policies
from cinder_ma import policy
from cinder_ma import status as vstatus
from cinder_ma.volume import api as volume_api
from cinder_ma.volume import qos_specs
from cinder_ma.volume import scheduler

LOG = logging.getLogger(__name__)

MODES = ('rw', 'ro')
#: The worker id under which this process claims the reservations it
#: hands to a manager (see :func:`create_attachment`).
WORKER_ID = 'api-' + work_db.new_worker_id()
MAX_ATTACHMENTS_SPEC = 'multiattach:max_attachments'
#: Writer policy of a shareable type: 'one' read-write attachment at a
#: time (any number of read-only ones), or 'many' (the default, Cinder's).
WRITERS_SPEC = models.WRITERS_SPEC
WRITER_POLICIES = ('one', 'many')


def _rpc():
    return rpcapi.ManagerAPI()


def manager_api():
    """The client of the managers' RPC API."""
    return _rpc()


def _target(volume):
    return {'project_id': volume.project_id, 'user_id': volume.user_id}


def _is_service(context):
    return policy.check_persona(context, 'service_api')


def shareable_specs(context, volume):
    """The extra specs of a shareable volume's type ({} otherwise): read
    once per reservation for the rules below."""
    if not volume.multiattach or not volume.volume_type_id:
        return {}
    return type_db.volume_type_extra_specs_get(context, volume.volume_type_id)


#: What the cap of :func:`attachment_cap` comes from, as its refusal
#: names it.
CAP_OPTION = '[DEFAULT] max_attachments_per_volume'
CAP_SPEC = MAX_ATTACHMENTS_SPEC + ' of its volume type'


def _type_max_attachments(volume, specs):
    """The multiattach:max_attachments cap of a shareable volume's type
    (``specs``: :func:`shareable_specs`), or None."""
    value = specs.get(MAX_ATTACHMENTS_SPEC)
    if value is None:
        return None
    try:
        limit = int(value)
    except ValueError:
        LOG.warning('Ignoring %s=%r of volume type %s: not an integer',
                    MAX_ATTACHMENTS_SPEC, value, volume.volume_type_id)
        return None
    return limit if limit > 0 else None


def attachment_cap(volume, specs):
    """The most attachments ``volume`` may have, and what says so:
    ``[DEFAULT] max_attachments_per_volume``, lowered (never raised) by
    the ``multiattach:max_attachments`` of a shareable volume's type
    (``specs``: :func:`shareable_specs`).

    :returns: ``(cap, source)``, ``source`` :data:`CAP_OPTION` or
        :data:`CAP_SPEC`.
    """
    cap = cfg.CONF.max_attachments_per_volume
    type_cap = _type_max_attachments(volume, specs)
    if type_cap is not None and type_cap < cap:
        return type_cap, CAP_SPEC
    return cap, CAP_OPTION


def writers_of(multiattach, value):
    """The writer policy of a volume from its type's
    ``multiattach:writers`` (``value``, or None): 'one' or 'many' (the
    default, and always for a volume that is not shareable)."""
    if not multiattach or value is None:
        return 'many'
    value = str(value).strip().lower()
    return value if value in WRITER_POLICIES else 'many'


def writer_policy(volume, specs):
    """The writer policy of ``volume`` (see :func:`writers_of`; ``specs``:
    :func:`shareable_specs`)."""
    policy_ = writers_of(volume.multiattach, specs.get(WRITERS_SPEC))
    if policy_ == 'many' and specs.get(WRITERS_SPEC) is not None and \
            str(specs[WRITERS_SPEC]).strip().lower() != 'many':
        LOG.warning('Ignoring %s=%r of volume type %s: not one of %s',
                    WRITERS_SPEC, specs[WRITERS_SPEC],
                    volume.volume_type_id, ', '.join(WRITER_POLICIES))
    return policy_


def check_backend_multiattach(context, volume):
    """Refuse early when a shareable volume's backend cannot share it."""
    if not volume.multiattach or volume.attach_count == 0:
        return
    caps = scheduler.backend_capabilities(context, volume.host)
    if not caps.get('multiattach'):
        # The backend's host is the operator's business: logged, not said.
        LOG.warning('Backend %s of multiattach volume %s does not report '
                    'the multiattach capability', volume.host, volume.id)
        raise exception.InvalidVolume(
            reason='volume %s is multiattach but its backend does not '
                   'report the multiattach capability; it cannot be '
                   'attached more than once' % volume.id)


def check_host_multiattach(context, volume, instance_host):
    """Refuse when a shareable volume meets a hypervisor that cannot share
    disks (nothing is reserved yet, no driver has been called)."""
    service = service_db.service_get_by_host_and_binary(
        context, instance_host, scheduler.MANAGER_BINARY)
    if service is None or not service_db.service_is_up(service):
        raise exception.InvalidInput(
            reason='host %s is not run by a cinder_ma manager that is up'
                   % instance_host)
    hypervisor = scheduler.capabilities_of(service).get('hypervisor')
    if not hypervisor:
        raise exception.InvalidInput(
            reason='the manager of host %s runs no hypervisor driver'
                   % instance_host)
    if volume.multiattach and not hypervisor.get('supports_multiattach'):
        raise exception.InvalidVolume(
            reason='volume %s is multiattach but the hypervisor driver %s '
                   'of host %s does not support multiattach' % (
                       volume.id, hypervisor.get('driver'), instance_host))


def _no_such_instance(instance_uuid, instance_host):
    """The one answer to a member naming a host or instance that is not
    theirs, or that does not exist: they cannot tell which."""
    return exception.InvalidInput(
        reason='host %s runs no instance %s of this project that a '
               'cinder_ma manager can attach volumes to' % (
                   instance_host, instance_uuid))


def check_instance_host(context, volume, instance_uuid, instance_host):
    """Refuse, before anything is reserved, an attach through the manager
    of ``instance_host`` that cannot or may not be made.

    Administrators get the reason (host down, no hypervisor driver, no
    multiattach support). A project attaches only into an instance of
    the volume's project, whose owner the host's hypervisor driver tells
    (:meth:`~cinder_ma.hypervisor.drivers.base.HypervisorDriver.
    get_instance_owner`, asked over RPC); a host or instance that is not
    the caller's gets exactly the answer of one that does not exist, so
    that host names cannot be probed.
    """
    if volume_api.is_admin(context):
        check_host_multiattach(context, volume, instance_host)
        return
    service = service_db.service_get_by_host_and_binary(
        context, instance_host, scheduler.MANAGER_BINARY)
    hypervisor = (scheduler.capabilities_of(service).get('hypervisor')
                  if service is not None and service_db.service_is_up(service)
                  else None)
    if not hypervisor or not hypervisor.get('reports_instance_owner'):
        raise _no_such_instance(instance_uuid, instance_host)
    try:
        owner = _rpc().get_instance_owner(context, instance_uuid,
                                          instance_host)
    except Exception:
        LOG.exception('Could not ask the manager of %s who owns instance '
                      '%s', instance_host, instance_uuid)
        raise _no_such_instance(instance_uuid, instance_host)
    if owner is None or owner != volume.project_id:
        LOG.info('Refused to attach volume %(vol)s of project %(project)s '
                 'to instance %(inst)s of host %(host)s, owned by %(owner)s',
                 {'vol': volume.id, 'project': volume.project_id,
                  'inst': instance_uuid, 'host': instance_host,
                  'owner': owner})
        raise _no_such_instance(instance_uuid, instance_host)
    # Theirs: the host's limits may be told.
    check_host_multiattach(context, volume, instance_host)


def _may_share_bootable(context, volume):
    """Whether the caller may attach a bootable shareable volume to more
    than one instance (``volume:multiattach_bootable_volume``).

    Decided here, applied by the reservation's compare-and-swap (see
    :func:`cinder_ma.db.attachments.attachment_reserve`), so that it
    holds under concurrent reservations.
    """
    if not (volume.bootable and volume.multiattach):
        return True
    return policy.authorize(context, attachment_policies.MULTIATTACH_BOOTABLE,
                            _target(volume), do_raise=False)


def reserve(context, volume, instance_uuid, attach_mode='rw',
            manager_host=None, specs=None, claim=None):
    """Reserve an attachment of ``volume`` (a row read in this request)
    under every rule of the reservation, decided in one compare-and-swap.

    :param specs: :func:`shareable_specs` of ``volume``, when read with it
        (read here otherwise).
    :param claim: a claim on the new attachment's work, with its pending
        flow (:func:`cinder_ma.db.work.claim_values`).

    Every volume is capped (:func:`attachment_cap`), shareable or not: a
    volume that is not shareable takes several attachments of its one
    instance (live migration), and nothing else bounds them.

    :raises InvalidVolume: the rules refuse (the message says why; beyond
        the cap, it names the cap and where it comes from).
    :raises PolicyNotAuthorized: a second instance of a bootable shareable
        volume without ``volume:multiattach_bootable_volume``.
    :raises Conflict: a second read-write attachment of a volume whose
        type allows one writer (``multiattach:writers = one``).
    """
    if specs is None:
        specs = shareable_specs(context, volume)
    cap, cap_source = attachment_cap(volume, specs)
    return attachment_db.attachment_reserve(
        context, volume.id, instance_uuid, attach_mode=attach_mode,
        manager_host=manager_host,
        max_attachments=cap, cap_source=cap_source,
        exclusive_bootable=not _may_share_bootable(context, volume),
        one_writer=writer_policy(volume, specs) == 'one', claim=claim)


def attachment_and_volume(context, attachment_id, action):
    """An attachment the caller may act on, and its volume's row.

    Only administrators reach other projects' attachments: a service
    stays in the project of the user token it came with (its service
    token lifts nothing here; see :func:`delete_attachment`), so another
    project's attachment is not found.
    """
    attachment, volume = attachment_db.attachment_and_volume_get(
        context, attachment_id, _visible_project(context))
    policy.authorize(context, action, _target(volume))
    return attachment, volume


def _visible_project(context):
    """The project whose attachments the caller sees (None: all)."""
    return None if volume_api.is_admin(context) else context.project_id


def _update_authorized(context, attachment_id, action, values,
                       expected_status):
    """:func:`attachment_and_volume` and the update of that attachment in
    one transaction (see :func:`cinder_ma.db.attachments.
    attachment_update`'s ``check``).

    :returns: the attachment as updated, and its volume's row.
    """
    volumes = []

    def authorize(attachment, volume):
        policy.authorize(context, action, _target(volume))
        volumes.append(volume)

    attachment = attachment_db.attachment_update(
        context, attachment_id, values, expected_status=expected_status,
        project_id=_visible_project(context), check=authorize)
    return attachment, volumes[-1]


def get_attachment(context, attachment_id,
                   action=attachment_policies.SHOW):
    return attachment_and_volume(context, attachment_id, action)[0]


def list_attachments(context, filters=None, marker=None, limit=None,
                     sort_keys=None, sort_dirs=None, all_tenants=False):
    policy.authorize(context, attachment_policies.LIST)
    project_id = context.project_id
    if all_tenants and volume_api.is_admin(context):
        project_id = None
    return attachment_db.attachment_get_all(context, project_id, filters,
                                            marker, limit, sort_keys,
                                            sort_dirs)


def create_attachment(context, volume_id, instance_uuid, connector=None,
                      mode='rw', instance_host=None):
    """Reserve an attachment; with a connector, also connect it.

    :param instance_host: a host run by a cinder_ma manager: its attach
        flow then connects the volume and attaches it to the instance.
    :raises InvalidVolume: the volume cannot take this attachment (the
        message says why).
    """
    if mode not in MODES:
        raise exception.InvalidInput(
            reason='mode must be one of %s' % ', '.join(MODES))
    if connector:
        check_connector(connector)
    owner = claim = read = None
    if instance_host:
        with db_api.reading(context):
            volume = volume_api.get_volume(context, volume_id,
                                           attachment_policies.CREATE,
                                           children=False)
            policy.authorize(context, attachment_policies.ATTACH_TO_HOST,
                             _target(volume))
            check_instance_host(context, volume, instance_uuid,
                                instance_host)
            check_backend_multiattach(context, volume)
            specs = shareable_specs(context, volume)
        attachment = reserve(context, volume, instance_uuid,
                             attach_mode=mode, manager_host=instance_host,
                             specs=specs)
    else:
        if connector:
            # Claimed, with its connect flow pending, until the manager
            # takes the claim over: if this process dies first, that
            # manager's reconcile loop releases the reservation, which
            # the client never learned of.
            owner = work_db.owner_token(WORKER_ID)
            claim = work_db.claim_values(
                owner, cfg.CONF.manager.work_lease_time,
                {'op': 'connect', 'kind': 'create', 'connector': connector})
        # Read, checked and reserved in one transaction (with what the
        # manager's connect reads: the QoS specs of the volume's type).
        attachment, volume, read = db_api.in_writer(
            context, _read_and_reserve, context, volume_id, instance_uuid,
            mode, connector, claim)
    LOG.info('Reserved attachment %(att)s of volume %(vol)s for instance '
             '%(inst)s (%(mode)s)', {'att': attachment.id, 'vol': volume.id,
                                      'inst': instance_uuid,
                                      'mode': attachment.attach_mode})
    if instance_host:
        notifications.notify_attach(context, 'attach.start', volume,
                                    attachment)
        try:
            _rpc().attach_volume(context, attachment.id, instance_host)
        except Exception as exc:
            # The reservation is the request: the reconcile loop of that
            # host's manager attaches it.
            LOG.warning('Could not ask the manager of %s to attach %s (%s); '
                        'its reconcile loop will', instance_host,
                        attachment.id, exc)
        # The manager's flow may have moved it on already.
        return attachment_db.attachment_get(context, attachment.id)
    if connector:
        notifications.notify_attach(context, 'attach.start', volume,
                                    attachment)
        # TEST ONLY: a fault test kills this process here (claimed,
        # not yet handed over).
        holds.hold('api_create_attachment')
        try:
            return connect(context, attachment, volume, connector, 'create',
                           handover=owner, read=read)
        except exception.ManagerUnavailable as exc:
            if isinstance(exc, exception.ManagerTimeout):
                # The manager may be connecting it still.
                raise
            # Nothing was sent: release it now (or the reconcile loop
            # will, once that manager is back).
            _release_unsent(context, attachment.id)
            raise
    return attachment


def _read_and_reserve(context, volume_id, instance_uuid, mode, connector,
                      claim):
    """What :func:`create_attachment` reads, checks and reserves for a
    consumer (in its one transaction).

    :returns: the reservation, the volume's row as read and, with a
        connector, the QoS specs of its type for the backend's connect
        (:func:`cinder_ma.volume.qos_specs.for_volume`), or None.
    """
    volume = volume_api.get_volume(context, volume_id,
                                   attachment_policies.CREATE,
                                   children=False)
    check_backend_multiattach(context, volume)
    read = None
    if connector:
        # Refused before anything is reserved (the compare-and-swap of
        # the connect flow's last write checks it again).
        attachment_db.check_not_connected(context, volume.id,
                                          instance_uuid, connector['host'])
        read = qos_specs.for_volume(context, volume.volume_type_id,
                                    volume.size)
    attachment = reserve(context, volume, instance_uuid, attach_mode=mode,
                         specs=shareable_specs(context, volume),
                         claim=claim)
    return attachment, volume, read


def _release_unsent(context, attachment_id):
    try:
        attachment_db.attachment_destroy(
            context, attachment_id, expected_status=vstatus.ATTACH_RESERVED)
    except Exception as exc:
        LOG.warning('Reservation %s stays until the reconcile loop of its '
                    'backend\'s manager releases it: %s', attachment_id, exc)


def check_connector(connector):
    """400 unless ``connector`` is an object naming its ``host``."""
    if not isinstance(connector, dict) or not connector.get('host') or \
            not isinstance(connector['host'], str):
        raise exception.InvalidInput(
            reason='connector must be an object with at least "host"')


def connect(context, attachment, volume, connector, kind, handover=None,
            read=None):
    """Have the manager of the volume's backend run the connect flow of a
    reserved attachment (see
    :mod:`cinder_ma.manager.flows.connect_attachment`).

    :param handover: the claim this request holds on the attachment,
        whose record (``attachment``) carries it, and
    :param read: the QoS specs of the volume's type
        (:func:`cinder_ma.volume.qos_specs.for_volume`) read with it: the
        manager takes both over instead of reading them.
    :returns: the attachment, now 'attaching' with its connection_info.
    """
    check_connector(connector)
    connected = _rpc().connect_attachment(
        context, volume.host, attachment.id, connector, kind,
        handover=handover,
        records=(records.handover_dumps(attachment, volume, read)
                 if handover is not None and read is not None else None))
    if connected:
        # As the manager recorded it: not read again.
        return records.attachment_from_primitive(connected)
    return attachment_db.attachment_get(context, attachment.id)


def update_attachment(context, attachment_id, connector):
    """Have the backend connect a reserved attachment to a host.

    A refused request changes nothing anywhere: an attachment that is not
    'reserved' (already connected), or whose instance has the volume
    connected on that host already, is a 409 before any backend is
    called. A fenced attachment (extension ``cinder-ma-fencing``) is
    connected again instead, with new credentials (see
    :func:`cinder_ma.volume.fencing.reconnect_attachment`). Read,
    checked and claimed (with the connect flow pending) in one
    transaction, the claim and the records handed to the manager of the
    volume's backend.

    :returns: the attachment, now ``attaching`` with its connection_info.
    """
    check_connector(connector)
    owner = work_db.owner_token(WORKER_ID)
    read = []

    def check(attachment, volume):
        policy.authorize(context, attachment_policies.UPDATE,
                         _target(volume))
        if attachment.fenced_at is not None:
            return False
        attachment_db.check_connectable(context, attachment.id,
                                        connector['host'],
                                        current=attachment)
        check_backend_multiattach(context, volume)
        # What the backend's connect reads, for the manager.
        read.append(qos_specs.for_volume(context, volume.volume_type_id,
                                         volume.size))
        return True

    # Read, authorized, checked and claimed in one transaction, with the
    # connect flow pending: the manager of the backend adopts the claim
    # (if this process dies first, its reconcile loop ends whatever the
    # flow may have connected; the attachment stays reserved).
    attachment, volume, claimed = attachment_db.attachment_claim_checked(
        context, attachment_id, owner, (vstatus.ATTACH_RESERVED,),
        cfg.CONF.manager.work_lease_time,
        {'op': 'connect', 'kind': 'update', 'connector': connector},
        project_id=_visible_project(context), check=check)
    if attachment.fenced_at is not None:
        # Imported here: the fencing module builds on this one.
        from cinder_ma.volume import fencing
        return fencing.reconnect_attachment(context, attachment, volume,
                                            connector)
    notifications.notify_attach(context, 'attach.start', volume, attachment)
    if not claimed:
        # Another flow's claim (given up in a moment, as a legacy
        # connect's after its revert): the manager claims it, waiting.
        return connect(context, attachment, volume, connector, 'update')
    # TEST ONLY: the fault tests kill the worker here, its claim written.
    holds.hold('api_update_attachment')
    try:
        return connect(context, attachment, volume, connector, 'update',
                       handover=owner, read=read[-1])
    except exception.ManagerTimeout:
        # The manager may be connecting it still, under the claim.
        raise
    except Exception:
        # Nothing was sent, or the manager answered: its flow gave the
        # claim up, or never took it; it goes now (a no-op in the
        # first case) instead of expiring.
        _release_claim(context, attachment.id, owner)
        raise


def _release_claim(context, attachment_id, owner):
    try:
        work_db.release(context, 'attachment', attachment_id, owner)
    except Exception as exc:
        LOG.warning('The claim of this request on attachment %s stays '
                    'until it expires: %s', attachment_id, exc)


def complete_attachment(context, attachment_id):
    attachment, volume = _update_authorized(
        context, attachment_id, attachment_policies.COMPLETE,
        {'attach_status': vstatus.ATTACH_ATTACHED,
         'attach_time': timeutils.utcnow()},
        (vstatus.ATTACH_ATTACHING, vstatus.ATTACH_ATTACHED))
    LOG.info('Attachment %s of volume %s is attached', attachment.id,
             attachment.volume_id)
    notifications.notify_attach(context, 'attach.end', volume, attachment)
    return attachment


def _is_connected(attachment):
    return attachment.attach_status in (
        vstatus.ATTACH_ATTACHED, vstatus.ATTACH_ATTACHING,
        vstatus.ATTACH_DETACHING) and attachment.connection_info


def delete_attachment(context, attachment_id, force=False, wait=False):
    """Terminate an attachment's connection and delete it.

    An attachment connected to an instance can only be deleted by a
    service (the lesson of CVE-2023-2088: a user deleting it would leave
    the host connected to a volume it no longer controls); others get 409.
    "A service" is a request whose *service token* has the service role
    (``service_roles``), never a user token's role; that lifts the 409
    and nothing else: the attachment must still be in the user token's
    project. Administrators use :func:`force_detach`.

    One transaction reads, authorizes, answers and either deletes the
    attachment at once (it holds no connection, or another attachment
    keeps its host's; see :func:`cinder_ma.db.attachments.
    attachment_delete_or_hand_over`) or records it ``detaching`` with the
    claim of the disconnect flow that the manager of the volume's
    backend adopts.

    :returns: the volume's other attachments (Cinder's delete answers
        them).
    """
    found = []
    owner = work_db.owner_token(WORKER_ID)

    def decide(attachment, volume, may_delete):
        policy.authorize(context, attachment_policies.DELETE,
                         _target(volume))
        _refuse_connected(context, attachment, force)
        found[:] = [attachment, volume]
        if attachment.manager_host:
            # Detached through its host's manager (below): nothing is
            # written here.
            raise _ThroughHost()
        # Read before the delete, in its transaction: the answer.
        others = attachment_db.attachment_get_others(
            context, attachment.volume_id, attachment.id)
        found.append(others)
        host = _connection_host(attachment)
        holds_connection = bool(volume.host and attachment.connector)
        if may_delete and attachment.claimed_by is None and (
                not holds_connection or (
                    not cm_connection_info.is_attachment_scoped(
                        attachment.connection_info) and
                    any(attachment_db.is_stable_user(other, host)
                        for other in others))):
            # No connection to end, or another user keeps it (predicted
            # from the answer, checked under the volume's row lock): the
            # attachment is deleted now, nothing else runs.
            found.append(True)
            return (attachment_db.destroy_values(), None,
                    host if holds_connection else None)
        # Claimed with the change, for the manager of the volume's
        # backend to adopt (if this process dies first, its reconcile
        # loop finishes the delete once the claim expires).
        found.append(False)
        return ({'attach_status': vstatus.ATTACH_DETACHING},
                work_db.claim_values(owner, cfg.CONF.manager.work_lease_time,
                                     {'op': 'disconnect'}), None)

    try:
        written = attachment_db.attachment_delete_or_hand_over(
            context, attachment_id, vstatus.LIVE_ATTACH_STATUSES +
            (vstatus.ATTACH_ERROR_ATTACHING,), _visible_project(context),
            decide)
    except _ThroughHost:
        # Every way out of an attachment made through a manager goes
        # through the host that may hold its disk and connection.
        attachment, volume = found
        _detach_through_host(context, volume, attachment, wait)
        return _others(context, attachment)
    attachment, volume, others, deleted = found
    notifications.notify_attach(context, 'detach.start', volume, attachment)
    if deleted:
        notifications.notify_attach(context, 'detach.end', volume,
                                    attachment)
        LOG.info('Deleted attachment %s of volume %s', attachment.id,
                 volume.id)
        return others
    # TEST ONLY: a fault test kills this process here (claimed, not yet
    # handed over).
    holds.hold('api_delete_attachment')
    disconnect(context, volume, written, handover=owner,
               records=records.handover_dumps(written, volume))
    return others


def _connection_host(attachment):
    """The host whose connection an attachment holds (as the disconnect
    flow names it)."""
    return (attachment.connector or {}).get('host') or \
        attachment.attached_host


class _ThroughHost(Exception):
    """The attachment to delete was made through a manager (raised to
    leave the transaction of :func:`delete_attachment` unchanged)."""


def _refuse_connected(context, attachment, force):
    """409 for an attachment connected to an instance, unless ``force``
    or the caller is a service (see :func:`delete_attachment`)."""
    if (_is_connected(attachment) and not force and
            not _is_service(context)):
        if attachment.instance_uuid:
            consumer = 'instance %s' % attachment.instance_uuid
        else:
            consumer = 'host %s (it names no instance)' % (
                attachment.attached_host or
                (attachment.connector or {}).get('host') or 'unknown')
        raise exception.Conflict(
            reason='attachment %s is connected to %s; only the service '
                   'that attached it can delete it (an administrator can '
                   'use os-force_detach)' % (attachment.id, consumer))


def disconnect(context, volume, attachment, terminate=False, handover=None,
               records=None):
    """Have the manager of the volume's backend run the disconnect flow
    (see :mod:`cinder_ma.manager.flows.disconnect_attachment`) of a
    consumer's attachment: its connection ends when it is the last user
    of it; unless ``terminate``, the attachment ('detaching') is deleted,
    by the reconcile loop of that manager when it is down now. The
    manager logs what it did (not logged here again)."""
    try:
        _rpc().disconnect_attachment(context, volume.host, attachment.id,
                                     terminate=terminate, handover=handover,
                                     records=records)
    except exception.ManagerUnavailable as exc:
        if terminate or isinstance(exc, exception.ManagerTimeout):
            raise
        LOG.warning('Attachment %s of volume %s is recorded detaching; the '
                    'manager of its backend deletes it once it is back: %s',
                    attachment.id, volume.id, exc)


def _others(context, attachment):
    """The other (not deleted) attachments of an attachment's volume."""
    return attachment_db.attachment_get_others(context, attachment.volume_id,
                                               attachment.id)


def _detach_through_host(context, volume, attachment, wait=False):
    """Have the manager of the attachment's host run its detach flow
    (hypervisor detach, disconnect, terminate, then delete the record).

    When that manager is down: with ``wait`` (a caller that needs the
    attachment gone, force-delete) refuse, changing nothing; otherwise
    record the attachment 'detaching' for that manager's reconcile loop
    to detach once it is back.

    :raises ManagerUnavailable: the host's manager is down and ``wait``.
    """
    host = attachment.manager_host
    up = scheduler.manager_is_up(context, host)
    if wait and not up:
        raise exception.ManagerUnavailable(
            host=host, reason='it is down; attachment %s stays until it '
                              'can be detached from its instance there' %
                              attachment.id)
    attachment_db.attachment_update(
        context, attachment.id, {'attach_status': vstatus.ATTACH_DETACHING},
        expected_status=vstatus.LIVE_ATTACH_STATUSES +
        (vstatus.ATTACH_ERROR_ATTACHING,))
    notifications.notify_attach(context, 'detach.start', volume, attachment)
    if not up:
        LOG.warning('The manager of %s is down: attachment %s is recorded '
                    'detaching and is detached there once it is back',
                    host, attachment.id)
        return
    try:
        _rpc().detach_volume(context, attachment.id,
                             attachment.manager_host, wait=wait)
    except exception.CinderMAException:
        # The manager ran the flow, which failed and recorded
        # error_detaching itself: its error is the answer.
        LOG.warning('The detach flow of attachment %s failed on %s',
                    attachment.id, attachment.manager_host)
        raise
    except Exception as exc:
        # The attachment stays 'detaching': the reconcile loop of that
        # host's manager detaches it if the request was lost.
        LOG.exception('Could not ask the manager of %s to detach %s',
                      attachment.manager_host, attachment.id)
        if wait:
            raise exception.ManagerUnavailable(host=attachment.manager_host,
                                               reason=str(exc))


def force_detach(context, volume_id, attachment_id=None):
    """Admin: detach an attachment whose consumer is gone."""
    volume = volume_api.get_volume(context, volume_id,
                                   attachment_policies.FORCE_DETACH)
    live = [a for a in volume.volume_attachment
            if a.attach_status in vstatus.LIVE_ATTACH_STATUSES +
            (vstatus.ATTACH_ERROR_ATTACHING,)]
    if attachment_id is None:
        if len(live) != 1:
            raise exception.InvalidVolume(
                reason='volume %s has %d attachments; name the one to '
                       'detach with attachment_id' % (volume.id, len(live)))
        attachment_id = live[0].id
    elif attachment_id not in [a.id for a in volume.volume_attachment]:
        raise exception.VolumeAttachmentNotFound(
            filter='attachment_id = %s, volume_id = %s' % (attachment_id,
                                                           volume.id))
    LOG.warning('Force-detaching attachment %s of volume %s at the request '
                'of %s', attachment_id, volume.id, context.user_id)
    delete_attachment(context, attachment_id, force=True)
    notifications.notify(context, 'volume.force_detach',
                         {'volume_id': volume.id,
                          'attachment_id': attachment_id})
