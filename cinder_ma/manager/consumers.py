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

"""The manager's endpoints of consumers' attachments (RPC API 1.8): the
one call per request the API makes to the manager of a volume's backend
for an attachment no manager made (connect, disconnect or terminate,
fence, reconnect, promote), each a flow on TaskFlow's engine under the
work claim of the attachment, which records the flow in its
``pending_work``; and the recovery of those flows, which the reconcile
loop runs when their process died.

A mixin of :class:`cinder_ma.manager.manager.Manager`, which provides
the claims (``_claimed``, ``_claim_given_up``), the volume helper
(``_backend``), the manager API of its flows (``manager_api``), the
revocations of a promotion (``_revocations``, shared with the
promotion on a manager's host) and what a connection reads
(``_connection_read``) it uses.
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import fencing as fencing_db
from cinder_ma.db import records as records_mod
from cinder_ma import exception
from cinder_ma.manager import flows
from cinder_ma.manager.flows import abort_connect as abort_flow
from cinder_ma.manager.flows import connect_attachment as connect_flow
from cinder_ma.manager.flows import disconnect_attachment as disconnect_flow
from cinder_ma.manager.flows import fence_attachment as fence_flow
from cinder_ma.manager.flows import promote_attachment as promote_flow
from cinder_ma.manager.flows import reconnect_attachment as reconnect_flow
from cinder_ma.manager import locks
from cinder_ma import notifications
from cinder_ma import status as vstatus

LOG = logging.getLogger(__name__)

#: Outcomes a caller can expect, not failures of the manager (as
#: :data:`cinder_ma.manager.manager.EXPECTED`).
EXPECTED = (exception.VolumeNotFound, exception.VolumeAttachmentNotFound,
            exception.Conflict, exception.InvalidVolume,
            exception.InvalidInput, exception.DriverError,
            exception.SnapshotNotFound, exception.InvalidSnapshot)


def _records_of(records):
    """The attachment and volume records and what was read with them
    (:func:`cinder_ma.db.records.handover_loads`) of an RPC's
    ``records``, or None."""
    if not records:
        return None
    return records_mod.handover_loads(records)


class ConsumerEndpoints:
    """Endpoints of consumers' attachments of the manager (backend role,
    1.8)."""

    def _consumer_attachment(self, rows, consumers_only=True):
        """A consumer's attachment of a volume of this node (any
        attachment of it, without ``consumers_only``), and its volume,
        from the ``rows`` read with the flow's claim."""
        attachment, volume = rows
        attachment_id = attachment.id
        if consumers_only and attachment.manager_host:
            raise exception.InvalidVolume(
                reason='attachment %s is attached through the manager of '
                       '%s, not by a consumer' % (attachment_id,
                                                  attachment.manager_host))
        self._backend(volume)
        return attachment, volume

    def _run_consumer_flow(self, factory, store, volume, *args, fetch=()):
        """Run a flow of a consumer's attachment of ``volume`` under the
        volume's connection lock (held across processes and hosts: the
        managers of the consumers' hosts count the same connections),
        which its tasks take and the run leaves released.

        :param fetch: the results wanted (:func:`cinder_ma.manager.flows.
            run`); none by default.
        """
        lock = locks.inter_process_lock_of(volume)
        store.update(manager_api=self.manager_api, connection_lock=lock)
        try:
            return flows.run(factory, store, *args, fetch=fetch)
        finally:
            lock.release()

    @messaging.expected_exceptions(*EXPECTED)
    def connect_attachment(self, context, attachment_id, connector, kind,
                           handover=None, records=None):
        """Connect a consumer's reserved attachment of a volume of this
        node to the host of ``connector`` (1.8): the connect flow
        (:mod:`cinder_ma.manager.flows.connect_attachment`) under a claim
        on the attachment, its ``pending_work`` naming the flow and the
        connector so that the reconcile loop reverts it if this process
        dies (:meth:`_abort_connect`).

        :param kind: ``create`` (the reservation of the same request, whose
            claim ``handover`` the API hands over), ``update`` or
            ``legacy`` (os-initialize_connection).
        :param records: (1.9) the attachment and its volume as the API
            read and claimed them (``handover``), and the QoS specs of
            the volume's type: not read again here while the claim holds
            for long enough (see :meth:`_claimed`).
        :returns: the attachment as connected
            (:func:`cinder_ma.db.records.attachment_to_primitive`), so
            that the caller need not read it again.
        """
        pending = {'op': 'connect', 'kind': kind, 'connector': connector}
        rows = []
        read = []

        def connectable(attachment, volume):
            # Before the backend is called, in the claim's transaction;
            # a connection made concurrently meanwhile is refused by the
            # compare-and-swap of the flow's last write, whose revert
            # ends the new connection unless another attachment uses it.
            attachment_db.check_connectable(context, attachment.id,
                                            connector['host'],
                                            current=attachment)
            # What the backend call needs, in the same transaction.
            read.append(self._connection_read(context, volume))

        given = _records_of(records)
        with self._claimed(context, 'attachment', attachment_id,
                           (vstatus.ATTACH_RESERVED,), handover=handover,
                           pending=pending, rows=rows, check=connectable,
                           records=given and given[:2]) as owner:
            attachment, volume = self._consumer_attachment(rows)
            store = connect_flow.store_of(context, volume, attachment,
                                          connector)
            # Read with the claim, here or by the API (checked there in
            # the same transaction).
            store['read'] = read[-1] if read else (volume, given[2])
            # Its last write gives the claim up, a compare-and-swap on it
            # that takes the record for the row.
            store['claim'] = owner
            store['record'] = attachment
            results = self._run_consumer_flow(connect_flow.get_flow, store,
                                              volume, kind,
                                              fetch=('attachment',))
            self._claim_given_up(owner)
        LOG.info('Connected attachment %s of volume %s to host %s (%s)',
                 attachment_id, volume.id, connector.get('host'),
                 attachment.attach_mode)
        return records_mod.attachment_to_primitive(results['attachment'])

    @messaging.expected_exceptions(*EXPECTED)
    def disconnect_attachment(self, context, attachment_id,
                              terminate=False, handover=None, records=None):
        """End the connection of a consumer's attachment of a volume of
        this node, unless another attachment on its host uses it (1.8),
        under a claim on the attachment.

        :param terminate: os-terminate_connection: the attachment stays,
            without its connection; otherwise it is 'detaching' and is
            deleted (the reconcile loop finishes that if this process
            dies).
        :param handover: the claim the API wrote with ``detaching``, which
            this flow runs under.
        :param records: (1.9) the attachment and its volume as the API
            read and wrote them with that claim: not read again here
            while the claim holds for long enough (see :meth:`_claimed`).
        """
        if terminate:
            statuses = vstatus.LIVE_ATTACH_STATUSES + (
                vstatus.ATTACH_ERROR_DETACHING,)
            factory = disconnect_flow.get_terminate_flow
        else:
            statuses = (vstatus.ATTACH_DETACHING,)
            factory = disconnect_flow.get_flow
        pending = {'op': 'terminate' if terminate else 'disconnect'}
        rows = []
        given = _records_of(records)
        with self._claimed(context, 'attachment', attachment_id, statuses,
                           pending=pending, rows=rows, handover=handover,
                           adopt=handover is not None,
                           records=given and given[:2]) as owner:
            attachment, volume = self._consumer_attachment(rows)
            self._run_consumer_flow(
                factory, disconnect_flow.store_of(
                    context, volume, attachment,
                    claim=None if terminate else owner), volume)
            if not terminate:
                # Deleted: its claim goes with it.
                self._claim_given_up(owner)
        if not terminate:
            notifications.notify_attach(context, 'detach.end', volume,
                                        attachment)
        LOG.info('%s attachment %s of volume %s',
                 'Disconnected' if terminate else 'Deleted', attachment_id,
                 volume.id)

    @messaging.expected_exceptions(*EXPECTED)
    def fence_attachment(self, context, attachment_id):
        """Revoke, at the target, the connection of an attachment of a
        volume of this node recorded fenced, a consumer's or one made
        through a manager (1.8; the fence flow, under a claim on the
        attachment: the reconcile loop repeats it if this process
        dies)."""
        rows = []
        with self._claimed(context, 'attachment', attachment_id,
                           fencing_db.FENCEABLE_STATUSES,
                           pending={'op': 'fence'}, rows=rows):
            attachment, volume = self._consumer_attachment(
                rows, consumers_only=False)
            self._fence(context, attachment, volume)

    def _fence(self, context, attachment, volume):
        if attachment.fenced_at is None:
            raise exception.Conflict(
                reason='attachment %s is not fenced' % attachment.id)
        self._run_consumer_flow(
            fence_flow.get_flow,
            fence_flow.store_of(context, volume, attachment), volume)
        LOG.info('Revoked the connection of fenced attachment %s of volume '
                 '%s (generation %d)', attachment.id, volume.id,
                 attachment.generation)

    @messaging.expected_exceptions(*EXPECTED)
    def reconnect_attachment(self, context, attachment_id, connector):
        """Connect a consumer's fenced attachment again with its new
        ``connector`` (1.8; the reconnect flow, under a claim on the
        attachment: the reconcile loop ends a connection it made if this
        process dies before recording it)."""
        pending = {'op': 'reconnect', 'connector': connector}
        rows = []
        with self._claimed(context, 'attachment', attachment_id,
                           fencing_db.RECONNECTABLE_STATUSES,
                           pending=pending, rows=rows):
            attachment, volume = self._consumer_attachment(rows)
            if attachment.fenced_at is None:
                raise exception.Conflict(
                    reason='attachment %s is not fenced (any more)' %
                    attachment.id)
            self._run_consumer_flow(
                reconnect_flow.get_flow,
                reconnect_flow.store_of(context, volume, attachment,
                                        connector), volume)

    @messaging.expected_exceptions(*EXPECTED)
    def promote_consumer_attachment(self, context, attachment_id,
                                    revoke_ids=()):
        """Carry out, at the target, the promotion of a consumer's
        attachment recorded as its volume's writer (1.8): end the
        connections of the fenced attachments ``revoke_ids``, then make
        its read-write connection (the promote flow, under a claim on the
        attachment: the reconcile loop runs it again if this process
        dies)."""
        pending = {'op': 'promote', 'revoke_ids': list(revoke_ids or ())}
        rows = []
        with self._claimed(context, 'attachment', attachment_id,
                           fencing_db.PROMOTABLE_STATUSES, pending=pending,
                           rows=rows):
            attachment, volume = self._consumer_attachment(rows)
            self._promote_consumer(context, attachment, volume,
                                   pending['revoke_ids'])

    def _promote_consumer(self, context, attachment, volume, revoke_ids):
        if attachment.attach_mode != 'rw' or \
                attachment.fenced_at is not None:
            raise exception.Conflict(
                reason='attachment %s is not the unfenced writer of volume '
                       '%s' % (attachment.id, volume.id))
        revoke = self._revocations(context, volume, revoke_ids)
        self._run_consumer_flow(
            promote_flow.get_flow,
            promote_flow.store_of(context, volume, attachment, revoke),
            volume)
        LOG.info('Attachment %s is the writer of volume %s (generation '
                 '%d); its consumer reconnects', attachment.id, volume.id,
                 attachment.generation)

    def _recover_consumer(self, context, attachment_id):
        """Finish or revert the flow that a dead process ran on a
        consumer's attachment (its claim expired), from the
        ``pending_work`` recorded with that claim, or a delete whose
        process died (``detaching``, recorded before any flow ran); run
        by the reconcile loop under its own claim."""
        attachment, volume = attachment_db.attachment_and_volume_get(
            context, attachment_id)
        pending = attachment.pending_work or {}
        op = pending.get('op')
        status = attachment.attach_status
        if op == 'fence':
            if attachment.fenced_at is not None and \
                    fencing_db.is_connected(attachment):
                self._fence(context, attachment, volume)
        elif attachment.manager_host:
            # The manager of its host finishes its own flows.
            return
        elif status == vstatus.ATTACH_DETACHING:
            self._finish_disconnect(context, attachment, volume)
        elif op == 'connect':
            if status == vstatus.ATTACH_RESERVED:
                self._abort_connect(context, attachment, volume, pending)
        elif op == 'reconnect':
            if attachment.fenced_at is not None:
                self._abort_connect(context, attachment, volume, pending)
        elif op == 'terminate':
            if attachment.connector and status in \
                    vstatus.LIVE_ATTACH_STATUSES:
                self._run_consumer_flow(
                    disconnect_flow.get_terminate_flow,
                    disconnect_flow.store_of(context, volume, attachment),
                    volume)
        elif op == 'promote':
            self._promote_consumer(context, attachment, volume,
                                   pending.get('revoke_ids'))
        LOG.info('Recovered the interrupted %s of attachment %s of volume '
                 '%s (it was %s)', op or 'delete', attachment_id, volume.id,
                 status)

    def _abort_connect(self, context, attachment, volume, pending):
        """Revert a connect (or reconnect) flow that died before it
        recorded its connection: end the connection it may have made for
        the pending connector, unless another attachment on that host uses
        it; the reservation of a one-step create (whose client never
        learned of it) is released."""
        kind = pending.get('kind') or pending['op']
        self._run_consumer_flow(
            abort_flow.get_flow,
            abort_flow.store_of(context, volume, attachment,
                                pending['connector']), volume, kind)

    def _finish_disconnect(self, context, attachment, volume):
        """Finish the delete of a consumer's attachment left 'detaching'
        (its process died in, or before, the disconnect flow): run that
        flow again, here (every step of it is idempotent: the backend's
        connection is terminated unless another attachment on its host
        uses it, then the attachment is deleted)."""
        self._run_consumer_flow(
            disconnect_flow.get_flow,
            disconnect_flow.store_of(context, volume, attachment), volume,
            True)
        notifications.notify_attach(context, 'detach.end', volume,
                                    attachment)
        LOG.info('Finished the delete of attachment %s of volume %s',
                 attachment.id, volume.id)
