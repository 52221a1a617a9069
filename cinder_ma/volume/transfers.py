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

"""Volume transfers: the rules, run in the API process (Cinder's
``cinder/transfer/api.py``).

A member of a volume's project offers it (create): the volume, which must
be ``available`` with no attachment, is ``awaiting-transfer`` (no
attachment, delete or extend meanwhile) and the caller is given an
authorization key once; only a salted hash of it is kept (Cinder's
HMAC-SHA1 of the key with an 8-character salt). A member of any project
who presents the transfer's id and key accepts it: the volume becomes
that project's, ``available``, and its quota usage moves from the donor
to the recipient in the same transaction, within the recipient's limits
(Cinder's 413 otherwise). As in Cinder, the volume's snapshots go with it
(their project, and their ``snapshots`` and ``gigabytes`` usage), and
must then all be ``available`` (400 otherwise), unless the transfer is
offered with ``no_snapshots`` (3.55): then they stay in the donor's
project. Withdrawing it (delete) gives the volume back
its ``available``. Transfers are seen by their volume's project (and by
administrators); another project does not find them, but may accept one
by id and key.
"""

import hashlib
import hmac
import secrets

from oslo_log import log as logging

from cinder_ma.db import quotas as quota_db
from cinder_ma.db import transfers as transfer_db
from cinder_ma import exception
from cinder_ma.policies import transfers as transfer_policies
from cinder_ma import policy
from cinder_ma import status as vstatus
from cinder_ma.volume import api as volume_api
from cinder_ma.volume import quotas

LOG = logging.getLogger(__name__)

#: Cinder's lengths (``volume_transfer_salt_length``,
#: ``volume_transfer_key_length``): hex characters, which anyone can
#: type.
SALT_LENGTH = 8
KEY_LENGTH = 16


