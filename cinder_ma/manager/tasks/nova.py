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

"""Tasks that tell Nova what happened to a volume its instances use."""

from oslo_log import log as logging
from taskflow import task
from taskflow.types import failure as tf_failure

from cinder_ma.db import attachments as attachment_db
from cinder_ma.db import volumes as volume_db
from cinder_ma import status as vstatus

LOG = logging.getLogger(__name__)


#: Attachments with a connection to their instance's host (``attaching``:
#: its connector was given, Nova connects it before completing it).
CONNECTED = (vstatus.ATTACH_ATTACHED, vstatus.ATTACH_ATTACHING)


def nova_attachments(volume):
    """The attachments of ``volume`` made by an external consumer for an
    instance (``instance_uuid``, no ``manager_host``) and connected (see
    :data:`CONNECTED`): those Nova makes, whose instance only Nova can
    resize. (Cinder tells Nova of every attachment with an instance; one
    only reserved has no connection yet and gets the new size when it is
    made, one detaching is going away.)"""
    return [a for a in volume.volume_attachment
            if a.instance_uuid and not a.manager_host and
            a.attach_status in CONNECTED]


class TellNovaVolumeExtended(task.Task):
    """Send Nova ``volume-extended`` for every instance holding an
    attachment of the volume made by an external consumer, once the
    volume has its new size (Nova's compute reads it from the API when
    it handles the event), as Cinder does after an extend.

    It runs after the extend is recorded, so it never fails the flow
    (that would give back the quota of a volume that grew): Nova
    unreachable or refusing, like ``[nova]`` misconfigured, is logged and
    marked on the attachments whose instance was not told (error_reason
    ``extend to <size> GiB not told to Nova...``, cleared by the next
    extend that reaches them) and on the volume's error_reason; it
    provides them as ``nova_not_told`` ({attachment id: reason}). Nova is
    called through ``nova_api`` of the store (the manager's
    :class:`cinder_ma.manager.nova.NovaAPI`, a run's own like its
    ``manager_api``). While
    ``[nova] auth_type`` is unset it does nothing, as before.

    Revert: nothing to undo (an instance that sees the grown volume is
    right).
    """

    default_provides = 'nova_not_told'

    def execute(self, nova_api, context, volume_id, new_size):
        if not nova_api.configured:
            return {}
        try:
            return self._tell(nova_api, context, volume_id, new_size)
        except Exception:
            LOG.exception('Extend of volume %s to %s GiB: Nova could not be '
                          'told', volume_id, new_size)
            return {}

    def _tell(self, nova_api, context, volume_id, new_size):
        volume = volume_db.volume_get(context, volume_id)
        targets = nova_attachments(volume)
        if not targets:
            return {}
        instances = sorted({a.instance_uuid for a in targets})
        outcome = nova_api.extend_volume(context, instances, volume_id)
        not_told = {}
        for attachment in targets:
            reason = outcome.get(attachment.instance_uuid)
            if reason is None:
                continue
            not_told[attachment.id] = (
                '%s%d GiB not told to Nova for instance %s: %s' % (
                    attachment_db.EXTEND_REASON_PREFIX, new_size,
                    attachment.instance_uuid, reason))
        if not_told:
            _mark(context, volume, new_size, not_told)
        return not_told

    def revert(self, result, *args, **kwargs):
        if isinstance(result, tf_failure.Failure):
            return
        # Nothing to undo.


def _mark(context, volume, new_size, not_told):
    """Record ``not_told`` on the attachments and the volume's
    error_reason; each write is a compare-and-swap on the state read (an
    attachment still connected, the volume at ``new_size``)."""
    for attachment_id, reason in sorted(not_told.items()):
        try:
            attachment_db.attachment_update(
                context, attachment_id, {'error_reason': reason},
                expected_status=CONNECTED)
        except Exception as exc:
            LOG.warning('Attachment %s: not marked "%s": %s',
                        attachment_id, reason, exc)
    summary = ('extend to %d GiB: the volume grew, but Nova was not told '
               'for %d attachment(s): %s' % (
                   new_size, len(not_told), '; '.join(
                       'attachment %s: %s' % (key, not_told[key])
                       for key in sorted(not_told))))
    if volume.error_reason:
        summary = '%s; %s' % (volume.error_reason, summary)
    try:
        volume_db.volume_change(context, volume.id,
                                {'error_reason': summary},
                                expected={'size': new_size})
    except Exception as exc:
        LOG.warning('Volume %s: not marked "%s": %s', volume.id, summary,
                    exc)
