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

"""Volume and attachment statuses, and the one function that derives a
volume's status from its attachments.

A leaf module (it imports nothing of cinder_ma): the data layer, the
service layer, the managers and the API all import it.

Attachment transitions call :func:`derive` in the same transaction that
changes an attachment, and nothing else writes the attachment-derived
statuses (``available``, ``reserved``, ``attaching``, ``in-use``,
``detaching``, ``error_detaching``).
"""

# Volume statuses.
CREATING = 'creating'
AVAILABLE = 'available'
RESERVED = 'reserved'
ATTACHING = 'attaching'
IN_USE = 'in-use'
DETACHING = 'detaching'
DELETING = 'deleting'
EXTENDING = 'extending'
RETYPING = 'retyping'
ERROR = 'error'
ERROR_DELETING = 'error_deleting'
ERROR_DETACHING = 'error_detaching'
ERROR_EXTENDING = 'error_extending'
# Offered for transfer to another project (no attachment may be made).
AWAITING_TRANSFER = 'awaiting-transfer'
# Reverting to a snapshot (3.40): a status of its own, as extending.
REVERTING = 'reverting'

# Snapshot statuses (Cinder's SnapshotStatus that cinder_ma uses).
SNAPSHOT_CREATING = 'creating'
SNAPSHOT_AVAILABLE = 'available'
SNAPSHOT_DELETING = 'deleting'
SNAPSHOT_ERROR = 'error'
SNAPSHOT_ERROR_DELETING = 'error_deleting'
# A volume is being reverted to it.
SNAPSHOT_RESTORING = 'restoring'

# Attachment statuses.
ATTACH_RESERVED = 'reserved'
ATTACH_ATTACHING = 'attaching'
ATTACH_ATTACHED = 'attached'
ATTACH_DETACHING = 'detaching'
ATTACH_DETACHED = 'detached'
ATTACH_ERROR_ATTACHING = 'error_attaching'
ATTACH_ERROR_DETACHING = 'error_detaching'

# Attachment statuses that hold a volume (count against reservations).
LIVE_ATTACH_STATUSES = (ATTACH_RESERVED, ATTACH_ATTACHING, ATTACH_ATTACHED,
                        ATTACH_DETACHING, ATTACH_ERROR_DETACHING)

# Volume statuses in which attachments may change; derive() only ever
# moves a volume between these.
ATTACHABLE_STATUSES = (AVAILABLE, RESERVED, ATTACHING, IN_USE, DETACHING,
                       ERROR_DETACHING)


#: The precedence :func:`derive` applies: the volume's status when one of
#: its attachments has the attachment status, the first that matches
#: winning; none matching gives ``available``. (The database layer writes
#: the same rule as one UPDATE.)
DERIVED = ((ATTACH_ATTACHED, IN_USE),
           (ATTACH_ATTACHING, ATTACHING),
           (ATTACH_DETACHING, DETACHING),
           (ATTACH_ERROR_DETACHING, ERROR_DETACHING),
           (ATTACH_RESERVED, RESERVED))


def derive(attach_statuses):
    """Volume status for the statuses of its (not deleted) attachments.

    In order of precedence (Cinder's ``attached > attaching > detaching >
    reserved``, which clients wait for, plus the error state Cinder
    ignores):

    Each attachment counts with the status :func:`counted_status` gives
    it (an ``attached`` one whose consumer began detaching it counts as
    ``detaching``).

    * ``in-use`` if any attachment is ``attached`` (so an in-use shareable
      volume stays in-use while other attachments come and go: Cinder
      flips it to ``attaching``/``detaching`` meanwhile, we do not);
    * ``attaching`` if any is ``attaching`` (a connector was given);
    * ``detaching`` if any is ``detaching``;
    * ``error_detaching`` if any is ``error_detaching``: a connection may
      be left on a host, so the volume is not free;
    * ``reserved`` if any is ``reserved`` (only reservations: no
      connector yet), as in Cinder;
    * ``available`` otherwise: no attachments, only ``detached`` ones, or
      only ``error_attaching`` ones (the attach flow reverted everything it
      did before recording that status).
    """
    statuses = set(attach_statuses)
    for attach_status, volume_status in DERIVED:
        if attach_status in statuses:
            return volume_status
    return AVAILABLE



def counted_status(attach_status, detach_begun_at):
    """The status an attachment counts as in :func:`derive`.

    An ``attached`` attachment whose consumer began detaching it
    (``os-begin_detaching``: its ``detach_begun_at`` is set) counts as
    ``detaching``, so that a volume whose only attachment it is shows
    ``detaching``, as Cinder's does, while the attachment itself stays
    ``attached`` (as in Cinder) and is no work for cinder_ma: the
    ``detaching`` attachment status means that cinder_ma is deleting it.
    (The database layer writes the same rule in its UPDATE.)
    """
    if attach_status == ATTACH_ATTACHED and detach_begun_at is not None:
        return ATTACH_DETACHING
    return attach_status