def _random_hex(length):
    return secrets.token_hex((length + 1) // 2)[:length]


def crypt_hash(salt, auth_key):
    """Cinder's hash of a transfer's key: HMAC-SHA1 keyed by the salt."""
    return hmac.new(salt.encode('utf-8'), str(auth_key).encode('utf-8'),
                    hashlib.sha1).hexdigest()


def _is_admin(context):
    return policy.check_persona(context, 'context_is_admin')


def _scope(context):
    """The project whose transfers the caller sees (None: all)."""
    return None if _is_admin(context) else context.project_id


def _target(transfer):
    return {'project_id': transfer.source_project_id}


def create_transfer(context, volume_id, name=None, no_snapshots=False,
                    allow_encrypted=False):
    """Offer a volume to another project.

    :param no_snapshots: Cinder's 3.55 flag: the volume goes without its
        snapshots, which stay in its project. Otherwise they go with it
        and must be ``available``.
    :param allow_encrypted: the request's microversion allows encrypted
        volumes (3.70).
    :raises InvalidVolume: not ``available``, attachments, or encrypted
        below 3.70, or encrypted and offered without its snapshots.
    :raises InvalidSnapshot: a snapshot is not ``available`` (and
        ``no_snapshots`` is false).
    :returns: (the transfer, its authorization key): the key is shown
        once and never again.
    """
    volume = volume_api.get_volume(context, volume_id,
                                   transfer_policies.CREATE, children=False)
    if volume.encrypted and not allow_encrypted:
        raise exception.InvalidVolume(
            reason='transferring encrypted volume is not supported')
    if volume.encrypted and no_snapshots:
        raise exception.InvalidVolume(
            reason='transferring an encrypted volume without its '
                   'snapshots is not supported')
    if volume.attach_count:
        raise exception.InvalidVolume(
            reason='volume %s has attachments; a volume with attachments '
                   'cannot be transferred' % volume.id)
    if volume.status != vstatus.AVAILABLE:
        raise exception.InvalidVolume(
            reason="Volume's status must be available, not %s"
                   % volume.status)
    salt = _random_hex(SALT_LENGTH)
    auth_key = _random_hex(KEY_LENGTH)
    transfer = transfer_db.transfer_create(
        context, volume.id, volume.project_id, name, salt,
        crypt_hash(salt, auth_key), no_snapshots=no_snapshots)
    LOG.info('Created transfer %s of volume %s of project %s',
             transfer.id, volume.id, volume.project_id)
    return transfer, auth_key


def list_transfers(context, all_tenants=False, marker=None, limit=None,
                   offset=None, sort_keys=None, sort_dirs=None):
    """The caller's project's pending transfers; an administrator's with
    ``all_tenants``, every project's."""
    policy.authorize(context, transfer_policies.GET_ALL)
    project_id = context.project_id
    if all_tenants and _is_admin(context):
        project_id = None
    return transfer_db.transfer_get_all(
        context, project_id, marker=marker, limit=limit, offset=offset,
        sort_keys=sort_keys, sort_dirs=sort_dirs)


def get_transfer(context, transfer_id):
    """:raises TransferNotFound: none pending that the caller may see."""
    transfer = transfer_db.transfer_get(context, transfer_id,
                                        _scope(context))
    policy.authorize(context, transfer_policies.GET, _target(transfer))
    return transfer


def delete_transfer(context, transfer_id):
    """Withdraw a transfer; its volume is ``available`` again.

    :raises TransferNotFound: none pending that the caller may see.
    """
    transfer = transfer_db.transfer_get(context, transfer_id,
                                        _scope(context))
    policy.authorize(context, transfer_policies.DELETE, _target(transfer))
    transfer_db.transfer_destroy(context, transfer.id)
    LOG.info('Deleted transfer %s of volume %s', transfer.id,
             transfer.volume_id)


def _charge_accept(context, project_id):
    """The ``quota`` hook of an accept: the recipient pays for the volume
    and the snapshots that go with it (within its limits), the donor is
    given back."""
    limits = quotas.effective_limits(context, project_id)

    def hook(ctx, volume, snapshots):
        per_volume = limits.get(quota_db.PER_VOLUME_GIGABYTES, -1)
        if per_volume >= 0 and volume.size > per_volume:
            raise exception.VolumeSizeExceedsLimit(size=volume.size,
                                                   limit=per_volume)
        deltas = quota_db.volume_deltas(volume.size, volume.volume_type_id)
        # What each donor gives back: the volume's project, and the
        # project of each snapshot (the one that took it paid for it).
        given = {volume.project_id: dict(deltas)}
        for snapshot in snapshots:
            donor = given.setdefault(snapshot.project_id, {})
            for key, value in quota_db.snapshot_deltas(
                    snapshot.volume_size, snapshot.volume_type_id).items():
                deltas[key] = deltas.get(key, 0) + value
                donor[key] = donor.get(key, 0) + value
        changes = {donor_id: {key: -value for key, value in
                              donor_deltas.items()}
                   for donor_id, donor_deltas in given.items()}
        mine = changes.setdefault(project_id, {})
        for key, value in deltas.items():
            mine[key] = mine.get(key, 0) + value
        # In the order of the projects, so that concurrent accepts lock
        # the counters of two projects in one order.
        for changed_id, changed in sorted(changes.items()):
            if changed_id == project_id:
                quota_db.change_usage(ctx, changed_id, changed, limits)
            else:
                quota_db.change_usage(ctx, changed_id, changed,
                                      skip_missing=True)
    return hook


def accept_transfer(context, transfer_id, auth_key):
    """Take the volume of a transfer into the caller's project.

    :raises TransferNotFound: no pending transfer of that id.
    :raises InvalidAuthKey: the key is not the transfer's.
    :raises VolumeLimitExceeded, VolumeSizeExceedsAvailableQuota: the
        caller's project has no room for the volume (413).
    :returns: the transfer, accepted.
    """
    policy.authorize(context, transfer_policies.ACCEPT,
                     {'project_id': context.project_id,
                      'user_id': context.user_id})
    salt, expected = transfer_db.transfer_get_secret(context, transfer_id)
    if not hmac.compare_digest(crypt_hash(salt, auth_key), expected):
        LOG.warning('Attempt to accept transfer %s with an invalid auth '
                    'key by project %s', transfer_id, context.project_id)
        raise exception.InvalidAuthKey(
            reason='Attempt to transfer %s with invalid auth key.'
                   % transfer_id)
    transfer = quotas.run_charged(
        context, transfer_db.transfer_accept, context, transfer_id,
        context.user_id, context.project_id,
        quota=_charge_accept(context, context.project_id))
    LOG.info('Volume %s of project %s was transferred to project %s '
             '(transfer %s)', transfer.volume_id, transfer.source_project_id,
             context.project_id, transfer.id)
    return transfer
